/* Pages' term counts decoded once (pagevecs.h). */
#include "classifier/pagevecs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "classifier/termvec.h"
#include "common/grow.h"

/* The pages' pairs back to back: page k's are [start[k], start[k + 1]). */
struct pagevecs {
    struct vocab v;
    struct vocab keys; /* a key's decimal digits -> its id, an index of page_of */
    size_t *page_of;   /* per key id: its page */
    size_t cap_page_of;
    uint32_t *term, *count;
    size_t n, cap_term, cap_count;
    size_t *start; /* pages + 1 */
    size_t pages, cap_start;
};

enum err pagevecs_new(struct pagevecs **out)
{
    struct pagevecs *pv = calloc(1, sizeof *pv);
    *out = pv;
    if (!pv)
        return err_set(ERR_NOMEM, "out of memory");
    vocab_init(&pv->v);
    vocab_init(&pv->keys);
    return ERR_OK;
}

void pagevecs_free(struct pagevecs *pv)
{
    if (!pv)
        return;
    vocab_release(&pv->v);
    vocab_release(&pv->keys);
    free(pv->page_of);
    free(pv->term);
    free(pv->count);
    free(pv->start);
    free(pv);
}

static enum err add_pair(void *ctx, const char *term, size_t len, uint32_t count)
{
    struct pagevecs *pv = ctx;
    uint32_t id;
    enum err e = vocab_add(&pv->v, term, len, &id, NULL);
    if (!e)
        e = grow_array((void **)&pv->term, &pv->cap_term, pv->n + 1, sizeof *pv->term);
    if (!e)
        e = grow_array((void **)&pv->count, &pv->cap_count, pv->n + 1, sizeof *pv->count);
    if (e)
        return e;
    pv->term[pv->n] = id;
    pv->count[pv->n++] = count;
    return ERR_OK;
}

/* A new page decoded from terms, number pv->pages - 1 after it. */
static enum err decode(struct pagevecs *pv, const char *terms)
{
    enum err e = grow_array((void **)&pv->start, &pv->cap_start, pv->pages + 2, sizeof *pv->start);
    if (e)
        return e;
    pv->start[pv->pages] = pv->n;
    if ((e = termvec_decode(terms, add_pair, pv))) {
        pv->n = pv->start[pv->pages]; /* the page's pairs taken back */
        return e;
    }
    pv->start[++pv->pages] = pv->n;
    return ERR_OK;
}

enum err pagevecs_add(struct pagevecs *pv, int64_t key, const char *terms, size_t *page)
{
    if (key < 0) {
        enum err e = decode(pv, terms);
        if (!e)
            *page = pv->pages - 1;
        return e;
    }
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%" PRId64, key);
    uint32_t id;
    if (vocab_find(&pv->keys, digits, (size_t)len, &id)) {
        *page = pv->page_of[id];
        return ERR_OK;
    }
    /* Room for the key's page first: a key is in keys only with its page_of entry. */
    enum err e = grow_array((void **)&pv->page_of, &pv->cap_page_of, (size_t)pv->keys.n + 1,
                            sizeof *pv->page_of);
    if (!e)
        e = decode(pv, terms);
    if (!e)
        e = vocab_add(&pv->keys, digits, (size_t)len, &id, NULL);
    if (e)
        return e;
    *page = pv->page_of[id] = pv->pages - 1;
    return ERR_OK;
}

uint32_t pagevecs_page(const struct pagevecs *pv, size_t page, const uint32_t **term,
                       const uint32_t **count)
{
    *term = pv->term + pv->start[page];
    *count = pv->count + pv->start[page];
    return (uint32_t)(pv->start[page + 1] - pv->start[page]);
}

const struct vocab *pagevecs_vocab(const struct pagevecs *pv)
{
    return &pv->v;
}
