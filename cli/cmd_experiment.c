/* `sitescout experiment`: the paper's crawling experiments (§5.1, §5.3) on one replay web. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "crawler/fetch.h"
#include "replay/replay.h"
#include "replay/warc.h"
#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/db.h"
#include "eval/evaluate.h"
#include "job/jobrun.h"
#include "eval/jobscore.h"
#include "job/jobspec.h"
#include "eval/labels.h"
#include "eval/report.h"
#include "store/crawlstore.h"
#include "store/store.h"

#define CMD      "experiment"
#define MAX_SETS 64

void cmd_experiment_usage(void)
{
    printf(
        "usage: sitescout experiment --warc FILE --labels SITES.tsv --jobs JOBS.json --topic T\n"
        "                            --budget PAGES --out DIR [--set key=value]... [--db URL]\n"
        "                            [--skip-eval]\n"
        "\n"
        "Run the crawling experiments of Ester, Kriegel & Schubert (VLDB 2004, §5.1 and\n"
        "§5.3) on a replay web: seven crawl jobs of topic T, one after another, each with\n"
        "the same page budget, then the website classifier evaluation of Table 2.\n"
        "It starts its own replay server of the WARC file (127.0.0.1, a free port) and\n"
        "uses the embedded PostgreSQL cluster unless --db or SITESCOUT_DB is given; the\n"
        "jobs stay there (query them with 'sitescout db psql').\n"
        "\n"
        "The runs (all at politeness_delay_ms=0 and max_pages=PAGES):\n"
        "  website-global, website-local, website-combined\n"
        "                   strategy=website with each edge weighting, p_threshold 0.9\n"
        "                   (Figure 6; website-combined is also the p0.9 line of Figure 7)\n"
        "  page             strategy=page: the focused page crawler with website\n"
        "                   post-processing (Figure 7)\n"
        "  website-p0.7     strategy=website, combined edge weights, p_threshold 0.7 (Figure 7)\n"
        "  bfs, homepage    strategy=bfs and strategy=homepage (baselines)\n"
        "\n"
        "Options:\n"
        "  --warc FILE       the web to crawl (.warc or .warc.gz)\n"
        "  --labels FILE     its ground truth (NAME.sites.tsv): precision and recall of\n"
        "                    the relevant websites each run found\n"
        "  --jobs FILE       a jobs file keyed by topic, or one job body\n"
        "  --topic T         the job of the jobs file to run\n"
        "  --budget PAGES    page budget of every run (max_pages), at least 1\n"
        "  --out DIR         where the results go (created if missing)\n"
        "  --set key=value   override a job parameter of every run and of the evaluation\n"
        "                    (e.g. pprs_window=500); repeatable. strategy, edge_weights,\n"
        "                    p_threshold and max_pages are set by the experiment itself\n"
        "  --db URL          PostgreSQL connection URL\n"
        "  --skip-eval       leave out the Table 2 evaluation\n"
        "\n"
        "Writes to DIR:\n"
        "  fig6_harvest.csv/.png  windowed website harvest rate over websites examined,\n"
        "                         one line per edge weighting\n"
        "  fig7_pprs.csv/.png     windowed pprs-rate over pages downloaded: page crawler,\n"
        "                         website crawler at p_threshold 0.9 and 0.7\n"
        "  recall.csv, fig7b_recall.png\n"
        "                         recall of the labels' relevant sites over pages downloaded\n"
        "                         (every run in the CSV; the three crawlers of fig7 plotted)\n"
        "  runs.csv               one row per run: pages, sites examined, relevant, pprs,\n"
        "                         precision, recall, F1, single-page share\n"
        "  table2.csv             website against homepage classifier (10-fold CV)\n"
        "  summary.md             the tables, the plots and the target checks of issue 8\n"
        "  *.gp                   the gnuplot scripts of the plots (data inline)\n"
        "The plots need gnuplot (Debian: gnuplot-nox); without it they are skipped.\n"
        "Progress goes to stderr, one line per run. More in docs/experiment.md.\n"
        "\n"
        "Exit status: 0 when every run and the evaluation ended, 1 when one failed (the\n"
        "outputs are written anyway), 2 for bad usage.\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the replay server, in a thread of its own ---- */

struct replay_bg {
    struct warc_archive *archive;
    struct replay_server *srv;
    pthread_t thread;
    int running;
    enum err rc;
    char proxy[128];
};

static void *replay_main(void *arg)
{
    struct replay_bg *bg = arg;
    bg->rc = replay_server_run(bg->srv);
    return NULL;
}

static enum err replay_start(struct replay_bg *bg, const char *warc)
{
    bg->archive = warc_archive_new();
    if (!bg->archive)
        return err_set(ERR_NOMEM, "out of memory");
    enum err e = warc_archive_add(bg->archive, warc);
    if (e)
        return e;
    struct replay_config cfg = {.listen = "127.0.0.1:0", .seed = 1};
    e = replay_server_new(&cfg, bg->archive, &bg->srv);
    if (e)
        return e;
    snprintf(bg->proxy, sizeof bg->proxy, "http://%s", replay_server_address(bg->srv));
    int rc = pthread_create(&bg->thread, NULL, replay_main, bg);
    if (rc)
        return err_set(ERR_IO, "cannot start the replay thread: %s", strerror(rc));
    bg->running = 1;
    return ERR_OK;
}

static void replay_stop(struct replay_bg *bg)
{
    if (bg->running) {
        replay_server_stop(bg->srv);
        pthread_join(bg->thread, NULL);
        bg->running = 0;
    }
    replay_server_free(bg->srv);
    warc_archive_free(bg->archive);
    bg->srv = NULL;
    bg->archive = NULL;
}

/* ---- one crawl run ---- */

struct run_ctx {
    struct report_run *run;
    enum err e; /* first error adding a sample */
};

/* Every progress report of the crawl is a sample of its curve (after each website the
 * website crawler records, after each batch of pages the page crawlers read). */
static void on_progress(void *arg, const struct jobrun_progress *p)
{
    struct run_ctx *ctx = arg;
    if (p->phase != JOBRUN_CRAWLING || ctx->e)
        return;
    const struct crawl_progress *c = &p->crawl;
    struct report_point pt = {c->pages, c->examined, c->relevant, c->harvest_window,
                              isinf(c->pprs_window) ? NAN : c->pprs_window};
    ctx->e = report_run_add_point(ctx->run, &pt);
}

static enum err read_job_end(struct store *s, int64_t job, struct report_run *run)
{
    struct crawlstore_job j;
    enum err e = crawlstore_job_get(s, job, &j);
    if (e)
        return e;
    snprintf(run->state, sizeof run->state, "%s", j.state);
    snprintf(run->stop_reason, sizeof run->stop_reason, "%s", *j.error ? j.error : j.stop_reason);
    crawlstore_job_release(&j);
    struct crawlstore_counts c;
    e = crawlstore_counts(s, job, &c);
    if (e)
        return e;
    run->pages = c.pages;
    run->examined = c.examined;
    run->relevant = c.relevant;
    return ERR_OK;
}

/* Create the job of this run (as `sitescout crawl` does), run it, read its figures. */
static enum err run_one(struct store *s, struct jobspec *js, const struct labels *labels,
                        const char *proxy, struct report_run *run)
{
    enum err e = jobrun_create(s, js, &run->job_id);
    if (e)
        return e;
    struct run_ctx ctx = {.run = run};
    struct jobrun_options o = {.proxy = proxy, .progress = on_progress, .ctx = &ctx};
    enum crawl_stop stop;
    double t0 = now_s();
    e = jobrun_run(s, run->job_id, &o, &stop);
    run->seconds = now_s() - t0;
    if (e)
        return e;
    run->ran = 1;
    e = ctx.e;
    if (!e)
        e = read_job_end(s, run->job_id, run);
    if (!e)
        e = jobscore_get(s, run->job_id, labels, js->topic, &run->score);
    report_run_sort(run);
    return e;
}

/* ---- the command ---- */

struct run_def {
    const char *strategy, *edge_weights, *p_threshold;
};

/* Indexed by enum report_role: the runs in the order they are made. */
static const struct run_def run_defs[REPORT_RUNS] = {
    {"website", "global", "0.9"},    {"website", "local", "0.9"},    {"website", "combined", "0.9"},
    {"page", "combined", "0.9"},     {"website", "combined", "0.7"}, {"bfs", "combined", "0.9"},
    {"homepage", "combined", "0.9"},
};

/* The parameters the experiment sets per run: --set may not change them. */
static const char *const reserved[] = {"strategy", "edge_weights", "p_threshold", "max_pages"};

static int is_dir_or_make(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode);
    char *copy = strdup(dir);
    if (!copy)
        return 0;
    /* mkdir -p */
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
            free(copy);
            return 0;
        }
        *p = '/';
    }
    int ok = mkdir(copy, 0755) == 0 || errno == EEXIST;
    free(copy);
    return ok && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The command line as a shell would take it back, for summary.md. */
static enum err quote_command(int argc, char **argv, struct buf *out)
{
    enum err e = buf_append_str(out, "sitescout");
    for (int i = 0; i < argc && !e; i++) {
        const char *a = argv[i];
        int plain = *a != '\0';
        for (const char *p = a; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                        "_./:=@%+,-",
                        *p))
                plain = 0;
        e = buf_append_char(out, ' ');
        if (!e && plain)
            e = buf_append_str(out, a);
        else if (!e) {
            e = buf_append_char(out, '\'');
            for (const char *p = a; *p && !e; p++)
                e = *p == '\'' ? buf_append_str(out, "'\\''") : buf_append_char(out, *p);
            if (!e)
                e = buf_append_char(out, '\'');
        }
    }
    return e;
}

static void fmt(char *b, size_t n, double v, int decimals)
{
    if (isfinite(v))
        snprintf(b, n, "%.*f", decimals, v);
    else
        snprintf(b, n, "-");
}

static enum err run_eval(const struct jobspec *js, const struct labels *labels, const char *proxy,
                         struct report_table2 *t)
{
    struct evaluate_opts o = {0};
    o.mode = EVALUATE_CV;
    o.labels = labels;
    fetch_config_defaults(&o.fetch);
    o.fetch.proxy = proxy;
    struct evaluate_result *res = NULL;
    double t0 = now_s();
    enum err e = evaluate_run(js, &o, &res);
    if (e)
        return e;
    t->topic = js->topic;
    t->folds = res->folds;
    t->sites = res->n_sites;
    t->p_err = res->page_cv.p_err;
    t->p_threshold = js->params.p_threshold;
    t->pages_per_site = res->pages_per_site;
    t->web_precision = evalstats_precision(&res->website);
    t->web_recall = evalstats_recall(&res->website);
    t->web_f1 = evalstats_f1(&res->website);
    t->home_precision = evalstats_precision(&res->homepage);
    t->home_recall = evalstats_recall(&res->homepage);
    t->home_f1 = evalstats_f1(&res->homepage);
    t->seconds = now_s() - t0;
    evaluate_result_free(res);
    return ERR_OK;
}

int cmd_experiment(int argc, char **argv)
{
    const char *warc = NULL, *labels_path = NULL, *jobs = NULL, *topic = NULL, *budget_arg = NULL,
               *dir = NULL, *db_url = NULL, *sets[MAX_SETS];
    int n_sets = 0, skip_eval = 0;
    static const struct option opts[] = {
        {"warc", required_argument, NULL, 'w'},   {"labels", required_argument, NULL, 'l'},
        {"jobs", required_argument, NULL, 'j'},   {"topic", required_argument, NULL, 't'},
        {"budget", required_argument, NULL, 'b'}, {"out", required_argument, NULL, 'o'},
        {"set", required_argument, NULL, 's'},    {"db", required_argument, NULL, 'd'},
        {"skip-eval", no_argument, NULL, 'E'},    {NULL, 0, NULL, 0},
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'w':
            warc = optarg;
            break;
        case 'l':
            labels_path = optarg;
            break;
        case 'j':
            jobs = optarg;
            break;
        case 't':
            topic = optarg;
            break;
        case 'b':
            budget_arg = optarg;
            break;
        case 'o':
            dir = optarg;
            break;
        case 'd':
            db_url = optarg;
            break;
        case 'E':
            skip_eval = 1;
            break;
        case 's':
            if (n_sets == MAX_SETS)
                return cli_usage_error(CMD, "at most %d --set options", MAX_SETS);
            sets[n_sets++] = optarg;
            break;
        case '?':
            if (optopt)
                return cli_usage_error(CMD, "option '%s' needs a value", argv[optind - 1]);
            return cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        default:
            return cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    static const char *const names[] = {"--warc",  "--labels", "--jobs",
                                        "--topic", "--budget", "--out"};
    const char *given[] = {warc, labels_path, jobs, topic, budget_arg, dir};
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
        if (!given[i])
            return cli_usage_error(CMD, "%s is required", names[i]);
    char *end;
    errno = 0;
    long long budget = strtoll(budget_arg, &end, 10);
    if (!*budget_arg || *end || errno || budget < 1)
        return cli_usage_error(CMD, "--budget wants a number of pages (at least 1), not '%s'",
                               budget_arg);
    if (access(warc, R_OK) != 0)
        return cli_usage_error(CMD, "cannot read --warc %s: %s", warc, strerror(errno));

    struct jobspec *js = NULL;
    struct labels *labels = NULL;
    struct store *s = NULL;
    struct replay_bg bg = {0};
    struct report rep = {0};
    struct report_table2 t2;
    struct buf cmdline;
    buf_init(&cmdline, 0);
    int rc = CLI_OK, failed = 0;

    if (jobspec_load(jobs, topic, &js) != ERR_OK) {
        rc = cli_usage_error(CMD, "%s", err_msg());
        goto out;
    }
    struct jobspec_params base = js->params;
    base.max_pages = budget;
    base.politeness_delay_ms = 0;
    for (int i = 0; i < n_sets; i++) {
        char key[128];
        const char *eq = strchr(sets[i], '=');
        if (!eq || eq == sets[i] || (size_t)(eq - sets[i]) >= sizeof key) {
            rc = cli_usage_error(CMD, "--set wants key=value, not '%s'", sets[i]);
            goto out;
        }
        snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
        for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++) {
            if (strcmp(key, reserved[k]) == 0) {
                rc = cli_usage_error(CMD, "--set %s: the experiment sets it for each run%s", key,
                                     strcmp(key, "max_pages") == 0 ? " (use --budget)" : "");
                goto out;
            }
        }
        if (jobspec_params_set(&base, key, eq + 1) != ERR_OK) {
            rc = cli_usage_error(CMD, "--set %s", err_msg());
            goto out;
        }
    }
    if (labels_load(labels_path, &labels) != ERR_OK) {
        rc = cli_usage_error(CMD, "%s", err_msg());
        goto out;
    }
    if (!is_dir_or_make(dir)) {
        rc = cli_usage_error(CMD, "--out %s: not a directory and cannot be created", dir);
        goto out;
    }
    if (quote_command(argc, argv, &cmdline) != ERR_OK) {
        rc = cli_fail(CMD, "%s", err_msg());
        goto out;
    }

    rep.topic = js->topic;
    rep.budget = budget;
    rep.pprs_window = base.pprs_window;
    rep.command_line = buf_str(&cmdline);
    for (int i = 0; i < REPORT_RUNS; i++) {
        struct report_run *run = &rep.runs[i];
        run->name = report_run_name((enum report_role)i);
        run->strategy = run_defs[i].strategy;
        run->edge_weights = run_defs[i].edge_weights;
        run->p_threshold = strtod(run_defs[i].p_threshold, NULL);
    }

    if (replay_start(&bg, warc) != ERR_OK) {
        rc = cli_fail(CMD, "replay of %s: %s", warc, err_msg());
        goto out;
    }
    if (db_open(db_url, NULL, &s) != ERR_OK) {
        rc = cli_fail(CMD, "%s", err_msg());
        goto out;
    }
    fprintf(stderr, "experiment %s: budget %lld pages, replay of %s on %s\n", js->topic, budget,
            warc, bg.proxy);

    for (int i = 0; i < REPORT_RUNS; i++) {
        struct report_run *run = &rep.runs[i];
        js->params = base;
        if (jobspec_params_set(&js->params, "strategy", run->strategy) != ERR_OK ||
            jobspec_params_set(&js->params, "edge_weights", run->edge_weights) != ERR_OK ||
            jobspec_params_set(&js->params, "p_threshold", run_defs[i].p_threshold) != ERR_OK) {
            rc = cli_fail(CMD, "%s: %s", run->name, err_msg());
            goto out;
        }
        fprintf(stderr, "[%d/%d] %s: strategy=%s edge_weights=%s p_threshold=%.2f ...\n", i + 1,
                REPORT_RUNS, run->name, run->strategy, run->edge_weights, run->p_threshold);
        if (run_one(s, js, labels, bg.proxy, run) != ERR_OK) {
            rc = cli_fail(CMD, "%s (job %lld): %s", run->name, (long long)run->job_id, err_msg());
            goto out;
        }
        char pprs[32], pr[32], re[32];
        fmt(pprs, sizeof pprs, run->relevant ? (double)run->pages / (double)run->relevant : NAN, 1);
        fmt(pr, sizeof pr, run->score.precision, 3);
        fmt(re, sizeof re, run->score.recall, 3);
        fprintf(stderr,
                "[%d/%d] %s: job %lld %s (%s) in %.1f s: %lld pages, %lld sites examined, "
                "%lld relevant, pprs %s, precision %s, recall %s\n",
                i + 1, REPORT_RUNS, run->name, (long long)run->job_id, run->state, run->stop_reason,
                run->seconds, (long long)run->pages, (long long)run->examined,
                (long long)run->relevant, pprs, pr, re);
        if (strcmp(run->state, "done") != 0)
            failed = 1;
    }

    if (!skip_eval) {
        js->params = base;
        fprintf(stderr,
                "[eval] %s: %d-fold cross-validation, website against homepage "
                "classifier ...\n",
                js->topic, base.cv_folds);
        memset(&t2, 0, sizeof t2);
        if (run_eval(js, labels, bg.proxy, &t2) != ERR_OK) {
            fprintf(stderr, "sitescout %s: eval: %s\n", CMD, err_msg());
            failed = 1;
        } else {
            rep.table2 = &t2;
            fprintf(stderr,
                    "[eval] %s in %.1f s: website F1 %.3f, homepage F1 %.3f, %.1f pages "
                    "per site, p_err %.3f\n",
                    js->topic, t2.seconds, t2.web_f1, t2.home_f1, t2.pages_per_site, t2.p_err);
        }
    }
    replay_stop(&bg);

    if (report_write_csv(&rep, dir) != ERR_OK) {
        rc = cli_fail(CMD, "%s", err_msg());
        goto out;
    }
    const char *plots_note = NULL;
    char note[512];
    enum err pe = report_plot(&rep, dir);
    if (pe) {
        snprintf(note, sizeof note, "%s", err_msg());
        plots_note = note;
        fprintf(stderr, "sitescout %s: plots skipped: %s\n", CMD, note);
        if (pe != ERR_NOTFOUND)
            failed = 1;
    }
    if (report_write_summary(&rep, dir, plots_note) != ERR_OK) {
        rc = cli_fail(CMD, "%s", err_msg());
        goto out;
    }
    struct report_checks chk;
    report_checks(&rep, &chk);
    fprintf(stderr, "target: website p0.9 pprs <= 0.6x page at equal or better precision: %s\n",
            !chk.pprs_known  ? "cannot be decided"
            : chk.pprs_holds ? "holds"
                             : "does not hold");
    fprintf(stderr, "target: combined edge weights never the worst: %s\n",
            !chk.weights_known   ? "cannot be decided"
            : chk.combined_holds ? "holds"
                                 : "does not hold");
    printf("%s/summary.md\n", dir);
    if (failed)
        rc = cli_fail(CMD, "a run or the evaluation did not end well; see %s/summary.md", dir);
out:
    replay_stop(&bg);
    store_free(s);
    for (int i = 0; i < REPORT_RUNS; i++)
        report_run_release(&rep.runs[i]);
    buf_release(&cmdline);
    labels_free(labels);
    jobspec_free(js);
    return rc;
}
