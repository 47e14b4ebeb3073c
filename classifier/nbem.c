/* Multinomial Naive Bayes fit by EM over labelled and unlabelled pages (nbem.h). */
#include "classifier/nbem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "classifier/rng.h"

/* Added to each component's count of unlabelled pages in its mixture weight. */
#define PRIOR_SMOOTH 1.0

/* A page's posterior for a component below this weighs nothing in the M step. */
#define NBEM_Z_FLOOR 1e-9

/*
 * A term's row of components is padded with zeros to a multiple of ROW_LANES (8 doubles:
 * one cache line, the rows 64-byte aligned). The E step, the fit's hottest loop, sums
 * the rows of a page's terms ROW_BLOCK components at a time into accumulators that stay
 * in registers, with vector multiply-adds and no remainder loop: 21 components (the
 * default) are one block of 24. The padding sums to 0 and is never read as a component.
 */
#define ROW_LANES 8
#define ROW_BLOCK 24
#define ROW_MAX   ((1 + NBEM_MAX_OTHER + ROW_LANES - 1) / ROW_LANES * ROW_LANES)
/* The rows of the term this many positions ahead are prefetched: the rows of a page's
 * terms are all over the parameters (megabytes), the loads would wait on memory. */
#define PREFETCH_AHEAD 8
/* In the E step, exp(x - max) is taken as 0 below this: e^-60 = 9e-27 moves neither a
 * softmax's sum (>= 1) nor the M step (it drops posteriors below NBEM_Z_FLOOR), and most
 * of a page's components are that far behind its best one (Naive Bayes posteriors are
 * sharp): most of the fit's exp calls saved. Scores (nbem_target) take every exp. */
#define EXP_CUT -60.0

struct nbem {
    uint32_t n_terms, n_comp;
    double u_weight; /* while fitting: an unlabelled page's weight in the M step (0: 1) */
    uint32_t stride; /* n_comp rounded up to a multiple of ROW_LANES */
    double page_tokens;
    double *logp; /* logp[t * stride + c] = ln p(t|c): a term's components side by side */
    double log_prior[1 + NBEM_MAX_OTHER];
    double prior0;
    struct nbem *next; /* the bag's next fit (nbem_bag; NULL: none) */
};

void nbem_params_default(struct nbem_params *p)
{
    *p = (struct nbem_params){.other_components = 20,
                              .iterations = 10,
                              .alpha = 0.1,
                              .page_tokens = 200,
                              .seed = 1,
                              .web_start = 1,
                              .web_gate = INFINITY,
                              .unlabelled_weight = 1};
}

void nbem_free(struct nbem *m)
{
    while (m) {
        struct nbem *next = m->next;
        free(m->logp);
        free(m);
        m = next;
    }
}

enum err nbem_bag(struct nbem *m, struct nbem *more)
{
    if (!more)
        return ERR_OK;
    for (const struct nbem *f = more; f; f = f->next)
        if (f->n_terms != m->n_terms) {
            uint32_t terms = f->n_terms;
            nbem_free(more);
            return err_set(ERR_INVAL, "crawl model: a bag of fits over %u and %u terms", m->n_terms,
                           terms);
        }
    while (m->next)
        m = m->next;
    m->next = more;
    return ERR_OK;
}

size_t nbem_fits(const struct nbem *m)
{
    size_t n = 0;
    for (; m; m = m->next)
        n++;
    return n;
}

uint32_t nbem_terms(const struct nbem *m)
{
    return m->n_terms;
}

uint32_t nbem_components(const struct nbem *m)
{
    return m->n_comp;
}

double nbem_target_prior(const struct nbem *m)
{
    return m->prior0;
}

/* A page's counts scale: 1, or page_tokens / its term occurrences when it has more. */
static double page_scale(double page_tokens, double occurrences)
{
    return page_tokens > 0 && occurrences > page_tokens ? page_tokens / occurrences : 1;
}

static uint32_t row_stride(uint32_t n_comp)
{
    return (n_comp + ROW_LANES - 1) / ROW_LANES * ROW_LANES;
}

/* ll[c0, c0 + width) = sum_t n_t ln p(t|c) over the page's terms the model knows. The
 * terms are added in the page's order whatever the width: the same sums, bit for bit. */
static inline __attribute__((always_inline)) void sum_block(const struct nbem *m,
                                                            const uint32_t *term,
                                                            const uint32_t *count, uint32_t n,
                                                            size_t c0, size_t width, double *ll)
{
    double a[ROW_BLOCK] = {0};
    for (uint32_t i = 0; i < n; i++) {
        if (term[i] >= m->n_terms)
            continue;
        if (i + PREFETCH_AHEAD < n && term[i + PREFETCH_AHEAD] < m->n_terms)
            __builtin_prefetch(m->logp + (size_t)term[i + PREFETCH_AHEAD] * m->stride + c0);
        double w = count[i];
        const double *row = m->logp + (size_t)term[i] * m->stride + c0;
#pragma GCC unroll 24
        for (size_t j = 0; j < width; j++)
            a[j] += w * row[j];
    }
    memcpy(ll + c0, a, width * sizeof *a);
}

/* ll[c] = sum_t n_t ln p(t|c) for c < stride. */
static inline __attribute__((always_inline)) void
sum_rows(const struct nbem *m, const uint32_t *term, const uint32_t *count, uint32_t n, double *ll)
{
    size_t c0 = 0;
    for (; c0 + ROW_BLOCK <= m->stride; c0 += ROW_BLOCK)
        sum_block(m, term, count, n, c0, ROW_BLOCK, ll);
    for (; c0 < m->stride; c0 += ROW_LANES)
        sum_block(m, term, count, n, c0, ROW_LANES, ll);
}

/*
 * The build is for any x86-64 (SSE2: 2 doubles an instruction); where the CPU has AVX2
 * (4 doubles) the same loop is compiled for it too and chosen at run time: the fit ~20%
 * faster. AVX2 without FMA: a fused multiply-add would round differently, the same
 * operations on wider registers do not. A run-time test, not target_clones: the ifunc
 * resolver of target_clones crashes ThreadSanitizer builds at start-up.
 */
#if defined(__x86_64__)
__attribute__((target("avx2"))) static void sum_rows_avx2(const struct nbem *m,
                                                          const uint32_t *term,
                                                          const uint32_t *count, uint32_t n,
                                                          double *ll)
{
    sum_rows(m, term, count, n, ll);
}
#endif

static void sum_rows_any(const struct nbem *m, const uint32_t *term, const uint32_t *count,
                         uint32_t n, double *ll)
{
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) {
        sum_rows_avx2(m, term, count, n, ll);
        return;
    }
#endif
    sum_rows(m, term, count, n, ll);
}

/* ln prior[c] + scale sum_t n_t ln p(t|c) for every component c, into s; the page's known
 * term occurrences into *known. (Every component, even one the caller overwrites: whole
 * rows are what vectorises.) */
static void log_scores(const struct nbem *m, const uint32_t *term, const uint32_t *count,
                       uint32_t n, double *s, uint32_t *known)
{
    uint32_t k = 0;
    double ll[ROW_MAX];
    for (uint32_t i = 0; i < n; i++)
        k += term[i] < m->n_terms ? count[i] : 0;
    sum_rows_any(m, term, count, n, ll);
    double scale = page_scale(m->page_tokens, k);
    for (uint32_t c = 0; c < m->n_comp; c++)
        s[c] = m->log_prior[c] + scale * ll[c];
    if (known)
        *known = k;
}

/* s[from..n_comp) -> posteriors (a softmax), in place; a component more than -cut behind
 * the best gets 0 (cut -INFINITY: none does). */
static void softmax(double *s, uint32_t from, uint32_t n_comp, double cut)
{
    double max = -INFINITY, sum = 0;
    for (uint32_t c = from; c < n_comp; c++)
        max = s[c] > max ? s[c] : max;
    for (uint32_t c = from; c < n_comp; c++)
        sum += s[c] = s[c] - max < cut ? 0 : exp(s[c] - max);
    for (uint32_t c = from; c < n_comp; c++)
        s[c] /= sum;
}

double nbem_target(const struct nbem *m, const uint32_t *term, const uint32_t *count, uint32_t n,
                   uint32_t *known)
{
    double s[1 + NBEM_MAX_OTHER], sum = 0;
    size_t fits = 0;
    for (; m; m = m->next, fits++, known = NULL) { /* every fit knows the same terms */
        log_scores(m, term, count, n, s, known);
        softmax(s, 0, m->n_comp, -INFINITY);
        sum += s[0];
    }
    return sum / (double)fits;
}

/* A posterior as the M step weighs it: one below NBEM_Z_FLOOR weighs nothing (Naive
 * Bayes posteriors are sharp, most of a page's are far below it). */
static double weighed(double z)
{
    return z < NBEM_Z_FLOOR ? 0 : z;
}

/*
 * The M step's sufficient statistics, kept through a fit and changed by each page's change
 * of posteriors (count_page): after the first iterations about half the pages' posteriors
 * stay exactly as they were (the E step's softmax gives 1 and 0 to a page far from all
 * but one component), and an M step summed afresh was a quarter of a judging's CPU. With
 * w(z) = weighed(z) and s_d the page's scale (page_scale):
 */
struct counts {
    double *cnt;                       /* cnt[t * stride + c] = sum_d w(z_dc) s_d n_dt */
    double tot[1 + NBEM_MAX_OTHER];    /* sum_d w(z_dc) s_d n_d */
    double u_mass[1 + NBEM_MAX_OTHER]; /* sum of w(z_dc) over the unlabelled pages */
};

/* Page doc (occ term occurrences) into k, its weighed posteriors changed by dz. */
static void count_page(const struct nbem *m, struct counts *k, const struct nbem_doc *doc,
                       double occ, const double *dz)
{
    double scale = page_scale(m->page_tokens, occ);
    if (doc->label == NBEM_UNLABELED && m->u_weight > 0)
        scale *= m->u_weight; /* the mixture weights count it whole (u_mass) */
    uint32_t active[1 + NBEM_MAX_OTHER], n_active = 0;
    double w[1 + NBEM_MAX_OTHER];
    for (uint32_t c = 0; c < m->n_comp; c++)
        if (dz[c] != 0) {
            active[n_active] = c;
            w[n_active++] = dz[c] * scale;
            k->tot[c] += dz[c] * scale * occ;
            if (doc->label == NBEM_UNLABELED)
                k->u_mass[c] += dz[c];
        }
    for (uint32_t i = 0; n_active && i < doc->n; i++) {
        double *row = k->cnt + (size_t)doc->term[i] * m->stride;
        for (uint32_t a = 0; a < n_active; a++)
            row[active[a]] += w[a] * doc->count[i];
    }
}

/* The statistics afresh from the posteriors z (n x n_comp); k->cnt given. */
static void count_pages(const struct nbem *m, const struct nbem_doc *docs, size_t n,
                        const double *occurrences, const double *z, struct counts *k)
{
    memset(k->cnt, 0, (size_t)m->stride * m->n_terms * sizeof *k->cnt);
    memset(k->tot, 0, sizeof k->tot);
    memset(k->u_mass, 0, sizeof k->u_mass);
    for (size_t d = 0; d < n; d++) {
        double dz[1 + NBEM_MAX_OTHER];
        for (uint32_t c = 0; c < m->n_comp; c++)
            dz[c] = weighed(z[d * m->n_comp + c]);
        count_page(m, k, &docs[d], occurrences[d], dz);
    }
}

/* logp from the counts: ln(alpha + x) - denom[c] of each count x (cnt may be m->logp) of
 * the components c with want[c] (want NULL: all), the others and the padding 0. A count
 * kept through EM may end a rounding below 0 where a fresh sum gives 0: it is taken as 0. */
static void log_rows_scalar(struct nbem *m, const double *cnt, double alpha, const double *denom,
                            const unsigned char *want)
{
    for (uint32_t t = 0; t < m->n_terms; t++) {
        const double *in = cnt + (size_t)t * m->stride;
        double *row = m->logp + (size_t)t * m->stride;
        for (uint32_t c = 0; c < m->stride; c++)
            row[c] = c < m->n_comp && (!want || want[c])
                         ? log(alpha + (in[c] > 0 ? in[c] : 0)) - denom[c]
                         : 0;
    }
}

/*
 * The same with glibc's vector log (libmvec, 4 doubles a call with AVX2, within 4 ulp of
 * log): the M step's logs were a fifth of a judging's CPU. The padding's lanes are taken
 * too (whole rows, 4 lanes at a time), then set back to 0. Unlike the E step's sums, a
 * model's last bits may then differ between CPUs with and without AVX2 (and glibc
 * versions); on one machine a fit gives the same model every time. Built where the
 * library is (SITESCOUT_HAVE_MVEC: classifier/CMakeLists.txt).
 */
#if defined(__x86_64__) && defined(SITESCOUT_HAVE_MVEC)
__attribute__((target("avx2"))) __m256d _ZGVdN4v_log(__m256d x);

__attribute__((target("avx2"))) static void log_rows_avx2(struct nbem *m, const double *cnt,
                                                          double alpha, const double *denom)
{
    __m256d a = _mm256_set1_pd(alpha), zero = _mm256_setzero_pd();
    for (uint32_t t = 0; t < m->n_terms; t++) {
        const double *in = cnt + (size_t)t * m->stride;
        double *row = m->logp + (size_t)t * m->stride;
        for (uint32_t c = 0; c < m->stride; c += 4) {
            __m256d x = _ZGVdN4v_log(_mm256_add_pd(a, _mm256_max_pd(_mm256_load_pd(in + c), zero)));
            _mm256_store_pd(row + c, _mm256_sub_pd(x, _mm256_loadu_pd(denom + c)));
        }
        for (uint32_t c = m->n_comp; c < m->stride; c++)
            row[c] = 0;
    }
}
#endif

/*
 * The M step: parameters from the statistics k of the responsibilities z (n x n_comp). With
 * want (NULL: every component), only the term probabilities of the components c with
 * want[c] are learnt, the others' set to 0 (the mixture weights are all learnt: they
 * cost nothing). k->cnt may be m->logp.
 */
static void m_step(struct nbem *m, const struct nbem_params *p, const struct nbem_doc *docs,
                   size_t n, const double *z, const struct counts *k, const unsigned char *want)
{
    uint32_t nc = m->n_comp;
    const double *cnt = k->cnt;
    /* A log a cell, even for the many that count 0 (ln alpha - denom[c] for all of them):
     * a test for 0 in this loop mispredicts, and made the fit slower, not faster. */
    double denom[ROW_MAX] = {0}; /* the padding's: never a component */
    for (uint32_t c = 0; c < nc; c++)
        denom[c] = log(p->alpha * m->n_terms + k->tot[c]);
#if defined(__x86_64__) && defined(SITESCOUT_HAVE_MVEC)
    if (!want && __builtin_cpu_supports("avx2"))
        log_rows_avx2(m, cnt, p->alpha, denom);
    else
#endif
        log_rows_scalar(m, cnt, p->alpha, denom, want);
    /* The mixture weights: the unlabelled pages' (all pages' when there are none). */
    size_t n_u = 0;
    for (size_t d = 0; d < n; d++)
        n_u += docs[d].label == NBEM_UNLABELED;
    size_t base = n_u ? n_u : n;
    double u_mass[1 + NBEM_MAX_OTHER];
    memcpy(u_mass, k->u_mass, sizeof u_mass);
    if (!n_u) {
        memset(u_mass, 0, sizeof u_mass);
        for (size_t d = 0; d < n; d++)
            for (uint32_t c = 0; c < m->n_comp; c++)
                u_mass[c] += z[d * m->n_comp + c];
    }
    for (uint32_t c = 0; c < m->n_comp; c++)
        m->log_prior[c] =
            log((PRIOR_SMOOTH + u_mass[c]) / (m->n_comp * PRIOR_SMOOTH + (double)base));
    m->prior0 = exp(m->log_prior[0]);
}

/* The E step: each page but the examples with a component (the target examples, and the
 * "other" ones with a start component: nbem.h) gets its posteriors; an "other" example,
 * or a page barred from the target (web_gate), only over the "other" components. The
 * statistics k follow each page's change (count_page). */
static void e_step(const struct nbem *m, const struct nbem_doc *docs, size_t n,
                   const double *occurrences, const unsigned char *barred, double *z,
                   struct counts *k)
{
    for (size_t d = 0; d < n; d++) {
        if (docs[d].label == NBEM_TARGET || (docs[d].label == NBEM_OTHER && docs[d].start_comp))
            continue;
        double *zd = z + d * m->n_comp, was[1 + NBEM_MAX_OTHER];
        memcpy(was, zd, m->n_comp * sizeof *zd);
        uint32_t from = docs[d].label == NBEM_OTHER || (barred && barred[d]) ? 1 : 0;
        log_scores(m, docs[d].term, docs[d].count, docs[d].n, zd, NULL);
        softmax(zd, from, m->n_comp, EXP_CUT);
        if (from)
            zd[0] = 0; /* an "other" example is not the target's */
        double dz[1 + NBEM_MAX_OTHER];
        int moved = 0;
        for (uint32_t c = 0; c < m->n_comp; c++)
            moved |= (dz[c] = weighed(zd[c]) - weighed(was[c])) != 0;
        if (moved)
            count_page(m, k, &docs[d], occurrences[d], dz);
    }
}

static enum err check(const struct nbem_params *p, const struct nbem_doc *docs, size_t n,
                      uint32_t n_terms)
{
    if (p->other_components < 1 || p->other_components > NBEM_MAX_OTHER || p->iterations < 1 ||
        !(p->alpha > 0) || !isfinite(p->alpha))
        return err_set(ERR_INVAL,
                       "crawl model: other components must be 1..%d, iterations >= 1,"
                       " alpha > 0",
                       NBEM_MAX_OTHER);
    if (n_terms < 1)
        return err_set(ERR_INVAL, "crawl model: no term to learn from");
    if (!(p->unlabelled_weight >= 0 && p->unlabelled_weight <= 1))
        return err_set(ERR_INVAL, "crawl model: an unlabelled page's weight must be in [0, 1]"
                                  " (0: 1)");
    if (!(p->web_gate >= 0))
        return err_set(ERR_INVAL, "crawl model: web gate must be >= 0 (infinite: none)");
    int target = 0;
    for (size_t d = 0; d < n; d++) {
        if (docs[d].label > NBEM_UNLABELED)
            return err_set(ERR_INVAL, "crawl model: page %zu has label %u", d, docs[d].label);
        for (uint32_t i = 0; i < docs[d].n; i++)
            if (docs[d].term[i] >= n_terms || docs[d].count[i] < 1)
                return err_set(ERR_INVAL, "crawl model: page %zu has a bad term or count", d);
        if (docs[d].start_comp &&
            (docs[d].label != NBEM_OTHER || docs[d].start_comp > p->other_components))
            return err_set(ERR_INVAL, "crawl model: page %zu starts in component %u", d,
                           docs[d].start_comp);
        target |= docs[d].label == NBEM_TARGET && docs[d].n > 0;
    }
    return target ? ERR_OK : err_set(ERR_INVAL, "crawl model: no target page with a term");
}

/*
 * The responsibilities EM starts from: a target example in the target component, an
 * "other" example with a start component in it, every other page in a seeded random
 * "other" component (start_from_web below then moves some unlabelled pages to the
 * target). Random, so that every "other" component starts as a blur of the whole web and
 * no "other" component is sharp on the topic. (Started from k-means clusters instead,
 * one "other" component held the topic's crawled pages from the start and kept them:
 * few-shot recall fell from 0.69 to 0.09 over the 23 dev topics.)
 */
static void start(const struct nbem_params *p, const struct nbem_doc *docs, size_t n,
                  uint32_t n_comp, double *z)
{
    uint64_t rng = p->seed;
    for (size_t d = 0; d < n; d++)
        z[d * n_comp + (docs[d].label == NBEM_TARGET ? 0
                        : docs[d].start_comp         ? docs[d].start_comp
                                                     : 1 + rng_below(&rng, n_comp - 1))] = 1;
}

/*
 * Each page's web margin (nbem.h, nbem_web_margins) into margin[0..n): a two-component
 * model, the target examples against every other page, its mixture weights from the
 * unlabelled pages (m_step).
 */
static enum err web_margins(const struct nbem_params *p, const struct nbem_doc *docs, size_t n,
                            uint32_t n_terms, const double *occ, double *margin)
{
    struct nbem web = {
        .n_terms = n_terms, .n_comp = 2, .stride = row_stride(2), .page_tokens = p->page_tokens};
    web.logp = aligned_alloc(64, (size_t)web.stride * n_terms * sizeof *web.logp);
    double *zw = calloc(n ? 2 * n : 1, sizeof *zw);
    if (!web.logp || !zw) {
        free(web.logp);
        free(zw);
        return err_set(ERR_NOMEM, "out of memory");
    }
    for (size_t d = 0; d < n; d++)
        zw[2 * d + (docs[d].label == NBEM_TARGET ? 0 : 1)] = 1;
    struct counts k = {.cnt = web.logp}; /* the counts in place of the logs */
    count_pages(&web, docs, n, occ, zw, &k);
    m_step(&web, p, docs, n, zw, &k, NULL);
    for (size_t d = 0; d < n; d++) {
        double sc[2];
        log_scores(&web, docs[d].term, docs[d].count, docs[d].n, sc, NULL);
        margin[d] = sc[0] - sc[1];
    }
    free(web.logp);
    free(zw);
    return ERR_OK;
}

/*
 * web_start (nbem.h): the unlabelled pages the target examples explain better than the
 * whole web does (a positive web margin) move to the target component in the start z.
 * named[c] marks the components "other" examples start in (named[0] set), m their and
 * the target's parameters of the random start; named NULL: none, m is not read. The
 * statistics k (NULL: none yet) follow the pages moved. Why: with a handful of examples, every
 * random "other" component starts as a blur that holds as much of the topic as of anything, and the
 * topic's crawled pages unlike the few examples stayed in them: few-shot recall 0.773
 * -> 0.821 over the 23 dev topics with this start (docs/classifier.md). A component
 * started by a cluster of "other" examples is a neighbour the user named: a page it
 * explains better than the target does stays out.
 */
static void start_from_web(const struct nbem *m, const struct nbem_doc *docs, size_t n,
                           const double *margin, const unsigned char *named,
                           const double *occurrences, double *z, struct counts *k)
{
    for (size_t d = 0; d < n; d++) {
        if (docs[d].label != NBEM_UNLABELED || !(margin[d] > 0))
            continue; /* the whole web explains it as well */
        int neighbour = 0;
        if (named) {
            double s[1 + NBEM_MAX_OTHER];
            log_scores(m, docs[d].term, docs[d].count, docs[d].n, s, NULL);
            for (uint32_t c = 1; c < m->n_comp; c++)
                neighbour |= named[c] && s[c] - m->log_prior[c] > s[0] - m->log_prior[0];
        }
        if (neighbour)
            continue;
        double *zd = z + d * m->n_comp, dz[1 + NBEM_MAX_OTHER];
        for (uint32_t c = 0; c < m->n_comp; c++)
            dz[c] = (c == 0) - weighed(zd[c]);
        memset(zd, 0, m->n_comp * sizeof *z);
        zd[0] = 1;
        if (k)
            count_page(m, k, &docs[d], occurrences[d], dz);
    }
}

/* Each page's term occurrences, once, into occ[0..n). */
static void occurrences_of(const struct nbem_doc *docs, size_t n, double *occ)
{
    for (size_t d = 0; d < n; d++) {
        occ[d] = 0;
        for (uint32_t i = 0; i < docs[d].n; i++)
            occ[d] += docs[d].count[i];
    }
}

enum err nbem_web_margins(const struct nbem_params *p, const struct nbem_doc *docs, size_t n,
                          uint32_t n_terms, double *margin)
{
    enum err e = check(p, docs, n, n_terms);
    if (e)
        return e;
    double *occ = malloc((n ? n : 1) * sizeof *occ);
    if (!occ)
        return err_set(ERR_NOMEM, "out of memory");
    occurrences_of(docs, n, occ);
    e = web_margins(p, docs, n, n_terms, occ, margin);
    free(occ);
    return e;
}

enum err nbem_fit(const struct nbem_params *p, const struct nbem_doc *docs, size_t n,
                  uint32_t n_terms, struct nbem **out)
{
    return nbem_fit_margins(p, docs, n, n_terms, NULL, out);
}

enum err nbem_fit_margins(const struct nbem_params *p, const struct nbem_doc *docs, size_t n,
                          uint32_t n_terms, const double *given, struct nbem **out)
{
    *out = NULL;
    enum err e = check(p, docs, n, n_terms);
    if (e)
        return e;
    struct nbem *m = calloc(1, sizeof *m);
    double *z = NULL, *occ = NULL, *margin = NULL;
    struct counts k = {0};
    unsigned char *barred = NULL; /* web_gate's: pages that may not join the target */
    if (!m)
        return err_set(ERR_NOMEM, "out of memory");
    m->n_terms = n_terms;
    m->n_comp = 1 + p->other_components;
    m->u_weight = p->unlabelled_weight;
    m->stride = row_stride(m->n_comp);
    m->page_tokens = p->page_tokens;
    m->logp = aligned_alloc(64, (size_t)m->stride * n_terms * sizeof *m->logp);
    k.cnt = aligned_alloc(64, (size_t)m->stride * n_terms * sizeof *k.cnt);
    z = calloc(n ? n * m->n_comp : 1, sizeof *z);
    occ = malloc((n ? n : 1) * sizeof *occ);
    if (!m->logp || !k.cnt || !z || !occ) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    occurrences_of(docs, n, occ);
    start(p, docs, n, m->n_comp, z);
    if (!p->web_start) {
        count_pages(m, docs, n, occ, z, &k);
        m_step(m, p, docs, n, z, &k, NULL);
    } else {
        /* The random start's parameters serve only start_from_web's neighbour test: the
         * target's and the named components' are learnt, and none without a named one. */
        unsigned char named[1 + NBEM_MAX_OTHER] = {1}, any = 0;
        for (size_t d = 0; d < n; d++)
            if (docs[d].start_comp)
                any = named[docs[d].start_comp] = 1;
        if (any) {
            count_pages(m, docs, n, occ, z, &k);
            m_step(m, p, docs, n, z, &k, named);
        }
        if ((!given && !(margin = malloc((n ? n : 1) * sizeof *margin))) ||
            (isfinite(p->web_gate) && !(barred = calloc(n ? n : 1, 1)))) {
            e = err_set(ERR_NOMEM, "out of memory");
            goto out;
        }
        if (!given && (e = web_margins(p, docs, n, n_terms, occ, margin)))
            goto out;
        const double *mg = given ? given : margin;
        start_from_web(m, docs, n, mg, any ? named : NULL, occ, z, any ? &k : NULL);
        if (!any)
            count_pages(m, docs, n, occ, z, &k);
        for (size_t d = 0; barred && d < n; d++)
            barred[d] = docs[d].label == NBEM_UNLABELED && !(mg[d] >= -p->web_gate);
        m_step(m, p, docs, n, z, &k, NULL);
    }
    for (uint32_t it = 0; it < p->iterations; it++) {
        e_step(m, docs, n, occ, barred, z, &k);
        m_step(m, p, docs, n, z, &k, NULL);
    }
    *out = m;
    m = NULL;
out:
    free(z);
    free(k.cnt);
    free(occ);
    free(margin);
    free(barred);
    nbem_free(m);
    return e;
}

static const char nbem_magic[8] = {'S', 'S', 'N', 'B', 'E', 'M', '0', '1'};

/* One fit's bytes. */
static enum err serialize_fit(const struct nbem *m, struct buf *out)
{
    uint32_t head[2] = {m->n_terms, m->n_comp};
    enum err e = buf_append(out, nbem_magic, sizeof nbem_magic);
    if (!e)
        e = buf_append(out, head, sizeof head);
    if (!e)
        e = buf_append(out, &m->page_tokens, sizeof m->page_tokens);
    if (!e)
        e = buf_append(out, m->log_prior, m->n_comp * sizeof *m->log_prior);
    /* On disk component by component (the header's order), in memory term by term. */
    float *row = e ? NULL : malloc(m->n_terms * sizeof *row);
    if (!e && !row)
        e = err_set(ERR_NOMEM, "out of memory");
    for (uint32_t c = 0; !e && c < m->n_comp; c++) {
        for (uint32_t t = 0; t < m->n_terms; t++)
            row[t] = (float)m->logp[(size_t)t * m->stride + c];
        e = buf_append(out, row, m->n_terms * sizeof *row);
    }
    free(row);
    return e;
}

enum err nbem_serialize(const struct nbem *m, struct buf *out)
{
    enum err e = ERR_OK;
    for (; !e && m; m = m->next)
        e = serialize_fit(m, out);
    return e;
}

/* The fit at the start of p[0..len): *used its bytes. */
static enum err deserialize_fit(const unsigned char *p, size_t len, size_t *used, struct nbem **out)
{
    uint32_t head[2];
    size_t fixed = sizeof nbem_magic + sizeof head + sizeof(double);
    if (len < fixed || memcmp(p, nbem_magic, sizeof nbem_magic) != 0)
        return err_set(ERR_PARSE, "crawl model bytes: not a crawl model (%zu bytes)", len);
    memcpy(head, p + sizeof nbem_magic, sizeof head);
    if (head[0] < 1 || head[1] < 2 || head[1] > 1 + NBEM_MAX_OTHER)
        return err_set(ERR_PARSE, "crawl model bytes: %u terms, %u components", head[0], head[1]);
    size_t cells = (size_t)head[0] * head[1];
    *used = fixed + head[1] * sizeof(double) + cells * sizeof(float);
    if (len < *used)
        return err_set(ERR_PARSE, "crawl model bytes: %zu bytes for %u terms and %u components",
                       len, head[0], head[1]);
    struct nbem *m = calloc(1, sizeof *m);
    size_t padded = (size_t)row_stride(head[1]) * head[0];
    if (!m || !(m->logp = aligned_alloc(64, padded * sizeof *m->logp))) {
        nbem_free(m);
        return err_set(ERR_NOMEM, "out of memory");
    }
    memset(m->logp, 0, padded * sizeof *m->logp);
    m->n_terms = head[0];
    m->n_comp = head[1];
    m->stride = row_stride(m->n_comp);
    const unsigned char *at = p + sizeof nbem_magic + sizeof head;
    memcpy(&m->page_tokens, at, sizeof m->page_tokens);
    at += sizeof m->page_tokens;
    memcpy(m->log_prior, at, m->n_comp * sizeof *m->log_prior);
    at += m->n_comp * sizeof *m->log_prior;
    int ok = isfinite(m->page_tokens) && m->page_tokens >= 0;
    for (uint32_t c = 0; c < m->n_comp; c++)
        ok &= isfinite(m->log_prior[c]) && m->log_prior[c] <= 0;
    for (size_t i = 0; i < cells; i++) {
        float f;
        memcpy(&f, at + i * sizeof f, sizeof f);
        m->logp[(i % m->n_terms) * m->stride + i / m->n_terms] = f;
        ok &= isfinite(f) && f <= 0;
    }
    if (!ok) {
        nbem_free(m);
        return err_set(ERR_PARSE, "crawl model bytes: a value out of range");
    }
    m->prior0 = exp(m->log_prior[0]);
    *out = m;
    return ERR_OK;
}

enum err nbem_deserialize(const void *data, size_t len, struct nbem **out)
{
    *out = NULL;
    if (len > NBEM_MAX_BYTES)
        return err_set(ERR_PARSE, "crawl model bytes: not a crawl model (%zu bytes)", len);
    const unsigned char *p = data;
    struct nbem *first = NULL, *fit = NULL;
    enum err e = ERR_OK;
    for (size_t at = 0, used = 0; !e && (at < len || !first); at += used) {
        e = deserialize_fit(p + at, len - at, &used, &fit);
        if (!e)
            e = first ? nbem_bag(first, fit) : ERR_OK;
        if (!e && !first)
            first = fit;
    }
    if (e) {
        nbem_free(first);
        return e;
    }
    *out = first;
    return ERR_OK;
}
