/* The crawl model's fit and scoring time (classifier/nbem.c, issue 30) on a made-up corpus. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classifier/nbem.h"
#include "classifier/rng.h"
#include "common/num.h"

/*
 * The corpus, deterministic: TOPICS topics over a vocabulary of TERMS terms, each topic a
 * Zipf distribution (exponent 1) over its own shuffle of the vocabulary; a page draws
 * TOKENS occurrences, 70% from its topic and 30% from the web's common Zipf (the
 * vocabulary's own order), which gives ~150 distinct terms a page. Topic 0 is the target:
 * TARGET_PAGES target examples, OTHER_PAGES "other" examples of the other topics, then
 * unlabelled pages, a tenth of them of topic 0 (as a judging's pages after the cut).
 */
#define TERMS        10000
#define TOPICS       20
#define TOKENS       200
#define TARGET_PAGES 30
#define OTHER_PAGES  100

struct corpus {
    uint32_t *term, *count; /* the pages' (term, count) pairs, page after page */
    struct nbem_doc *docs;
    size_t n;
};

/* Zipf's cumulative weights over ranks 0..TERMS-1. */
static void zipf_cdf(double *cdf)
{
    double sum = 0;
    for (uint32_t r = 0; r < TERMS; r++)
        cdf[r] = sum += 1.0 / (r + 1);
    for (uint32_t r = 0; r < TERMS; r++)
        cdf[r] /= sum;
}

static uint32_t draw(const double *cdf, uint64_t *rng)
{
    double u = rng_uniform(rng);
    uint32_t lo = 0, hi = TERMS - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int make_corpus(size_t n, struct corpus *c)
{
    double *cdf = malloc(TERMS * sizeof *cdf);
    size_t *perm = malloc((size_t)TOPICS * TERMS * sizeof *perm);
    uint32_t *seen = calloc(TERMS, sizeof *seen);
    c->term = malloc(n * TOKENS * sizeof *c->term);
    c->count = malloc(n * TOKENS * sizeof *c->count);
    c->docs = malloc(n * sizeof *c->docs);
    c->n = n;
    if (!cdf || !perm || !seen || !c->term || !c->count || !c->docs)
        return -1;
    zipf_cdf(cdf);
    uint64_t rng = 2026;
    for (uint32_t k = 0; k < TOPICS; k++) {
        size_t *p = perm + (size_t)k * TERMS;
        for (uint32_t t = 0; t < TERMS; t++)
            p[t] = t;
        rng_shuffle(&rng, p, TERMS);
    }
    size_t at = 0;
    for (size_t d = 0; d < n; d++) {
        uint32_t label = d < TARGET_PAGES                 ? NBEM_TARGET
                         : d < TARGET_PAGES + OTHER_PAGES ? NBEM_OTHER
                                                          : NBEM_UNLABELED;
        uint32_t topic =
            label == NBEM_TARGET ? 0
            : label == NBEM_OTHER
                ? 1 + (uint32_t)rng_below(&rng, TOPICS - 1)
                : (rng_below(&rng, 10) == 0 ? 0 : 1 + (uint32_t)rng_below(&rng, TOPICS - 1));
        size_t first = at;
        for (int i = 0; i < TOKENS; i++) {
            uint32_t r = draw(cdf, &rng);
            uint32_t t = rng_below(&rng, 10) < 7 ? (uint32_t)perm[(size_t)topic * TERMS + r] : r;
            if (!seen[t]) {
                c->term[at] = t;
                c->count[at] = 0;
                seen[t] = (uint32_t)(at - first + 1);
                at++;
            }
            c->count[first + seen[t] - 1]++;
        }
        for (size_t i = first; i < at; i++)
            seen[c->term[i]] = 0;
        c->docs[d] = (struct nbem_doc){NULL, NULL, (uint32_t)(at - first), label, 0};
        c->docs[d].term = (const uint32_t *)(uintptr_t)first; /* pointers once filled */
    }
    for (size_t d = 0; d < n; d++) {
        size_t first = (size_t)(uintptr_t)c->docs[d].term;
        c->docs[d].term = c->term + first;
        c->docs[d].count = c->count + first;
    }
    free(cdf);
    free(perm);
    free(seen);
    return 0;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* FNV-1a over bytes: a fingerprint of a fit's results, to tell a change of rounding. */
static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int64_t pages = 4000, runs = 5;
    if ((argc > 1 && !num_parse_i64(argv[1], TARGET_PAGES + OTHER_PAGES, 1000000, &pages)) ||
        (argc > 2 && !num_parse_i64(argv[2], 1, 1000, &runs)) || argc > 3) {
        fprintf(stderr, "usage: nbem_bench [PAGES (default 4000) [RUNS (default 5)]]\n"
                        "Times nbem_fit and nbem_target over a made-up corpus of PAGES pages\n"
                        "(CPU seconds, median of RUNS) and prints a checksum of the results.\n");
        return 2;
    }
    struct corpus c;
    if (make_corpus((size_t)pages, &c) != 0) {
        fprintf(stderr, "nbem_bench: out of memory\n");
        return 1;
    }
    size_t pairs = 0;
    for (size_t d = 0; d < c.n; d++)
        pairs += c.docs[d].n;
    struct nbem_params p;
    nbem_params_default(&p);
    double *fit_s = malloc((size_t)runs * sizeof *fit_s);
    double *score_s = malloc((size_t)runs * sizeof *score_s);
    double prior = 0, sum = 0;
    uint64_t hash = 0, model_hash = 0;
    size_t above = 0;
    for (int64_t r = 0; r < runs; r++) {
        struct nbem *m = NULL;
        double t0 = cpu_seconds();
        enum err e = nbem_fit(&p, c.docs, c.n, TERMS, &m);
        double t1 = cpu_seconds();
        if (e) {
            fprintf(stderr, "nbem_bench: %s\n", err_msg());
            return 1;
        }
        sum = 0, above = 0, hash = 0xcbf29ce484222325u;
        for (size_t d = 0; d < c.n; d++) {
            double pr = nbem_target(m, c.docs[d].term, c.docs[d].count, c.docs[d].n, NULL);
            sum += pr;
            hash = fnv(hash, &pr, sizeof pr);
            above += pr > 0.5;
        }
        fit_s[r] = t1 - t0;
        score_s[r] = cpu_seconds() - t1;
        prior = nbem_target_prior(m);
        struct buf b;
        buf_init(&b, 0);
        if (nbem_serialize(m, &b) != ERR_OK) {
            fprintf(stderr, "nbem_bench: %s\n", err_msg());
            return 1;
        }
        model_hash = fnv(0xcbf29ce484222325u, b.data, b.len);
        buf_release(&b);
        nbem_free(m);
    }
    qsort(fit_s, (size_t)runs, sizeof *fit_s, cmp_double);
    qsort(score_s, (size_t)runs, sizeof *score_s, cmp_double);
    printf("pages %zu, terms %d, pairs %zu (%.1f a page), components %u, iterations %u\n", c.n,
           TERMS, pairs, (double)pairs / (double)c.n, 1 + p.other_components, p.iterations);
    printf("fit %.4f s (median of %lld; min %.4f, max %.4f), scoring every page %.4f s\n",
           fit_s[runs / 2], (long long)runs, fit_s[0], fit_s[runs - 1], score_s[runs / 2]);
    printf("target prior %.17g, sum of Pr[target] %.17g, pages above 0.5: %zu\n", prior, sum,
           above);
    printf("fingerprints: the model's bytes %016llx, the pages' Pr[target] %016llx\n",
           (unsigned long long)model_hash, (unsigned long long)hash);
    free(fit_s);
    free(score_s);
    free(c.term);
    free(c.count);
    free(c.docs);
    return 0;
}
