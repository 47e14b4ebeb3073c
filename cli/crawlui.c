/* What `sitescout crawl` shows of a running job: progress line, curve, summary, report. */
#include "cli/crawlui.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/log.h"
#include "common/monotime.h"
#include "eval/evalstats.h"
#include "eval/foundcurve.h"
#include "eval/jobscore.h"
#include "job/jobrun.h"
#include "job/jobspec.h"
#include "store/crawlstore.h"
#include "store/judgestore.h"

#define CURVE_MAX 10000

struct crawlui {
    struct store *s;
    int64_t job;
    const struct jobspec_params *params;
    const struct labels *labels;
    const char *topic;
    int tty;
    double t0, last_print;
    int64_t curve[CURVE_MAX]; /* the pages of the curve's points; the figures at each are
                               * counted at the end, from the stored verdicts */
    size_t n_curve;
    int64_t last_pages;
    int64_t robots_requests; /* as the last progress report said */
    int64_t retries;         /* likewise */
};

/* Precision and recall of the relevant websites found so far, against the labels. */
static void score(struct crawlui *ui, size_t *found_out, double *precision, double *recall)
{
    struct jobscore sc;
    if (jobscore_get(ui->s, ui->job, ui->labels, ui->topic, &sc) != ERR_OK)
        log_warn("cannot score the job: %s", err_msg());
    *found_out = sc.found;
    *precision = sc.precision;
    *recall = sc.recall;
    jobscore_release(&sc);
}

static void sample_curve(struct crawlui *ui, const struct crawl_progress *p)
{
    if (ui->n_curve >= CURVE_MAX)
        return;
    ui->curve[ui->n_curve++] = p->pages;
    ui->last_pages = p->pages;
}

void crawlui_progress(struct crawlui *ui, const struct jobrun_progress *p)
{
    if (p->phase == JOBRUN_CRAWLING) {
        ui->robots_requests = p->crawl.robots_requests;
        ui->retries = p->crawl.retries;
        /* A point every 1% of the page budget (or 100 pages), and at the end. */
        int64_t step = ui->params->max_pages > 0 ? ui->params->max_pages / 100 : 100;
        if (step < 10)
            step = 10;
        if (p->crawl.pages - ui->last_pages >= step ||
            (p->crawl.stop != CRAWL_RUNNING && p->crawl.pages != ui->last_pages))
            sample_curve(ui, &p->crawl);
    }
    double el = monotime_s() - ui->t0;
    int final = p->phase == JOBRUN_CRAWLING && p->crawl.stop != CRAWL_RUNNING;
    if (!ui->tty || (el - ui->last_print < 0.2 && !final))
        return;
    ui->last_print = el;
    if (p->phase == JOBRUN_TRAINING) {
        fprintf(stderr, "\r\033[K[training] pages %zu/%zu  %.0fs", p->train_pages_done,
                p->train_pages_expected, el);
    } else {
        const struct crawl_progress *c = &p->crawl;
        char budget[64] = "";
        if (ui->params->max_pages > 0)
            snprintf(budget, sizeof budget, "  budget %.0f%%",
                     100.0 * (double)c->pages / (double)ui->params->max_pages);
        fprintf(stderr,
                "\r\033[K[crawling] pages %lld  sites %lld  relevant %lld  harvest %.2f  pprs %.1f"
                "  border %lld%s  %.0fs%s",
                (long long)c->pages, (long long)c->examined, (long long)c->relevant,
                isnan(c->harvest_rate) ? 0.0 : c->harvest_rate, isnan(c->pprs) ? 0.0 : c->pprs,
                (long long)c->border, c->border >= CRAWLSTORE_BORDER_COUNT_MAX ? "+" : "", el,
                budget);
    }
    fflush(stderr);
}

static void json_num(FILE *f, const char *key, double v, int comma)
{
    if (isnan(v) || isinf(v))
        fprintf(f, "\"%s\": null%s", key, comma ? ", " : "");
    else
        fprintf(f, "\"%s\": %.6g%s", key, v, comma ? ", " : "");
}

/*
 * The curve's points, exact by pages: a website counts from the job's page counter when
 * it was judged relevant (found_pages), not from when its verdict reached the store (a
 * page crawler stores its verdicts in batches, so a curve sampled from the store lags).
 * pprs counts the start sites too, as the crawler's own does; relevant_found, precision
 * and recall do not, as the labels' score.
 */
static int write_curve(FILE *f, const struct crawlui *ui, const struct jobscore *sc,
                       int64_t end_pages)
{
    struct foundcurve found, all;
    if (foundcurve_build(sc->verdicts, sc->n_verdicts, 0, end_pages, &found) != ERR_OK)
        return -1;
    if (foundcurve_build(sc->verdicts, sc->n_verdicts, 1, end_pages, &all) != ERR_OK) {
        foundcurve_release(&found);
        return -1;
    }
    size_t n = ui->n_curve;
    /* The curve ends where the crawl did, whether or not its last report was sampled. */
    int add_end = !n || ui->curve[n - 1] < end_pages;
    fprintf(f, "\"curve\": [");
    for (size_t i = 0; i < n + (size_t)add_end; i++) {
        int64_t pages = i < n ? ui->curve[i] : end_pages;
        struct foundcurve_point p = foundcurve_at(&found, pages);
        int64_t relevant = foundcurve_at(&all, pages).judged;
        fprintf(f, "%s{\"pages\": %lld, \"relevant_found\": %lld, ", i ? ", " : "",
                (long long)pages, (long long)p.judged);
        json_num(f, "precision", ui->labels && p.judged ? (double)p.truly / (double)p.judged : NAN,
                 1);
        json_num(f, "recall", sc->truth ? (double)p.truly / (double)sc->truth : NAN, 1);
        json_num(f, "pprs", relevant ? (double)pages / (double)relevant : NAN, 0);
        fprintf(f, "}");
    }
    fprintf(f, "]");
    foundcurve_release(&found);
    foundcurve_release(&all);
    return 0;
}

int crawlui_report(struct crawlui *ui, const char *path, double seconds)
{
    struct crawlstore_counts c;
    if (crawlstore_counts(ui->s, ui->job, &c) != ERR_OK)
        return cli_fail("crawl", "%s", err_msg());
    struct jobscore sc;
    if (jobscore_get(ui->s, ui->job, ui->labels, ui->topic, &sc) != ERR_OK)
        return cli_fail("crawl", "cannot score the job: %s", err_msg());
    double f1 = evalstats_f1_pr(sc.precision, sc.recall);
    FILE *f = fopen(path, "w");
    if (!f) {
        jobscore_release(&sc);
        return cli_fail("crawl", "cannot write %s", path);
    }
    fprintf(f,
            "{\"job_id\": %lld, \"pages_downloaded\": %lld, \"sites_examined\": %lld, "
            "\"relevant_found\": %lld, ",
            (long long)ui->job, (long long)c.pages, (long long)c.examined, (long long)c.relevant);
    json_num(f, "pprs", c.relevant ? (double)c.pages / c.relevant : NAN, 1);
    json_num(f, "harvest_rate", c.examined ? (double)c.relevant / c.examined : NAN, 1);
    json_num(f, "pages_per_site", c.examined ? (double)c.pages / c.examined : NAN, 1);
    json_num(f, "precision", sc.precision, 1);
    json_num(f, "recall", sc.recall, 1);
    json_num(f, "f1", f1, 1);
    json_num(f, "seconds", seconds, 1);
    fprintf(f, "\"robots_requests\": %lld, ", (long long)ui->robots_requests);
    fprintf(f, "\"retries\": %lld, ", (long long)ui->retries);
    struct judgestore_summary js; /* the crawl models that judged the websites again */
    if (judgestore_summary(ui->s, ui->job, &js) != ERR_OK)
        js.models = 0;
    fprintf(f, "\"retrains\": %lld, ", (long long)js.models);
    json_num(f, "cpu_seconds", cputime_process_s(), 1);  /* every thread's, judgings included */
    json_num(f, "judge_cpu_seconds", js.cpu_seconds, 1); /* the judgings' */
    int bad = write_curve(f, ui, &sc, c.pages);
    jobscore_release(&sc);
    fprintf(f, "}\n");
    int closed = fclose(f) == 0;
    if (bad)
        return cli_fail("crawl", "%s", err_msg());
    if (!closed)
        return cli_fail("crawl", "cannot write %s", path);
    return CLI_OK;
}

void crawlui_summary(struct crawlui *ui, double seconds)
{
    struct crawlstore_job j;
    struct crawlstore_counts c;
    if (crawlstore_job_get(ui->s, ui->job, &j) != ERR_OK ||
        crawlstore_counts(ui->s, ui->job, &c) != ERR_OK)
        return;
    printf("job %lld: %s", (long long)ui->job, j.state);
    if (*j.stop_reason)
        printf(" (%s)", j.stop_reason);
    if (*j.error)
        printf(": %s", j.error);
    crawlstore_job_release(&j);
    printf("\n  pages downloaded %lld, websites examined %lld, relevant %lld\n", (long long)c.pages,
           (long long)c.examined, (long long)c.relevant);
    if (c.examined)
        printf("  harvest rate %.3f, pprs %.2f, pages per site %.2f, %.1f s\n",
               (double)c.relevant / c.examined, c.relevant ? (double)c.pages / c.relevant : 0.0,
               (double)c.pages / c.examined, seconds);
    printf("  robots.txt fetches %lld, pages asked again %lld (neither counted in the pages)\n",
           (long long)ui->robots_requests, (long long)ui->retries);
    if (ui->labels) {
        size_t found;
        double pr, rc;
        score(ui, &found, &pr, &rc);
        printf("  against the labels: precision %.3f, recall %.3f, F1 %.3f (%zu found)\n", pr, rc,
               evalstats_f1_pr(pr, rc), found);
    }
    struct judgestore_summary js;
    if (judgestore_summary(ui->s, ui->job, &js) == ERR_OK && js.models)
        printf("  verdicts by the crawl model, judged %lld time%s (the last learnt from %lld"
               " pages, threshold %.3g)\n",
               (long long)js.models, js.models == 1 ? "" : "s", (long long)js.pages, js.threshold);
    else
        printf("  verdicts by the page classifier, while each website was read\n");
    struct crawlstore_found *top;
    size_t n;
    if (crawlstore_found(ui->s, ui->job, 10, &top, &n) == ERR_OK && n) {
        printf("  top relevant websites:\n");
        for (size_t i = 0; i < n; i++)
            printf("  %3zu. %-40s %.3f  %d pages%s\n", i + 1, top[i].homepage, top[i].confidence,
                   top[i].pages, strcmp(top[i].role, "start") == 0 ? "  (start site)" : "");
    }
    free(top);
}

struct crawlui *crawlui_new(struct store *s, int64_t job, const struct jobspec_params *params,
                            const struct labels *labels, const char *topic)
{
    struct crawlui *ui = calloc(1, sizeof *ui);
    if (!ui)
        return NULL;
    ui->s = s;
    ui->job = job;
    ui->params = params;
    ui->labels = labels;
    ui->topic = topic;
    ui->tty = isatty(STDERR_FILENO);
    if (ui->tty) /* log lines take the progress line's place; it is drawn again below */
        log_set_line_prefix("\r\033[K");
    ui->t0 = monotime_s();
    ui->last_pages = -1000000000;
    return ui;
}

double crawlui_elapsed(const struct crawlui *ui)
{
    return monotime_s() - ui->t0;
}

void crawlui_end_line(const struct crawlui *ui)
{
    if (ui->tty)
        fprintf(stderr, "\n");
}

void crawlui_free(struct crawlui *ui)
{
    if (ui && ui->tty)
        log_set_line_prefix(NULL);
    free(ui);
}
