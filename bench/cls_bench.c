/* cls_bench: page classifier accuracy (site-split CV), website F1, training time and pages/s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classifier/pagecls.h"
#include "classifier/sitecls.h"
#include "classifier/vocab.h"
#include "common/buf.h"

/*
 * Input: the TSV of bench/dump_pages.py, one page per line in BFS order per site:
 *   split(train|test) TAB class(0 target, 1 other) TAB host TAB text
 * Output: figures on stdout, one "key value" per line, plus a one-line summary.
 */

/* A benchmark may simply stop when memory runs out. */
static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "cls_bench: out of memory\n");
        exit(1);
    }
    return q;
}

static void usage(void)
{
    fprintf(stderr, "usage: cls_bench [options] PAGES.tsv\n"
                    "  --k N            centroids per class (default: pagecls default)\n"
                    "  --stem 0|1       Snowball stemming\n"
                    "  --numbers 0|1    keep digit-only tokens\n"
                    "  --sublinear 0|1  tf = 1 + ln(count)\n"
                    "  --min-df N       drop terms in fewer training pages\n"
                    "  --min-sites N    drop terms of fewer training websites\n"
                    "  --eps X          distance clamp\n"
                    "  --seed N         k-means and fold seed\n"
                    "  --folds N        cross-validation folds (10)\n"
                    "  --pages N        website classifier: at most N pages per site (7)\n"
                    "  --threshold X    p_threshold (0.9)\n"
                    "  --prior X        Pr[target] (0.5)\n"
                    "  --p-err X        use this p_err instead of the cross-validated one\n"
                    "  --repeat N       classify the test pages N times for the speed figure (3)\n"
                    "  --show-misses    print the misclassified sites with their page confidences\n"
                    "  --dump-pages     print every training page's held-out confidence\n");
    exit(2);
}

struct page {
    int test;
    struct pagecls_doc doc;
};

struct site {
    size_t first, n; /* pages[first .. first + n) */
    int cls;
    int test;
};

static double now(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct prf {
    unsigned tp, fp, fn, tn;
    unsigned long pages;
};

static void prf_add(struct prf *m, int predicted, int relevant, unsigned pages)
{
    m->tp += predicted && relevant;
    m->fp += predicted && !relevant;
    m->fn += !predicted && relevant;
    m->tn += !predicted && !relevant;
    m->pages += pages;
}

static void prf_print(const char *name, const struct prf *m)
{
    double p = m->tp + m->fp ? (double)m->tp / (m->tp + m->fp) : 0;
    double r = m->tp + m->fn ? (double)m->tp / (m->tp + m->fn) : 0;
    double f = p + r > 0 ? 2 * p * r / (p + r) : 0;
    unsigned n = m->tp + m->fp + m->fn + m->tn;
    printf("%s_precision %.3f\n%s_recall %.3f\n%s_f1 %.3f\n%s_counts tp=%u fp=%u fn=%u tn=%u\n"
           "%s_pages_per_site %.2f\n",
           name, p, name, r, name, f, name, m->tp, m->fp, m->fn, m->tn, name,
           n ? (double)m->pages / n : 0);
}

static double prf_f1(const struct prf *m)
{
    double p = m->tp + m->fp ? (double)m->tp / (m->tp + m->fp) : 0;
    double r = m->tp + m->fn ? (double)m->tp / (m->tp + m->fn) : 0;
    return p + r > 0 ? 2 * p * r / (p + r) : 0;
}

/* Website classification of one site from its page confidences, in BFS order. */
static void classify_site(const double *pr_target, size_t n, unsigned max_pages, double prior,
                          double p_err, double threshold, int *relevant, unsigned *used)
{
    struct sitecls s;
    if (sitecls_init(&s, prior, p_err, threshold)) {
        fprintf(stderr, "cls_bench: %s\n", err_msg());
        exit(1);
    }
    for (size_t i = 0; i < n && i < max_pages; i++)
        if (sitecls_add_page(&s, pr_target[i]))
            break;
    *relevant = sitecls_relevant(&s);
    *used = sitecls_pages(&s);
}

int main(int argc, char **argv)
{
    struct pagecls_params params;
    pagecls_params_default(&params);
    unsigned folds = 10, max_pages = 7, repeat = 3;
    int show_misses = 0, dump_pages = 0;
    double threshold = 0.9, prior = 0.5, p_err_override = -1;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] != '-') {
            path = a;
            continue;
        }
        if (!strcmp(a, "--show-misses") || !strcmp(a, "--dump-pages")) {
            *(a[2] == 's' ? &show_misses : &dump_pages) = 1;
            continue;
        }
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--k"))
            params.centroids = (uint32_t)atoi(v);
        else if (!strcmp(a, "--stem"))
            params.tok.stem = atoi(v);
        else if (!strcmp(a, "--numbers"))
            params.tok.keep_numbers = atoi(v);
        else if (!strcmp(a, "--sublinear"))
            params.sublinear_tf = atoi(v);
        else if (!strcmp(a, "--min-df"))
            params.min_df = (uint32_t)atoi(v);
        else if (!strcmp(a, "--min-sites"))
            params.min_sites = (uint32_t)atoi(v);
        else if (!strcmp(a, "--eps"))
            params.eps = atof(v);
        else if (!strcmp(a, "--seed"))
            params.seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--folds"))
            folds = (unsigned)atoi(v);
        else if (!strcmp(a, "--pages"))
            max_pages = (unsigned)atoi(v);
        else if (!strcmp(a, "--threshold"))
            threshold = atof(v);
        else if (!strcmp(a, "--prior"))
            prior = atof(v);
        else if (!strcmp(a, "--p-err"))
            p_err_override = atof(v);
        else if (!strcmp(a, "--repeat"))
            repeat = (unsigned)atoi(v);
        else
            usage();
    }
    if (!path)
        usage();

    /* Read the whole file; pages point into it. */
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    struct buf file;
    buf_init(&file, (size_t)1 << 30);
    char chunk[1 << 16];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (buf_append(&file, chunk, got)) {
            fprintf(stderr, "cls_bench: %s\n", err_msg());
            return 1;
        }
    fclose(f);

    size_t npages = 0, cap = 1024;
    struct page *pages = xrealloc(NULL, cap * sizeof *pages);
    struct vocab hosts;
    vocab_init(&hosts);
    char *line = file.data, *end = file.data + file.len;
    while (line && line < end) {
        /* memchr, not strchr: a stray NUL in a page must not end the file. */
        char *nl = memchr(line, '\n', (size_t)(end - line));
        if (nl)
            *nl = '\0';
        char *f1 = strchr(line, '\t');
        char *f2 = f1 ? strchr(f1 + 1, '\t') : NULL;
        char *f3 = f2 ? strchr(f2 + 1, '\t') : NULL;
        if (!f3) {
            fprintf(stderr, "cls_bench: bad line %zu\n", npages + 1);
            return 1;
        }
        if (npages == cap)
            pages = xrealloc(pages, (cap *= 2) * sizeof *pages);
        uint32_t site;
        if (vocab_add(&hosts, f2 + 1, (size_t)(f3 - f2 - 1), &site, NULL)) {
            fprintf(stderr, "cls_bench: %s\n", err_msg());
            return 1;
        }
        pages[npages].test = !strncmp(line, "test", 4);
        size_t text_len = (size_t)((nl ? nl : end) - (f3 + 1));
        pages[npages].doc = (struct pagecls_doc){f3 + 1, text_len, (uint32_t)atoi(f1 + 1), site};
        npages++;
        line = nl ? nl + 1 : NULL;
    }

    /* Sites: consecutive runs of pages with the same host and split. */
    struct site *sites = xrealloc(NULL, (npages + 1) * sizeof *sites);
    size_t nsites = 0;
    for (size_t i = 0; i < npages; i++) {
        if (i == 0 || pages[i].doc.site != pages[i - 1].doc.site ||
            pages[i].test != pages[i - 1].test)
            sites[nsites++] = (struct site){i, 0, (int)pages[i].doc.cls, pages[i].test};
        sites[nsites - 1].n++;
    }

    /* Training set: the train split, in file order. */
    size_t ntrain = 0;
    struct pagecls_doc *train = xrealloc(NULL, npages * sizeof *train);
    size_t *train_of = xrealloc(NULL, npages * sizeof *train_of); /* page index -> train index */
    for (size_t i = 0; i < npages; i++)
        if (!pages[i].test) {
            train_of[i] = ntrain;
            train[ntrain++] = pages[i].doc;
        }
    printf("file %s\ntrain_pages %zu\nsites %zu\n", path, ntrain, nsites);
    printf("params k=%u stem=%d numbers=%d sublinear=%d min_df=%u eps=%g seed=%llu\n",
           params.centroids, params.tok.stem, params.tok.keep_numbers, params.sublinear_tf,
           params.min_df, params.eps, (unsigned long long)params.seed);

    /* Training alone, then cross-validation plus training (what a job does). */
    struct pagecls *m = NULL;
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    if (pagecls_train(&params, train, ntrain, &m)) {
        fprintf(stderr, "cls_bench: train: %s\n", err_msg());
        return 1;
    }
    double train_cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0, train_wall = now(CLOCK_MONOTONIC) - w0;
    pagecls_free(m);
    double *pr = xrealloc(NULL, ntrain * 2 * sizeof *pr);
    w0 = now(CLOCK_MONOTONIC);
    c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    if (pagecls_train_cv(&params, train, ntrain, folds, &m, pr)) {
        fprintf(stderr, "cls_bench: train_cv: %s\n", err_msg());
        return 1;
    }
    double cv_cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0, cv_wall = now(CLOCK_MONOTONIC) - w0;
    const struct pagecls_cv *cv = pagecls_get_cv(m);
    double p_err = p_err_override >= 0 ? p_err_override : cv->p_err;
    printf("train_seconds_cpu %.3f\ntrain_seconds_wall %.3f\n", train_cpu, train_wall);
    printf("train_cv_seconds_cpu %.3f\ntrain_cv_seconds_wall %.3f\n", cv_cpu, cv_wall);
    printf("model_terms %u\nmodel_centroids %u+%u\n", pagecls_terms(m), pagecls_centroids(m, 0),
           pagecls_centroids(m, 1));
    printf("cv_folds %u\ncv_sites %u\ncv_page_accuracy %.4f\np_err %.4f\n", cv->folds, cv->sites,
           cv->accuracy, cv->p_err);

    /* Website classification of the training sites from their held-out page confidences
     * (the paper's Table 2 set-up) and homepage-only for comparison. */
    struct prf cv_site = {0}, cv_home = {0};
    double *prt = xrealloc(NULL, npages * sizeof *prt);
    for (size_t s = 0; s < nsites; s++) {
        if (sites[s].test)
            continue;
        for (size_t i = 0; i < sites[s].n; i++)
            prt[i] = pr[2 * train_of[sites[s].first + i]];
        int rel;
        unsigned used;
        classify_site(prt, sites[s].n, max_pages, prior, p_err, threshold, &rel, &used);
        if (dump_pages)
            for (size_t i = 0; i < sites[s].n; i++)
                printf("cvpage\t%d\t%zu\t%.4f\t%.40s\n", sites[s].cls, i, prt[i],
                       pages[sites[s].first + i].doc.text);
        prf_add(&cv_site, rel, sites[s].cls == 0, used);
        if (show_misses && rel != (sites[s].cls == 0)) {
            printf("miss cls=%d host=%u:", sites[s].cls, pages[sites[s].first].doc.site);
            for (size_t i = 0; i < sites[s].n; i++)
                printf("\n   %.2f %.70s", prt[i], pages[sites[s].first + i].doc.text);
            printf("\n");
        }
        prf_add(&cv_home, prt[0] > 0.5, sites[s].cls == 0, 1);
    }
    prf_print("cv_site", &cv_site);
    prf_print("cv_homepage", &cv_home);

    /* Test sites: classify every test page with the final model (timed), then sites. */
    struct pagecls_scratch *scr;
    if (pagecls_scratch_new(m, &scr)) {
        fprintf(stderr, "cls_bench: %s\n", err_msg());
        return 1;
    }
    double *test_pr = xrealloc(NULL, npages * sizeof *test_pr);
    size_t ntest = 0, bytes = 0;
    c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (unsigned rep = 0; rep < repeat; rep++)
        for (size_t i = 0; i < npages; i++) {
            if (!pages[i].test)
                continue;
            struct pagecls_result r;
            if (pagecls_classify(m, scr, pages[i].doc.text, pages[i].doc.len, &r)) {
                fprintf(stderr, "cls_bench: classify: %s\n", err_msg());
                return 1;
            }
            test_pr[i] = r.pr[0];
            ntest++;
            bytes += pages[i].doc.len;
        }
    double cls_cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (ntest) {
        printf("classify_pages %zu\nclassify_avg_bytes %.0f\nclassify_pages_per_second %.0f\n",
               ntest, (double)bytes / ntest, ntest / cls_cpu);
        struct prf test_site = {0}, test_home = {0};
        for (size_t s = 0; s < nsites; s++) {
            if (!sites[s].test)
                continue;
            int rel;
            unsigned used;
            classify_site(test_pr + sites[s].first, sites[s].n, max_pages, prior, p_err, threshold,
                          &rel, &used);
            prf_add(&test_site, rel, sites[s].cls == 0, used);
            if (show_misses && rel != (sites[s].cls == 0)) {
                size_t hl;
                const char *h = vocab_term(&hosts, pages[sites[s].first].doc.site, &hl);
                printf("testmiss cls=%d host=%.*s:", sites[s].cls, (int)hl, h);
                for (size_t i = 0; i < sites[s].n; i++)
                    printf(" %.2f", test_pr[sites[s].first + i]);
                printf("\n");
            }
            prf_add(&test_home, test_pr[sites[s].first] > 0.5, sites[s].cls == 0, 1);
        }
        prf_print("test_site", &test_site);
        prf_print("test_homepage", &test_home);
        printf(
            "SUMMARY k=%u stem=%d num=%d sub=%d mindf=%u minsites=%u acc=%.4f cvF1=%.3f cvpp=%.2f "
            "testF1=%.3f testpp=%.2f homeF1=%.3f train=%.2fs cv=%.2fs pps=%.0f\n",
            params.centroids, params.tok.stem, params.tok.keep_numbers, params.sublinear_tf,
            params.min_df, params.min_sites, cv->accuracy, prf_f1(&cv_site),
            (double)cv_site.pages / (cv_site.tp + cv_site.fp + cv_site.fn + cv_site.tn),
            prf_f1(&test_site),
            (double)test_site.pages / (test_site.tp + test_site.fp + test_site.fn + test_site.tn),
            prf_f1(&test_home), train_cpu, cv_cpu, ntest / cls_cpu);
    }

    /* Model bytes. */
    struct buf mb;
    buf_init(&mb, 0);
    if (pagecls_serialize(m, &mb)) {
        fprintf(stderr, "cls_bench: %s\n", err_msg());
        return 1;
    }
    printf("model_bytes %zu\n", mb.len);
    buf_release(&mb);

    pagecls_scratch_free(scr);
    pagecls_free(m);
    free(test_pr);
    free(prt);
    free(pr);
    free(train);
    free(train_of);
    free(sites);
    free(pages);
    vocab_release(&hosts);
    buf_release(&file);
    return 0;
}
