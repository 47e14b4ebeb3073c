/* Seed 002's topic-specific weight table by TF-IDF, and a text's cosine relevancy to it. */
#include "classifier/weighttable.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "classifier/termstats.h"
#include "classifier/vocab.h"

struct weighttable {
    struct vocab keys; /* ids 0..m-1, greatest weight first */
    double *w;         /* per key: its weight in the table, eq. 5 */
    double *idf;       /* per key: its idf in the training pages */
    double *page;      /* per key, during weighttable_relevance: count, then count * idf */
    struct tokenizer *tok;
};

void weighttable_free(struct weighttable *wt)
{
    if (!wt)
        return;
    vocab_release(&wt->keys);
    free(wt->w);
    free(wt->idf);
    free(wt->page);
    tokenize_free(wt->tok);
    free(wt);
}

static enum err wt_new(const struct tokenize_opts *tok, size_t m, struct weighttable **out)
{
    struct weighttable *wt = calloc(1, sizeof *wt);
    *out = NULL;
    if (!wt)
        return err_set(ERR_NOMEM, "out of memory");
    vocab_init(&wt->keys);
    wt->w = calloc(m ? m : 1, sizeof *wt->w);
    wt->idf = calloc(m ? m : 1, sizeof *wt->idf);
    wt->page = calloc(m ? m : 1, sizeof *wt->page);
    enum err e = !wt->w || !wt->idf || !wt->page ? err_set(ERR_NOMEM, "out of memory")
                                                 : tokenize_new(tok, &wt->tok);
    if (e)
        weighttable_free(wt);
    else
        *out = wt;
    return e;
}

uint32_t weighttable_count(const struct weighttable *wt)
{
    return wt->keys.n;
}

const char *weighttable_term(const struct weighttable *wt, uint32_t i, size_t *len)
{
    return vocab_term(&wt->keys, i, len);
}

double weighttable_weight(const struct weighttable *wt, uint32_t i)
{
    return wt->w[i];
}

/* ---- the formulas ---------------------------------------------------------- */

/* Seed 002: "frequency divided by the maximum frequency of any term within the document". */
double weighttable_tf(uint32_t freq, uint32_t max_freq)
{
    return max_freq ? (double)freq / max_freq : 0;
}

/* Seed 002: IDF = log(|D| / (1 + |{d in D : t in d}|)), the 1 against a division by zero. */
double weighttable_idf(uint32_t n_docs, uint32_t df)
{
    return n_docs ? log((double)n_docs / (1.0 + df)) : 0;
}

/* Seed 002, "Calculation of Relevancy of page": the cosine of table t and page p. */
double weighttable_cosine(const double *wt, const double *wp, size_t m)
{
    double dot = 0, nt = 0, np = 0;
    for (size_t k = 0; k < m; k++) {
        dot += wt[k] * wp[k];
        nt += wt[k] * wt[k];
        np += wp[k] * wp[k];
    }
    if (!(nt > 0) || !(np > 0))
        return 0;
    return dot / (sqrt(nt) * sqrt(np));
}

/* ---- training -------------------------------------------------------------- */

struct cand {
    uint32_t id;
    double w, idf;
};

/* Greatest weight first, then the order found. */
static int by_weight(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->w != y->w)
        return x->w < y->w ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

enum err weighttable_train(const struct tokenize_opts *tok, const struct pagecls_doc *docs,
                           size_t n, uint32_t m, struct weighttable **out)
{
    *out = NULL;
    struct termstats t;
    struct weighttable *wt = NULL;
    struct cand *cand = NULL;
    termstats_init(&t);
    enum err e = wt_new(tok, m, &wt);
    if (!e)
        e = termstats_count(&t, wt->tok, docs, n);
    if (e)
        goto out;
    cand = malloc((t.terms.n ? t.terms.n : 1) * sizeof *cand);
    if (!cand) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    size_t n_cand = 0;
    for (uint32_t id = 0; id < t.terms.n; id++) {
        const struct termstats_term *s = &t.st[id];
        /* idf over all the training pages, both classes */
        double idf = weighttable_idf((uint32_t)n, s->df[0] + s->df[1]);
        /* sum over the target pages of tf * idf: idf is the term's, the same in each */
        double w = s->tf_sum * idf;
        if (s->sites >= WEIGHTTABLE_MIN_SITES && w > 0)
            cand[n_cand++] = (struct cand){id, w, idf};
    }
    qsort(cand, n_cand, sizeof *cand, by_weight);
    for (size_t i = 0; i < n_cand && i < m && !e; i++) {
        size_t len;
        const char *term = vocab_term(&t.terms, cand[i].id, &len);
        uint32_t id;
        if (!(e = vocab_add(&wt->keys, term, len, &id, NULL))) {
            wt->w[id] = cand[i].w / cand[0].w; /* eq. 5: W_ti / W_tmax */
            wt->idf[id] = cand[i].idf;
        }
    }
    if (!e) {
        *out = wt;
        wt = NULL;
    }
out:
    free(cand);
    termstats_release(&t);
    weighttable_free(wt);
    return e;
}

/* ---- reading and writing ----------------------------------------------------- */

enum err weighttable_format(const struct weighttable *wt, struct buf *out)
{
    enum err e = ERR_OK;
    for (uint32_t i = 0; i < wt->keys.n && !e; i++) {
        size_t len;
        const char *term = vocab_term(&wt->keys, i, &len);
        e = buf_appendf(out, "%.*s %.17g %.17g\n", (int)len, term, wt->w[i], wt->idf[i]);
    }
    return e;
}

enum err weighttable_parse(const struct tokenize_opts *tok, const char *text, size_t len,
                           struct weighttable **out)
{
    size_t lines = 0;
    *out = NULL;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    struct weighttable *wt;
    enum err e = wt_new(tok, lines, &wt);
    for (size_t i = 0; i < len && !e;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        char line[VOCAB_MAX_LEN + 64];
        double w, idf;
        int term_len = 0;
        if (end - i >= sizeof line || !nl) {
            e = err_set(ERR_PARSE, "weight table: line %zu is too long or unended", i);
            break;
        }
        memcpy(line, text + i, end - i);
        line[end - i] = '\0';
        if (sscanf(line, "%*s%n %lf %lf", &term_len, &w, &idf) != 2 || !(w > 0) || !(w <= 1) ||
            !isfinite(idf)) {
            e = err_set(ERR_PARSE, "weight table: bad line '%s'", line);
            break;
        }
        uint32_t id;
        if (!(e = vocab_add(&wt->keys, line, (size_t)term_len, &id, NULL))) {
            wt->w[id] = w;
            wt->idf[id] = idf;
        }
        i = end + 1;
    }
    if (e)
        weighttable_free(wt);
    else
        *out = wt;
    return e;
}

/* ---- relevancy --------------------------------------------------------------- */

static enum err see_token(void *ctx, const char *tok, size_t len)
{
    struct weighttable *wt = ctx;
    uint32_t id;
    if (vocab_find(&wt->keys, tok, len, &id))
        wt->page[id]++;
    return ERR_OK;
}

enum err weighttable_relevance(struct weighttable *wt, const char *text, size_t len, double *out)
{
    *out = 0;
    for (uint32_t k = 0; k < wt->keys.n; k++)
        wt->page[k] = 0;
    enum err e = tokenize_text(wt->tok, text, len, see_token, wt);
    if (e)
        return e;
    for (uint32_t k = 0; k < wt->keys.n; k++)
        wt->page[k] *= wt->idf[k];
    *out = weighttable_cosine(wt->w, wt->page, wt->keys.n);
    return ERR_OK;
}
