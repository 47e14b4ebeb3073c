/* The learning anchor classifier: naive Bayes over anchor terms, trained online. */
#include "classifier/anchorcls.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/textterms.h"
#include "classifier/vocab.h"
#include "common/grow.h"

struct anchorcls {
    struct vocab terms;
    struct {
        uint64_t n[2]; /* occurrences in anchors of class 0 (other), 1 (relevant) */
    } * count;         /* per term */
    size_t cap;
    uint64_t total[2];    /* all term occurrences of each class */
    uint64_t examples[2]; /* anchors of each class */
    struct tokenizer *tok;
    struct textterms text; /* one text's distinct terms, during add and score */
};

void anchorcls_free(struct anchorcls *a)
{
    if (!a)
        return;
    vocab_release(&a->terms);
    textterms_release(&a->text);
    free(a->count);
    tokenize_free(a->tok);
    free(a);
}

enum err anchorcls_new(const struct tokenize_opts *tok, struct anchorcls **out)
{
    *out = NULL;
    struct anchorcls *a = calloc(1, sizeof *a);
    if (!a)
        return err_set(ERR_NOMEM, "out of memory");
    vocab_init(&a->terms);
    textterms_init(&a->text, ANCHORCLS_MAX_TERMS);
    enum err e = tokenize_new(tok, &a->tok);
    if (e)
        anchorcls_free(a);
    else
        *out = a;
    return e;
}

uint64_t anchorcls_examples(const struct anchorcls *a, int relevant)
{
    return a->examples[relevant ? 1 : 0];
}

double anchorcls_posterior(const uint32_t *c, const uint64_t *t, const uint64_t *o, size_t n,
                           uint64_t total_t, uint64_t total_o, uint64_t vocab, uint64_t n_t,
                           uint64_t n_o)
{
    if (!n_t || !n_o || !vocab)
        return 0.5;
    double lo = log((double)n_t / (double)n_o);
    for (size_t i = 0; i < n; i++)
        lo += c[i] * (log((t[i] + 1.0) / ((double)total_t + (double)vocab)) -
                      log((o[i] + 1.0) / ((double)total_o + (double)vocab)));
    return 1 / (1 + exp(-lo));
}

enum err anchorcls_add(struct anchorcls *a, const char *text, size_t len, int relevant)
{
    int k = relevant ? 1 : 0;
    enum err e = textterms_read(&a->text, a->tok, text, len);
    for (uint32_t i = 0; i < a->text.terms.n && !e; i++) {
        size_t n;
        const char *term = vocab_term(&a->text.terms, i, &n);
        uint32_t id;
        bool added;
        if ((e = vocab_add(&a->terms, term, n, &id, &added)))
            break;
        if (added) {
            if ((e = grow_array((void **)&a->count, &a->cap, id + 1, sizeof *a->count)))
                break;
            memset(&a->count[id], 0, sizeof a->count[id]);
        }
        a->count[id].n[k] += a->text.count[i];
        a->total[k] += a->text.count[i];
    }
    if (!e && a->text.terms.n)
        a->examples[k]++;
    return e;
}

enum err anchorcls_score(struct anchorcls *a, const char *text, size_t len, double *out)
{
    *out = 0.5;
    enum err e = textterms_read(&a->text, a->tok, text, len);
    if (e || !a->text.terms.n)
        return e;
    uint64_t t[ANCHORCLS_MAX_TERMS], o[ANCHORCLS_MAX_TERMS];
    for (uint32_t i = 0; i < a->text.terms.n; i++) {
        size_t n;
        const char *term = vocab_term(&a->text.terms, i, &n);
        uint32_t id;
        bool known = vocab_find(&a->terms, term, n, &id);
        t[i] = known ? a->count[id].n[1] : 0;
        o[i] = known ? a->count[id].n[0] : 0;
    }
    *out = anchorcls_posterior(a->text.count, t, o, a->text.terms.n, a->total[1], a->total[0],
                               a->terms.n, a->examples[1], a->examples[0]);
    return ERR_OK;
}
