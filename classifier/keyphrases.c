/* Key phrases by TF-DF and information gain (seed 001 §2.2), and their count in a page. */
#include "classifier/keyphrases.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "classifier/termstats.h"
#include "classifier/vocab.h"

struct keyphrases {
    struct vocab keys; /* ids 0..n-1, greatest gain first */
    struct tokenizer *tok;
    bool *seen; /* per key, during keyphrases_lambda */
};

void keyphrases_free(struct keyphrases *kp)
{
    if (!kp)
        return;
    vocab_release(&kp->keys);
    tokenize_free(kp->tok);
    free(kp->seen);
    free(kp);
}

static enum err kp_new(const struct tokenize_opts *tok, struct keyphrases **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return err_set(ERR_NOMEM, "out of memory");
    vocab_init(&(*out)->keys);
    return tokenize_new(tok, &(*out)->tok);
}

/* The keys are all in: the scratch for keyphrases_lambda. */
static enum err kp_done(struct keyphrases *kp)
{
    kp->seen = calloc(kp->keys.n ? kp->keys.n : 1, sizeof *kp->seen);
    return kp->seen ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
}

uint32_t keyphrases_count(const struct keyphrases *kp)
{
    return kp->keys.n;
}

const char *keyphrases_term(const struct keyphrases *kp, uint32_t i, size_t *len)
{
    return vocab_term(&kp->keys, i, len);
}

/* ---- the formulas ---------------------------------------------------------- */

/* Seed 001 eq. 2: W_ij = TF_ij / max_k TF_kj * DF_i / n. */
double keyphrases_tfdf(uint32_t tf, uint32_t max_tf, uint32_t df, uint32_t n)
{
    if (!max_tf || !n)
        return 0;
    return (double)tf / max_tf * ((double)df / n);
}

/* Seed 001 eq. 3: E_S = -sum_i p_i ln p_i. */
double keyphrases_entropy(const uint32_t *counts, size_t n_classes)
{
    double total = 0, e = 0;
    for (size_t i = 0; i < n_classes; i++)
        total += counts[i];
    if (!(total > 0))
        return 0;
    for (size_t i = 0; i < n_classes; i++)
        if (counts[i]) {
            double p = counts[i] / total;
            e -= p * log(p);
        }
    return e;
}

/* Seed 001 eq. 4: Gain(a) = E_S - sum_j |S_aj| / |S| E_S_aj, a's values j: holds, does not. */
double keyphrases_gain(uint32_t with_target, uint32_t with_other, uint32_t n_target,
                       uint32_t n_other)
{
    double total = (double)n_target + n_other;
    if (!(total > 0) || with_target > n_target || with_other > n_other)
        return 0;
    uint32_t all[2] = {n_target, n_other};
    uint32_t with[2] = {with_target, with_other};
    uint32_t without[2] = {n_target - with_target, n_other - with_other};
    double n_with = (double)with_target + with_other;
    return keyphrases_entropy(all, 2) - n_with / total * keyphrases_entropy(with, 2) -
           (total - n_with) / total * keyphrases_entropy(without, 2);
}

/* ---- training -------------------------------------------------------------- */

/* A candidate key phrase. */
struct cand {
    uint32_t id;
    double tfdf, gain;
};

/* Greatest score first, then the order found (qsort is not stable). */
static int cmp_score(double x, double y, uint32_t ix, uint32_t iy)
{
    if (x != y)
        return x < y ? 1 : -1;
    return (ix > iy) - (ix < iy);
}
static int by_tfdf(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    return cmp_score(x->tfdf, y->tfdf, x->id, y->id);
}
static int by_gain(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    return cmp_score(x->gain, y->gain, x->id, y->id);
}

enum err keyphrases_train(const struct tokenize_opts *tok, const struct pagecls_doc *docs, size_t n,
                          uint32_t k, struct keyphrases **out)
{
    *out = NULL;
    struct termstats t;
    struct keyphrases *kp = NULL;
    struct cand *cand = NULL;
    termstats_init(&t);
    enum err e = kp_new(tok, &kp);
    if (!e)
        e = termstats_count(&t, kp->tok, docs, n);
    if (e)
        goto out;
    const uint32_t *n_class = t.n_pages;
    cand = malloc((t.terms.n ? t.terms.n : 1) * sizeof *cand);
    if (!cand) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    size_t n_cand = 0;
    for (uint32_t id = 0; id < t.terms.n; id++) {
        const struct termstats_term *s = &t.st[id];
        /* More common among the target pages than among the others: the seed's terms
         * are "highly related to the class" (§2.2); a term typical of the other class
         * has as much gain but says nothing for the topic. */
        if ((double)s->df[0] * n_class[1] <= (double)s->df[1] * n_class[0] ||
            s->sites < KEYPHRASES_MIN_SITES)
            continue;
        /* The class's mean W_ij over its pages: the mean TF/maxTF times DF/n (eq. 2). */
        cand[n_cand++] = (struct cand){id, s->tf_sum / n_class[0] * ((double)s->df[0] / n_class[0]),
                                       keyphrases_gain(s->df[0], s->df[1], n_class[0], n_class[1])};
    }
    qsort(cand, n_cand, sizeof *cand, by_tfdf);
    size_t shortlist = (size_t)k * KEYPHRASES_SHORTLIST;
    if (n_cand > shortlist)
        n_cand = shortlist;
    qsort(cand, n_cand, sizeof *cand, by_gain);
    for (size_t i = 0; i < n_cand && i < k && !e; i++) {
        size_t len;
        const char *term = vocab_term(&t.terms, cand[i].id, &len);
        uint32_t id;
        e = vocab_add(&kp->keys, term, len, &id, NULL);
    }
    if (!e)
        e = kp_done(kp);
    if (!e) {
        *out = kp;
        kp = NULL;
    }
out:
    free(cand);
    termstats_release(&t);
    keyphrases_free(kp);
    return e;
}

/* ---- reading and writing ----------------------------------------------------- */

enum err keyphrases_parse(const struct tokenize_opts *tok, const char *text, size_t len,
                          struct keyphrases **out)
{
    struct keyphrases *kp;
    *out = NULL;
    enum err e = kp_new(tok, &kp);
    for (size_t i = 0; i < len && !e;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (end > i) {
            uint32_t id;
            e = vocab_add(&kp->keys, text + i, end - i, &id, NULL);
        }
        i = end + 1;
    }
    if (!e)
        e = kp_done(kp);
    if (e)
        keyphrases_free(kp);
    else
        *out = kp;
    return e;
}

enum err keyphrases_format(const struct keyphrases *kp, struct buf *out)
{
    enum err e = ERR_OK;
    for (uint32_t i = 0; i < kp->keys.n && !e; i++) {
        size_t len;
        const char *term = vocab_term(&kp->keys, i, &len);
        e = buf_append(out, term, len);
        if (!e)
            e = buf_append_char(out, '\n');
    }
    return e;
}

/* ---- lambda ------------------------------------------------------------------ */

struct lambda_ctx {
    struct keyphrases *kp;
    uint32_t found;
};

static enum err see_token(void *ctx, const char *tok, size_t len)
{
    struct lambda_ctx *c = ctx;
    uint32_t id;
    if (vocab_find(&c->kp->keys, tok, len, &id) && !c->kp->seen[id]) {
        c->kp->seen[id] = true;
        c->found++;
    }
    return ERR_OK;
}

enum err keyphrases_lambda(struct keyphrases *kp, const char *text, size_t len, uint32_t *lambda)
{
    struct lambda_ctx c = {kp, 0};
    memset(kp->seen, 0, (kp->keys.n ? kp->keys.n : 1) * sizeof *kp->seen);
    enum err e = tokenize_text(kp->tok, text, len, see_token, &c);
    *lambda = e ? 0 : c.found;
    return e;
}
