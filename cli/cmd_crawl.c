/* `sitescout crawl`: run one crawl job in the foreground, with progress and a summary. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "cli/cli.h"
#include "cli/db.h"
#include "job/jobrun.h"
#include "eval/jobscore.h"
#include "job/jobspec.h"
#include "eval/labels.h"
#include "store/crawlstore.h"
#include "store/store.h"

#define MAX_SETS 64
#define CURVE_MAX 10000

void cmd_crawl_usage(void)
{
    printf("usage: sitescout crawl --job FILE [--topic T] [--proxy URL] [--db URL]\n"
           "                       [--labels SITES.tsv] [--report OUT.json] [--set key=value]...\n"
           "       sitescout crawl --resume JOB_ID [--proxy URL] [--db URL] [--labels ...] [--report ...]\n"
           "\n"
           "Run one crawl job in the foreground: train the page classifier on the job's\n"
           "training websites, then find relevant websites until a stop condition holds.\n"
           "Everything is stored in PostgreSQL (the embedded cluster unless --db or\n"
           "SITESCOUT_DB is given); query it with 'sitescout db psql' and the view\n"
           "relevant_websites. Ctrl-C stops the crawl cleanly (a second one aborts).\n"
           "\n"
           "Options:\n"
           "  --job FILE        a job body, or a file of bodies keyed by topic (jobs.json)\n"
           "  --topic T         which entry of a jobs file\n"
           "  --set key=value   override a parameter (e.g. max_pages=3000); repeatable\n"
           "  --resume JOB_ID   continue a job that was interrupted (crash, kill, pause)\n"
           "  --proxy URL       fetch through this HTTP proxy (e.g. the replay web)\n"
           "  --db URL          PostgreSQL connection URL\n"
           "  --labels FILE     ground truth (sites.tsv): report precision, recall, F1\n"
           "  --report FILE     write a JSON report, with a curve sampled during the crawl\n"
           "\n"
           "Parameters (--set or the body's \"params\"): strategy, edge_weights, p_threshold,\n"
           "l_threshold, c, max_pages_per_site, train_pages_per_site, centroids_per_class,\n"
           "max_pages, max_relevant_sites, max_seconds, pprs_window, pprs_limit, prior,\n"
           "prior_sites, concurrency, politeness_delay_ms, prior_target, cv_folds, seed.\n"
           "See docs/crawl.md.\n"
           "\n"
           "Exit status: 0 when the job ends done or paused, 1 when it fails, 2 for bad usage.\n");
}

struct curve_point {
    int64_t pages, found;
    double precision, recall, pprs;
};

struct crawl_ui {
    struct store *s;
    int64_t job;
    const struct jobspec_params *params;
    const struct labels *labels;
    const char *topic;
    int tty;
    double t0, last_print;
    struct curve_point curve[CURVE_MAX];
    size_t n_curve;
    int64_t last_pages;
    int stop_sent;
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    if (interrupted)
        _exit(130); /* second Ctrl-C: abort; the job resumes with --resume */
    interrupted = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Precision and recall of the relevant websites found so far, against the labels. */
static void score(struct crawl_ui *ui, size_t *found_out, double *precision, double *recall)
{
    struct jobscore sc;
    if (jobscore_get(ui->s, ui->job, ui->labels, ui->topic, &sc) != ERR_OK)
        log_warn("cannot score the job: %s", err_msg());
    *found_out = sc.found;
    *precision = sc.precision;
    *recall = sc.recall;
    jobscore_release(&sc);
}

static void sample_curve(struct crawl_ui *ui, const struct crawl_progress *p)
{
    if (ui->n_curve >= CURVE_MAX)
        return;
    struct curve_point *c = &ui->curve[ui->n_curve++];
    size_t found;
    score(ui, &found, &c->precision, &c->recall);
    c->pages = p->pages;
    c->found = (int64_t)found;
    c->pprs = p->pprs;
    ui->last_pages = p->pages;
}

static void progress(void *arg, const struct jobrun_progress *p)
{
    struct crawl_ui *ui = arg;
    if (interrupted && !ui->stop_sent) {
        ui->stop_sent = 1;
        if (crawlstore_job_request(ui->s, ui->job, "stop") != ERR_OK)
            log_warn("cannot ask the job to stop: %s", err_msg());
        fprintf(stderr, "\nstopping (Ctrl-C again to abort at once)...\n");
    }
    if (p->phase == JOBRUN_CRAWLING) {
        /* A point every 1% of the page budget (or 100 pages), and at the end. */
        int64_t step = ui->params->max_pages > 0 ? ui->params->max_pages / 100 : 100;
        if (step < 10)
            step = 10;
        if (p->crawl.pages - ui->last_pages >= step ||
            (p->crawl.stop != CRAWL_RUNNING && p->crawl.pages != ui->last_pages))
            sample_curve(ui, &p->crawl);
    }
    double el = now_s() - ui->t0;
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
                "  border %lld  %.0fs%s",
                (long long)c->pages, (long long)c->examined, (long long)c->relevant,
                isnan(c->harvest_rate) ? 0.0 : c->harvest_rate, isnan(c->pprs) ? 0.0 : c->pprs,
                (long long)c->border, el, budget);
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

static int write_report(struct crawl_ui *ui, const char *path, double seconds)
{
    struct crawlstore_counts c;
    if (crawlstore_counts(ui->s, ui->job, &c) != ERR_OK)
        return cli_fail("crawl", "%s", err_msg());
    size_t found;
    double precision, recall;
    score(ui, &found, &precision, &recall);
    double f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : NAN;
    FILE *f = fopen(path, "w");
    if (!f)
        return cli_fail("crawl", "cannot write %s", path);
    fprintf(f, "{\"job_id\": %lld, \"pages_downloaded\": %lld, \"sites_examined\": %lld, "
               "\"relevant_found\": %lld, ",
            (long long)ui->job, (long long)c.pages, (long long)c.examined,
            (long long)c.relevant);
    json_num(f, "pprs", c.relevant ? (double)c.pages / c.relevant : NAN, 1);
    json_num(f, "harvest_rate", c.examined ? (double)c.relevant / c.examined : NAN, 1);
    json_num(f, "pages_per_site", c.examined ? (double)c.pages / c.examined : NAN, 1);
    json_num(f, "precision", precision, 1);
    json_num(f, "recall", recall, 1);
    json_num(f, "f1", f1, 1);
    json_num(f, "seconds", seconds, 1);
    fprintf(f, "\"curve\": [");
    for (size_t i = 0; i < ui->n_curve; i++) {
        const struct curve_point *p = &ui->curve[i];
        fprintf(f, "%s{\"pages\": %lld, \"relevant_found\": %lld, ", i ? ", " : "",
                (long long)p->pages, (long long)p->found);
        json_num(f, "precision", p->precision, 1);
        json_num(f, "recall", p->recall, 1);
        json_num(f, "pprs", p->pprs, 0);
        fprintf(f, "}");
    }
    fprintf(f, "]}\n");
    if (fclose(f) != 0)
        return cli_fail("crawl", "cannot write %s", path);
    return CLI_OK;
}

static void print_summary(struct crawl_ui *ui, double seconds)
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
    printf("\n  pages downloaded %lld, websites examined %lld, relevant %lld\n",
           (long long)c.pages, (long long)c.examined, (long long)c.relevant);
    if (c.examined)
        printf("  harvest rate %.3f, pprs %.2f, pages per site %.2f, %.1f s\n",
               (double)c.relevant / c.examined, c.relevant ? (double)c.pages / c.relevant : 0.0,
               (double)c.pages / c.examined, seconds);
    if (ui->labels) {
        size_t found;
        double pr, rc;
        score(ui, &found, &pr, &rc);
        printf("  against the labels: precision %.3f, recall %.3f, F1 %.3f (%zu found)\n", pr,
               rc, pr + rc > 0 ? 2 * pr * rc / (pr + rc) : 0.0, found);
    }
    struct crawlstore_found *top;
    size_t n;
    if (crawlstore_found(ui->s, ui->job, 10, &top, &n) == ERR_OK && n) {
        printf("  top relevant websites:\n");
        for (size_t i = 0; i < n; i++)
            printf("  %3zu. %-40s %.3f  %d pages%s\n", i + 1, top[i].homepage,
                   top[i].confidence, top[i].pages,
                   strcmp(top[i].role, "start") == 0 ? "  (start site)" : "");
    }
    free(top);
}

int cmd_crawl(int argc, char **argv)
{
    const char *job_file = NULL, *topic = NULL, *proxy = NULL, *db_url = NULL, *labels_path = NULL,
               *report = NULL, *sets[MAX_SETS];
    int n_sets = 0;
    int64_t resume = 0;
    static const struct option opts[] = {
        {"job", required_argument, NULL, 'j'},    {"topic", required_argument, NULL, 't'},
        {"proxy", required_argument, NULL, 'p'},  {"db", required_argument, NULL, 'd'},
        {"labels", required_argument, NULL, 'l'}, {"report", required_argument, NULL, 'r'},
        {"set", required_argument, NULL, 's'},    {"resume", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'j': job_file = optarg; break;
        case 't': topic = optarg; break;
        case 'p': proxy = optarg; break;
        case 'd': db_url = optarg; break;
        case 'l': labels_path = optarg; break;
        case 'r': report = optarg; break;
        case 's':
            if (n_sets == MAX_SETS)
                return cli_usage_error("crawl", "too many --set options");
            sets[n_sets++] = optarg;
            break;
        case 'R': {
            char *end;
            resume = strtoll(optarg, &end, 10);
            if (*end || resume < 1)
                return cli_usage_error("crawl", "--resume wants a job id, not '%s'", optarg);
            break;
        }
        default:
            return cli_usage_error("crawl", "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("crawl", "unexpected argument '%s'", argv[optind]);
    if (!job_file == !resume)
        return cli_usage_error("crawl", "give either --job FILE or --resume JOB_ID");
    if (resume && (n_sets || topic))
        return cli_usage_error("crawl", "--resume takes the job as stored: no --set or --topic");

    struct jobspec *js = NULL;
    struct labels *labels = NULL;
    struct store *s = NULL;
    struct crawl_ui *ui = calloc(1, sizeof *ui);
    int rc = CLI_FAIL;
    if (!ui)
        return cli_fail("crawl", "out of memory");
    if (job_file) {
        if (jobspec_load(job_file, topic, &js) != ERR_OK) {
            rc = cli_usage_error("crawl", "%s", err_msg());
            goto out;
        }
        for (int i = 0; i < n_sets; i++) {
            char key[128];
            const char *eq = strchr(sets[i], '=');
            if (!eq || eq == sets[i] || (size_t)(eq - sets[i]) >= sizeof key) {
                rc = cli_usage_error("crawl", "--set wants key=value, not '%s'", sets[i]);
                goto out;
            }
            snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
            if (jobspec_params_set(&js->params, key, eq + 1) != ERR_OK) {
                rc = cli_usage_error("crawl", "%s", err_msg());
                goto out;
            }
        }
    }
    if (labels_path && labels_load(labels_path, &labels) != ERR_OK) {
        rc = cli_usage_error("crawl", "%s", err_msg());
        goto out;
    }
    if (db_open(db_url, NULL, &s) != ERR_OK) {
        rc = cli_fail("crawl", "%s", err_msg());
        goto out;
    }
    if (js) {
        enum err e = jobrun_create(s, js, &ui->job);
        if (e) {
            rc = cli_fail("crawl", "%s", err_msg());
            goto out;
        }
        printf("job %lld: %s\n", (long long)ui->job, js->topic);
    } else {
        ui->job = resume;
        struct crawlstore_job j;
        if (crawlstore_job_get(s, resume, &j) != ERR_OK) {
            rc = cli_fail("crawl", "%s", err_msg());
            goto out;
        }
        enum err e = jobspec_parse(j.body_json, strlen(j.body_json), &js);
        crawlstore_job_release(&j);
        if (e) {
            rc = cli_fail("crawl", "job %lld: %s", (long long)resume, err_msg());
            goto out;
        }
        printf("job %lld: resuming (%s)\n", (long long)resume, js->topic);
    }
    fflush(stdout);
    ui->s = s;
    ui->params = &js->params;
    ui->labels = labels;
    ui->topic = js->topic;
    ui->tty = isatty(STDERR_FILENO);
    ui->t0 = now_s();
    ui->last_pages = -1000000000;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    struct jobrun_options o = {.proxy = proxy, .progress = progress, .ctx = ui};
    enum crawl_stop stop;
    enum err e = jobrun_run(s, ui->job, &o, &stop);
    double seconds = now_s() - ui->t0;
    if (ui->tty)
        fprintf(stderr, "\n");
    if (e) {
        rc = cli_fail("crawl", "job %lld: %s", (long long)ui->job, err_msg());
        print_summary(ui, seconds);
        goto out;
    }
    print_summary(ui, seconds);
    rc = report ? write_report(ui, report, seconds) : CLI_OK;
out:
    store_free(s);
    labels_free(labels);
    jobspec_free(js);
    free(ui);
    return rc;
}
