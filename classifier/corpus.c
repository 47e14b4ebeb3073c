/* Training pages tokenised once into sorted term bags, with their order by website. */
#include "classifier/corpus.h"

#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls_model.h"
#include "classifier/tokenize.h"

void corpus_release(struct corpus *c)
{
    vocab_release(&c->vocab);
    if (c->bags)
        for (size_t i = 0; i < c->n; i++)
            tfidf_vec_release(&c->bags[i]);
    free(c->bags);
    free(c->by_site);
}

struct add_ctx {
    struct vocab *vocab;
    struct tfidf_counter *counter;
};

static enum err count_all(void *ctx, const char *tok, size_t len)
{
    struct add_ctx *c = ctx;
    uint32_t id;
    enum err e = vocab_add(c->vocab, tok, len, &id, NULL);
    return e ? e : tfidf_counter_add(c->counter, id);
}

struct site_ref {
    uint32_t site;
    size_t doc;
};

static int site_ref_cmp(const void *a, const void *b)
{
    const struct site_ref *x = a, *y = b;
    if (x->site != y->site)
        return (x->site > y->site) - (x->site < y->site);
    return (x->doc > y->doc) - (x->doc < y->doc);
}

/* Page indices sorted by site, then by index: a site's pages become one run. */
static enum err order_by_site(const struct pagecls_doc *docs, size_t n, size_t *order)
{
    struct site_ref *refs = malloc(n * sizeof *refs);
    if (!refs)
        return err_set(ERR_NOMEM, "out of memory sorting %zu pages by site", n);
    for (size_t i = 0; i < n; i++)
        refs[i] = (struct site_ref){docs[i].site, i};
    qsort(refs, n, sizeof *refs, site_ref_cmp);
    for (size_t i = 0; i < n; i++)
        order[i] = refs[i].doc;
    free(refs);
    return ERR_OK;
}

/* Parameters in range, classes below PAGECLS_MAX_CLASSES, at least two of them. */
static enum err check_input(const struct pagecls_params *p, const struct pagecls_doc *docs,
                            size_t n, uint32_t *n_classes)
{
    enum err e;
    if ((e = pagecls_check_params(p)))
        return e;
    if (n == 0)
        return err_set(ERR_INVAL, "no training pages");
    for (size_t i = 0; i < n; i++) {
        if (docs[i].cls >= PAGECLS_MAX_CLASSES)
            return err_set(ERR_INVAL, "training page %zu has class %u (at most %d classes)", i,
                           docs[i].cls, PAGECLS_MAX_CLASSES);
        if (docs[i].cls + 1 > *n_classes)
            *n_classes = docs[i].cls + 1;
    }
    if (*n_classes < 2)
        return err_set(ERR_INVAL, "training pages of at least two classes are needed");
    return ERR_OK;
}

enum err corpus_build(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                      struct corpus *c)
{
    enum err e;
    struct tokenizer *tok = NULL;
    struct tfidf_counter counter;
    memset(c, 0, sizeof *c);
    vocab_init(&c->vocab);
    tfidf_counter_init(&counter);
    if ((e = check_input(p, docs, n, &c->n_classes)))
        return e;
    c->bags = calloc(n, sizeof *c->bags);
    if (!c->bags)
        return err_set(ERR_NOMEM, "out of memory for %zu training pages", n);
    c->n = n;
    c->by_site = malloc(n * sizeof *c->by_site);
    if (!c->by_site) {
        e = err_set(ERR_NOMEM, "out of memory for %zu training pages", n);
        goto out;
    }
    if ((e = order_by_site(docs, n, c->by_site)))
        goto out;
    if ((e = tokenize_new(&p->tok, &tok)))
        goto out;
    struct add_ctx ctx = {&c->vocab, &counter};
    for (size_t i = 0; i < n; i++) {
        if ((e = tokenize_text(tok, docs[i].text, docs[i].len, count_all, &ctx)) ||
            (e = tfidf_counter_take(&counter, &c->bags[i], true)))
            goto out;
    }
out:
    tokenize_free(tok);
    tfidf_counter_release(&counter);
    if (e)
        corpus_release(c);
    return e;
}
