/* cls_bench: page classifier accuracy (site-split CV), website F1, training time and pages/s. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classifier/pagecls.h"
#include "classifier/sitecls.h"
#include "classifier/vocab.h"
#include "common/buf.h"
#include "common/grow.h"
#include "common/num.h"
#include "eval/evalstats.h"

/*
 * Input: the TSV of bench/dump_pages.py, one page per line in BFS order per site:
 *   split(train|test) TAB class(0 target, 1 other) TAB host TAB text
 * Output: figures on stdout, one "key value" per line, plus a one-line summary.
 */

/* A benchmark may simply stop when memory runs out. */
static void *xmalloc(size_t n)
{
    void *q = malloc(n ? n : 1);
    if (!q) {
        fprintf(stderr, "cls_bench: out of memory\n");
        exit(1);
    }
    return q;
}

/* grow_array, or stop. */
static void xgrow(void **arr, size_t *cap, size_t need, size_t size)
{
    if (grow_array(arr, cap, need, size) != ERR_OK) {
        fprintf(stderr, "cls_bench: out of memory\n");
        exit(1);
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: cls_bench [options] PAGES.tsv\n"
                    "  --k N            centroids per class (default: pagecls default)\n"
                    "  --svm C          a linear SVM of cost C instead of the centroid kNN\n"
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
    double f = evalstats_f1_pr(p, r);
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
    return evalstats_f1_pr(p, r);
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

/* Report a classifier error (with what failed, when given) and stop. */
static void die_err(const char *what)
{
    if (what)
        fprintf(stderr, "cls_bench: %s: %s\n", what, err_msg());
    else
        fprintf(stderr, "cls_bench: %s\n", err_msg());
    exit(1);
}

struct opts {
    struct pagecls_params params;
    unsigned folds, max_pages, repeat;
    int show_misses, dump_pages;
    double threshold, prior, p_err_override;
    const char *path;
};

/* Every option value is a number: the whole of it (checked, unlike atoi). */
/* Option opt's value v: a number, or usage. */
static double num_opt(const char *opt, const char *v)
{
    double d;
    if (num_parse_double(v, -1e300, 1e300, &d))
        return d;
    fprintf(stderr, "cls_bench: %s wants a number, not '%s'\n", opt, v);
    usage();
    return 0;
}

/* Option opt's value v: a whole number in [0, INT_MAX], or usage. */
static int int_opt(const char *opt, const char *v)
{
    int n;
    if (num_parse_int(v, 0, INT_MAX, &n))
        return n;
    fprintf(stderr, "cls_bench: %s wants a whole number >= 0, not '%s'\n", opt, v);
    usage();
    return 0;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){.folds = 10,
                       .max_pages = 7,
                       .repeat = 3,
                       .threshold = 0.9,
                       .prior = 0.5,
                       .p_err_override = -1};
    pagecls_params_default(&o->params);
    struct pagecls_params *params = &o->params;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] != '-') {
            o->path = a;
            continue;
        }
        if (!strcmp(a, "--show-misses") || !strcmp(a, "--dump-pages")) {
            *(a[2] == 's' ? &o->show_misses : &o->dump_pages) = 1;
            continue;
        }
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--k"))
            params->centroids = (uint32_t)int_opt(a, v);
        else if (!strcmp(a, "--svm")) {
            params->kind = PAGECLS_SVM;
            params->svm_c = num_opt(a, v);
        } else if (!strcmp(a, "--stem"))
            params->tok.stem = int_opt(a, v);
        else if (!strcmp(a, "--numbers"))
            params->tok.keep_numbers = int_opt(a, v);
        else if (!strcmp(a, "--sublinear"))
            params->sublinear_tf = int_opt(a, v);
        else if (!strcmp(a, "--min-df"))
            params->min_df = (uint32_t)int_opt(a, v);
        else if (!strcmp(a, "--min-sites"))
            params->min_sites = (uint32_t)int_opt(a, v);
        else if (!strcmp(a, "--eps"))
            params->eps = num_opt(a, v);
        else if (!strcmp(a, "--seed")) {
            if (!num_parse_u64(v, &params->seed)) {
                fprintf(stderr, "cls_bench: --seed wants a whole number >= 0, not '%s'\n", v);
                usage();
            }
        } else if (!strcmp(a, "--folds"))
            o->folds = (unsigned)int_opt(a, v);
        else if (!strcmp(a, "--pages"))
            o->max_pages = (unsigned)int_opt(a, v);
        else if (!strcmp(a, "--threshold"))
            o->threshold = num_opt(a, v);
        else if (!strcmp(a, "--prior"))
            o->prior = num_opt(a, v);
        else if (!strcmp(a, "--p-err"))
            o->p_err_override = num_opt(a, v);
        else if (!strcmp(a, "--repeat"))
            o->repeat = (unsigned)int_opt(a, v);
        else
            usage();
    }
    if (!o->path)
        usage();
}

/* The whole file into file (pages point into it). */
static void read_file(const char *path, struct buf *file)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    buf_init(file, (size_t)1 << 30);
    char chunk[1 << 16];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (buf_append(file, chunk, got))
            die_err(NULL);
    fclose(f);
}

/* The input, split: pages (text in the file's buffer), sites, and the training set. */
struct input {
    struct page *pages;
    size_t npages;
    struct vocab hosts; /* host name -> site id */
    struct site *sites;
    size_t nsites;
    struct pagecls_doc *train; /* the train split, in file order */
    size_t *train_of;          /* page index -> train index */
    size_t ntrain;
};

/* One page per line; the line's text is cut in place (NUL at the newline). */
static void parse_pages(struct buf *file, struct input *in)
{
    size_t cap = 0;
    in->pages = NULL;
    xgrow((void **)&in->pages, &cap, 1024, sizeof *in->pages);
    vocab_init(&in->hosts);
    char *line = file->data, *end = file->data + file->len;
    while (line && line < end) {
        /* memchr, not strchr: a stray NUL in a page must not end the file. */
        char *nl = memchr(line, '\n', (size_t)(end - line));
        if (nl)
            *nl = '\0';
        char *f1 = strchr(line, '\t');
        char *f2 = f1 ? strchr(f1 + 1, '\t') : NULL;
        char *f3 = f2 ? strchr(f2 + 1, '\t') : NULL;
        if (!f3) {
            fprintf(stderr, "cls_bench: bad line %zu\n", in->npages + 1);
            exit(1);
        }
        xgrow((void **)&in->pages, &cap, in->npages + 1, sizeof *in->pages);
        uint32_t site;
        if (vocab_add(&in->hosts, f2 + 1, (size_t)(f3 - f2 - 1), &site, NULL))
            die_err(NULL);
        struct page *pg = &in->pages[in->npages++];
        pg->test = !strncmp(line, "test", 4);
        size_t text_len = (size_t)((nl ? nl : end) - (f3 + 1));
        /* the class: one digit, 0 target, 1 other */
        if (f2 != f1 + 2 || f1[1] < '0' || f1[1] > '9') {
            fprintf(stderr, "cls_bench: bad class on line %zu\n", in->npages);
            exit(1);
        }
        pg->doc = (struct pagecls_doc){f3 + 1, text_len, (uint32_t)(f1[1] - '0'), site};
        line = nl ? nl + 1 : NULL;
    }
}

/* Sites: consecutive runs of pages with the same host and split; then the training set. */
static void group_pages(struct input *in)
{
    const struct page *pages = in->pages;
    in->sites = xmalloc((in->npages + 1) * sizeof *in->sites);
    for (size_t i = 0; i < in->npages; i++) {
        if (i == 0 || pages[i].doc.site != pages[i - 1].doc.site ||
            pages[i].test != pages[i - 1].test)
            in->sites[in->nsites++] = (struct site){i, 0, (int)pages[i].doc.cls, pages[i].test};
        in->sites[in->nsites - 1].n++;
    }
    in->train = xmalloc(in->npages * sizeof *in->train);
    in->train_of = xmalloc(in->npages * sizeof *in->train_of);
    for (size_t i = 0; i < in->npages; i++)
        if (!pages[i].test) {
            in->train_of[i] = in->ntrain;
            in->train[in->ntrain++] = pages[i].doc;
        }
}

static void input_release(struct input *in)
{
    free(in->train);
    free(in->train_of);
    free(in->sites);
    free(in->pages);
    vocab_release(&in->hosts);
}

/* Figures the summary line gathers from the steps. */
struct figures {
    double train_cpu, cv_cpu;
    double p_err; /* cross-validated, or --p-err */
    struct prf cv_site;
};

/* Training alone, then cross-validation plus training (what a job does): the final model
 * and every training page's held-out confidences pr[2 * i]. */
static struct pagecls *train_timed(const struct opts *o, const struct input *in, double *pr,
                                   struct figures *fig)
{
    struct pagecls *m = NULL;
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    if (pagecls_train(&o->params, in->train, in->ntrain, &m))
        die_err("train");
    fig->train_cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    double train_wall = now(CLOCK_MONOTONIC) - w0;
    pagecls_free(m);
    w0 = now(CLOCK_MONOTONIC);
    c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    if (pagecls_train_cv(&o->params, in->train, in->ntrain, o->folds, &m, pr))
        die_err("train_cv");
    fig->cv_cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    double cv_wall = now(CLOCK_MONOTONIC) - w0;
    const struct pagecls_cv *cv = pagecls_get_cv(m);
    fig->p_err = o->p_err_override >= 0 ? o->p_err_override : cv->p_err;
    printf("train_seconds_cpu %.3f\ntrain_seconds_wall %.3f\n", fig->train_cpu, train_wall);
    printf("train_cv_seconds_cpu %.3f\ntrain_cv_seconds_wall %.3f\n", fig->cv_cpu, cv_wall);
    printf("model_terms %u\nmodel_centroids %u+%u\n", pagecls_terms(m), pagecls_centroids(m, 0),
           pagecls_centroids(m, 1));
    printf("cv_folds %u\ncv_sites %u\ncv_page_accuracy %.4f\np_err %.4f\n", cv->folds, cv->sites,
           cv->accuracy, cv->p_err);
    return m;
}

/* Website classification of the training sites from their held-out page confidences
 * (the paper's Table 2 set-up) and homepage-only for comparison. */
static void eval_cv_sites(const struct opts *o, const struct input *in, const double *pr,
                          struct figures *fig)
{
    struct prf cv_home = {0};
    double *prt = xmalloc(in->npages * sizeof *prt);
    for (size_t s = 0; s < in->nsites; s++) {
        const struct site *st = &in->sites[s];
        if (st->test)
            continue;
        for (size_t i = 0; i < st->n; i++)
            prt[i] = pr[2 * in->train_of[st->first + i]];
        int rel;
        unsigned used;
        classify_site(prt, st->n, o->max_pages, o->prior, fig->p_err, o->threshold, &rel, &used);
        if (o->dump_pages)
            for (size_t i = 0; i < st->n; i++)
                printf("cvpage\t%d\t%zu\t%.4f\t%.40s\n", st->cls, i, prt[i],
                       in->pages[st->first + i].doc.text);
        prf_add(&fig->cv_site, rel, st->cls == 0, used);
        if (o->show_misses && rel != (st->cls == 0)) {
            printf("miss cls=%d host=%u:", st->cls, in->pages[st->first].doc.site);
            for (size_t i = 0; i < st->n; i++)
                printf("\n   %.2f %.70s", prt[i], in->pages[st->first + i].doc.text);
            printf("\n");
        }
        prf_add(&cv_home, prt[0] > 0.5, st->cls == 0, 1);
    }
    prf_print("cv_site", &fig->cv_site);
    prf_print("cv_homepage", &cv_home);
    free(prt);
}

/* Every test page classified with the final model, `repeat` times for the speed figure:
 * test_pr[i] = Pr[p_i|target]; returns the CPU seconds, *ntest and *bytes the work done. */
static double classify_test_pages(const struct opts *o, const struct input *in,
                                  const struct pagecls *m, double *test_pr, size_t *ntest,
                                  size_t *bytes)
{
    struct pagecls_scratch *scr;
    if (pagecls_scratch_new(m, &scr))
        die_err(NULL);
    double c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (unsigned rep = 0; rep < o->repeat; rep++)
        for (size_t i = 0; i < in->npages; i++) {
            const struct page *pg = &in->pages[i];
            if (!pg->test)
                continue;
            struct pagecls_result r;
            if (pagecls_classify(m, scr, pg->doc.text, pg->doc.len, &r))
                die_err("classify");
            test_pr[i] = r.pr[0];
            (*ntest)++;
            *bytes += pg->doc.len;
        }
    double cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    pagecls_scratch_free(scr);
    return cpu;
}

static double prf_pages_per_site(const struct prf *m)
{
    return (double)m->pages / (m->tp + m->fp + m->fn + m->tn);
}

/* Test sites: classify every test page with the final model (timed), then sites. */
static void eval_test_sites(const struct opts *o, const struct input *in, const struct pagecls *m,
                            const struct figures *fig)
{
    double *test_pr = xmalloc(in->npages * sizeof *test_pr);
    size_t ntest = 0, bytes = 0;
    double cls_cpu = classify_test_pages(o, in, m, test_pr, &ntest, &bytes);
    if (!ntest) {
        free(test_pr);
        return;
    }
    printf("classify_pages %zu\nclassify_avg_bytes %.0f\nclassify_pages_per_second %.0f\n", ntest,
           (double)bytes / ntest, ntest / cls_cpu);
    struct prf test_site = {0}, test_home = {0};
    for (size_t s = 0; s < in->nsites; s++) {
        const struct site *st = &in->sites[s];
        if (!st->test)
            continue;
        int rel;
        unsigned used;
        classify_site(test_pr + st->first, st->n, o->max_pages, o->prior, fig->p_err, o->threshold,
                      &rel, &used);
        prf_add(&test_site, rel, st->cls == 0, used);
        if (o->show_misses && rel != (st->cls == 0)) {
            size_t hl;
            const char *h = vocab_term(&in->hosts, in->pages[st->first].doc.site, &hl);
            printf("testmiss cls=%d host=%.*s:", st->cls, (int)hl, h);
            for (size_t i = 0; i < st->n; i++)
                printf(" %.2f", test_pr[st->first + i]);
            printf("\n");
        }
        prf_add(&test_home, test_pr[st->first] > 0.5, st->cls == 0, 1);
    }
    prf_print("test_site", &test_site);
    prf_print("test_homepage", &test_home);
    const struct pagecls_params *p = &o->params;
    printf("SUMMARY k=%u stem=%d num=%d sub=%d mindf=%u minsites=%u acc=%.4f cvF1=%.3f cvpp=%.2f "
           "testF1=%.3f testpp=%.2f homeF1=%.3f train=%.2fs cv=%.2fs pps=%.0f\n",
           p->centroids, p->tok.stem, p->tok.keep_numbers, p->sublinear_tf, p->min_df, p->min_sites,
           pagecls_get_cv(m)->accuracy, prf_f1(&fig->cv_site), prf_pages_per_site(&fig->cv_site),
           prf_f1(&test_site), prf_pages_per_site(&test_site), prf_f1(&test_home), fig->train_cpu,
           fig->cv_cpu, ntest / cls_cpu);
    free(test_pr);
}

static void print_model_bytes(const struct pagecls *m)
{
    struct buf mb;
    buf_init(&mb, 0);
    if (pagecls_serialize(m, &mb))
        die_err(NULL);
    printf("model_bytes %zu\n", mb.len);
    buf_release(&mb);
}

int main(int argc, char **argv)
{
    struct opts o;
    struct buf file;
    struct input in = {0};
    struct figures fig = {0};
    parse_args(argc, argv, &o);
    read_file(o.path, &file);
    parse_pages(&file, &in);
    group_pages(&in);
    const struct pagecls_params *p = &o.params;
    printf("file %s\ntrain_pages %zu\nsites %zu\n", o.path, in.ntrain, in.nsites);
    printf("params k=%u stem=%d numbers=%d sublinear=%d min_df=%u eps=%g seed=%llu\n", p->centroids,
           p->tok.stem, p->tok.keep_numbers, p->sublinear_tf, p->min_df, p->eps,
           (unsigned long long)p->seed);

    double *pr = xmalloc(in.ntrain * 2 * sizeof *pr);
    struct pagecls *m = train_timed(&o, &in, pr, &fig);
    eval_cv_sites(&o, &in, pr, &fig);
    eval_test_sites(&o, &in, m, &fig);
    print_model_bytes(m);

    pagecls_free(m);
    free(pr);
    input_release(&in);
    buf_release(&file);
    return 0;
}
