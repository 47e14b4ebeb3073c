/* A page's term counts as text (termvec.h). */
#include "classifier/termvec.h"

#include <stdlib.h>
#include <string.h>

#include "classifier/tokenize.h"
#include "classifier/vocab.h"
#include "common/grow.h"

struct counting {
    struct vocab v;
    uint32_t *count; /* per vocabulary id */
    size_t cap;
};

static enum err count_token(void *ctx, const char *tok, size_t len)
{
    struct counting *c = ctx;
    uint32_t id;
    if (vocab_find(&c->v, tok, len, &id)) {
        if (c->count[id] < TERMVEC_MAX_COUNT)
            c->count[id]++;
        return ERR_OK;
    }
    if (c->v.n >= TERMVEC_MAX_TERMS)
        return ERR_OK;
    enum err e = vocab_add(&c->v, tok, len, &id, NULL);
    if (!e)
        e = grow_array((void **)&c->count, &c->cap, (size_t)id + 1, sizeof *c->count);
    if (!e)
        c->count[id] = 1;
    return e;
}

/* cmp_term's vocabulary: qsort has no context argument (one per thread). */
static _Thread_local const struct vocab *sort_vocab;

static int cmp_term(const void *a, const void *b)
{
    size_t la, lb;
    const char *ta = vocab_term(sort_vocab, *(const uint32_t *)a, &la);
    const char *tb = vocab_term(sort_vocab, *(const uint32_t *)b, &lb);
    int c = memcmp(ta, tb, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

enum err termvec_encode(struct tokenizer *t, const char *text, size_t len, struct buf *out)
{
    struct counting c = {0};
    vocab_init(&c.v);
    uint32_t *order = NULL;
    enum err e = tokenize_text(t, text, len, count_token, &c);
    if (!e && c.v.n) {
        order = malloc(c.v.n * sizeof *order);
        if (!order)
            e = err_set(ERR_NOMEM, "out of memory");
    }
    if (!e && c.v.n) {
        for (uint32_t i = 0; i < c.v.n; i++)
            order[i] = i;
        sort_vocab = &c.v;
        qsort(order, c.v.n, sizeof *order, cmp_term);
    }
    for (uint32_t i = 0; !e && i < c.v.n; i++) {
        size_t n;
        const char *term = vocab_term(&c.v, order[i], &n);
        e = buf_appendf(out, "%s%.*s:%u", i ? " " : "", (int)n, term, c.count[order[i]]);
    }
    free(order);
    free(c.count);
    vocab_release(&c.v);
    return e;
}

enum err termvec_decode(const char *s, termvec_fn fn, void *ctx)
{
    if (!s)
        return ERR_OK;
    const char *p = s;
    while (*p) {
        const char *colon = p;
        while (*colon && *colon != ':' && *colon != ' ')
            colon++;
        if (*colon != ':' || colon == p)
            return err_set(ERR_PARSE, "term vector: a pair without a term or a count at byte %zu",
                           (size_t)(p - s));
        const char *d = colon + 1;
        uint32_t count = 0;
        while (*d >= '0' && *d <= '9' && count <= TERMVEC_MAX_COUNT)
            count = count * 10 + (uint32_t)(*d++ - '0');
        if (count < 1 || count > TERMVEC_MAX_COUNT || (*d && *d != ' '))
            return err_set(ERR_PARSE, "term vector: a bad count at byte %zu",
                           (size_t)(colon + 1 - s));
        enum err e = fn(ctx, p, (size_t)(colon - p), count);
        if (e)
            return e;
        if (*d == ' ') {
            d++;
            if (*d == ' ' || !*d)
                return err_set(ERR_PARSE, "term vector: an empty pair at byte %zu",
                               (size_t)(d - s));
        }
        p = d;
    }
    return ERR_OK;
}
