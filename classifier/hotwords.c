/* Hot words: the topic's key terms from a page model, and an anchor's similarity to them. */
#include "classifier/hotwords.h"

#include <math.h>
#include <stdlib.h>

#include "classifier/pagecls_model.h"
#include "classifier/textterms.h"
#include "classifier/tokenize.h"
#include "classifier/vocab.h"

#define ANCHOR_TERMS 256 /* distinct terms of one anchor counted (anchors are capped) */

struct hotwords {
    struct vocab keys; /* ids 0..n-1, most typical first */
    struct tokenizer *tok;
    struct textterms anchor; /* one anchor's distinct terms, emptied per call */
};

void hotwords_free(struct hotwords *h)
{
    if (!h)
        return;
    vocab_release(&h->keys);
    textterms_release(&h->anchor);
    tokenize_free(h->tok);
    free(h);
}

/* A term's mean weight in class cls's centroids (each centroid unit length). */
static double mean_weight(const struct pagecls *m, uint32_t t, uint32_t cls)
{
    double sum = 0;
    for (uint32_t j = 0; j < m->k[cls]; j++)
        sum += m->cent[(size_t)t * m->k_total + m->first[cls] + j];
    return m->k[cls] ? sum / m->k[cls] : 0;
}

/* A term's lowest weight among class cls's centroids. */
static double min_weight(const struct pagecls *m, uint32_t t, uint32_t cls)
{
    double low = 0;
    for (uint32_t j = 0; j < m->k[cls]; j++) {
        double w = m->cent[(size_t)t * m->k_total + m->first[cls] + j];
        if (j == 0 || w < low)
            low = w;
    }
    return low;
}

/*
 * How much more typical of the target than of the rest term t is: its lowest weight in
 * the target's centroids less its mean weight in the other classes'. The lowest, not
 * the mean: a centroid often gathers one training website's pages, and the words of
 * that website alone (its name, its authors) would otherwise come first; a key term of
 * the topic is in every target centroid.
 */
static double typicality(const struct pagecls *m, uint32_t t)
{
    double other = 0;
    uint32_t n_other = 0;
    for (uint32_t c = 0; c < m->n_classes; c++)
        if (c != PAGECLS_TARGET) {
            other += mean_weight(m, t, c);
            n_other++;
        }
    return min_weight(m, t, PAGECLS_TARGET) - (n_other ? other / n_other : 0);
}

enum err hotwords_new(const struct pagecls *m, uint32_t k, struct hotwords **out)
{
    *out = NULL;
    if (m->params.kind != PAGECLS_KNN) /* none would be found: the crawl would be bestfirst */
        return err_set(
            ERR_INVAL,
            "hot words: the page model (classifier %s) has no centroids to take them from",
            pagecls_kind_name(m->params.kind));
    struct hotwords *h = calloc(1, sizeof *h);
    uint32_t *best = calloc(k ? k : 1, sizeof *best);
    double *score = calloc(k ? k : 1, sizeof *score);
    enum err e = ERR_OK;
    if (!h || !best || !score) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    vocab_init(&h->keys);
    textterms_init(&h->anchor, ANCHOR_TERMS);
    if ((e = tokenize_new(&m->params.tok, &h->tok)))
        goto out;
    /* The k best by insertion: k is small, the vocabulary is read once. */
    uint32_t n = 0;
    for (uint32_t t = 0; t < m->n_terms && k; t++) {
        double d = typicality(m, t);
        if (!(d > 0) || (n == k && d <= score[n - 1]))
            continue;
        uint32_t i = n < k ? n++ : k - 1;
        while (i > 0 && score[i - 1] < d) {
            score[i] = score[i - 1];
            best[i] = best[i - 1];
            i--;
        }
        score[i] = d;
        best[i] = t;
    }
    for (uint32_t i = 0; i < n && !e; i++) {
        size_t len;
        const char *term = vocab_term(&m->vocab, best[i], &len);
        uint32_t id;
        e = vocab_add(&h->keys, term, len, &id, NULL);
    }
    if (!e) {
        *out = h;
        h = NULL;
    }
out:
    free(best);
    free(score);
    hotwords_free(h);
    return e;
}

uint32_t hotwords_count(const struct hotwords *h)
{
    return h->keys.n;
}

const char *hotwords_term(const struct hotwords *h, uint32_t i, size_t *len)
{
    return vocab_term(&h->keys, i, len);
}

double hotwords_cosine(const uint32_t *counts, const bool *is_key, size_t n, uint32_t n_keys)
{
    double dot = 0, norm = 0;
    for (size_t i = 0; i < n; i++) {
        norm += (double)counts[i] * counts[i];
        if (is_key[i])
            dot += counts[i];
    }
    if (!(norm > 0) || !n_keys)
        return 0;
    return dot / (sqrt(norm) * sqrt((double)n_keys));
}

enum err hotwords_score(struct hotwords *h, const char *anchor, size_t len, double *out)
{
    *out = 0;
    enum err e = textterms_read(&h->anchor, h->tok, anchor, len);
    if (e)
        return e;
    bool is_key[ANCHOR_TERMS];
    for (uint32_t i = 0; i < h->anchor.terms.n; i++) {
        size_t n;
        const char *term = vocab_term(&h->anchor.terms, i, &n);
        uint32_t id;
        is_key[i] = vocab_find(&h->keys, term, n, &id);
    }
    *out = hotwords_cosine(h->anchor.count, is_key, h->anchor.terms.n, h->keys.n);
    return ERR_OK;
}
