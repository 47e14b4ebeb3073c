/* `sitescout eval`: website classifier against homepage classifier (the paper's Table 2). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * jansson references: json_object_set_new and json_array_append_new steal the value's
 * reference; everything else here is released with one json_decref of the root.
 */
#include <jansson.h>

#include "classifier/pagecls.h"
#include "common/buf.h"
#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/db.h"
#include "eval/evaluate.h"
#include "job/jobspec.h"
#include "eval/labels.h"
#include "store/models.h"
#include "store/store.h"

#define MAX_SETS 64

void cmd_eval_usage(void)
{
    printf("usage: sitescout eval --job FILE [--topic T] [--labels SITES.tsv] [--proxy URL]\n"
           "                      [--mode cv|heldout] [--report OUT.json] [--set KEY=VALUE]...\n"
           "                      [--save-model [--db URL]]\n"
           "\n"
           "Measure the website classifier against the homepage classifier, as in Table 2\n"
           "of Ester, Kriegel & Schubert (VLDB 2004). Training pages are the first\n"
           "train_pages_per_site pages of a breadth-first traversal of each training website\n"
           "(the job's relevant_sites and other_sites), fetched politely (robots.txt obeyed).\n"
           "\n"
           "Modes:\n"
           "  cv       (default) k-fold cross-validation over the training websites: each\n"
           "           held-out website is classified by the internal crawler (best-first\n"
           "           from its homepage until p_threshold or max_pages_to_decide fetches, no\n"
           "           LinkRank continuation) and by the homepage classifier (the same page\n"
           "           classifier trained on homepages only, applied to its homepage)\n"
           "  heldout  train on all training websites, evaluate on the websites whose role\n"
           "           for the topic is 'test' in --labels (relevant iff their topic is the\n"
           "           job's topic)\n"
           "\n"
           "Options:\n"
           "  --job FILE|JSON    a job body {topic, relevant_sites, other_sites, ...}, or a\n"
           "                     jobs file keyed by topic (e.g. ../shared/webs/dev.jobs.json);\n"
           "                     an argument starting with '{' is the JSON text itself\n"
           "  --topic T          the entry of a jobs file to use\n"
           "  --labels FILE      ground truth (NAME.sites.tsv); required for heldout\n"
           "  --proxy URL        fetch through this HTTP proxy, e.g. a 'sitescout replay'\n"
           "  --mode cv|heldout  see above (default cv)\n"
           "  --report FILE      also write the figures as JSON to FILE\n"
           "  --set KEY=VALUE    override a job parameter (repeatable); those that matter\n"
           "                     here: p_threshold (0.9), max_pages_to_decide (0 = 7),\n"
           "                     max_pages_per_site (25), prior_target (0.5),\n"
           "                     train_pages_per_site (25), centroids_per_class (4),\n"
           "                     cv_folds (10), seed, politeness_delay_ms (1000: use 0\n"
           "                     with a replay), concurrency (64)\n"
           "  --save-model       store the page classifier trained on all training\n"
           "                     websites in the database and print its id\n"
           "  --db URL           database for --save-model (default $SITESCOUT_DB, else the\n"
           "                     embedded cluster)\n"
           "\n"
           "Prints a table on stdout; a progress bar on stderr when it is a terminal.\n"
           "More in docs/eval.md.\n");
}

/* ---- progress bar ---- */

struct bar {
    int on;
    int drawn;
    double last;
    enum evaluate_phase phase;
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int bar_update(void *ctx, enum evaluate_phase phase, size_t done, size_t total,
                      size_t pages)
{
    struct bar *b = ctx;
    if (!b->on)
        return 0;
    double now = mono_s();
    int finished = done >= total;
    if (phase == b->phase && !finished && now - b->last < 0.1)
        return 0;
    if (phase != b->phase && b->drawn)
        fputc('\n', stderr);
    b->phase = phase;
    b->last = now;
    static const char *const names[] = {"training pages", "training models", "classifying"};
    static const char *const units[] = {"pages", "models", "sites"};
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    int fill = total ? (int)((double)WIDTH * (double)done / (double)total) : 0;
    fill = fill > WIDTH ? WIDTH : fill;
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, '.', (size_t)(WIDTH - fill));
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r%-16s [%s] %zu/%zu %s, %zu fetches\033[K", names[phase], bar, done, total,
            units[phase], pages);
    fflush(stderr);
    b->drawn = 1;
    return 0;
}

static void bar_end(struct bar *b)
{
    if (b->on && b->drawn)
        fputc('\n', stderr);
    b->drawn = 0;
}

/* ---- output ---- */

static void print_table(const struct jobspec *job, const struct evaluate_result *r)
{
    const struct jobspec_params *p = &job->params;
    if (r->mode == EVALUATE_CV)
        printf("%s: %u-fold cross-validation over %zu training websites (%zu relevant, %zu "
               "other)\n",
               job->topic, r->folds, r->train_sites, r->train_relevant,
               r->train_sites - r->train_relevant);
    else
        printf("%s: trained on %zu websites (%zu relevant), tested on %zu held-out websites "
               "(%u relevant)\n",
               job->topic, r->train_sites, r->train_relevant, r->n_sites,
               r->website.tp + r->website.fn);
    printf("training: %zu pages (%.1f per website, first %d BFS pages); page accuracy %.3f "
           "(p_err %.3f)\n",
           r->train_pages, r->train_sites ? (double)r->train_pages / (double)r->train_sites : 0,
           p->train_pages_per_site, r->page_cv.accuracy, r->page_cv.p_err);
    if (r->n_excluded)
        printf("excluded: %zu training websites gave no page (first: %s)\n", r->n_excluded,
               r->excluded[0]);
    printf("website classifier: prior Pr[target] %.2f, p_threshold %.2f, at most %d fetches per "
           "site, no LinkRank continuation\n\n",
           r->prior_target, p->p_threshold, r->page_cap);

    double fw = evalstats_f1(&r->website), fh = evalstats_f1(&r->homepage);
    printf("%-24s %6s %6s %6s %6s %6s %6s | %6s %6s %6s | %7s\n", "", "page", "", "pages", "web",
           "web", "web", "home", "home", "home", "F");
    printf("%-24s %6s %6s %6s %6s %6s %6s | %6s %6s %6s | %7s\n", "topic", "acc", "p_thr",
           "/site", "prec", "rec", "F", "prec", "rec", "F", "improve");
    printf("%-24.24s %6.3f %6.2f %6.1f %6.3f %6.3f %6.3f | %6.3f %6.3f %6.3f | %+7.3f\n\n",
           job->topic, r->page_cv.accuracy, p->p_threshold, r->pages_per_site,
           evalstats_precision(&r->website), evalstats_recall(&r->website), fw,
           evalstats_precision(&r->homepage), evalstats_recall(&r->homepage), fh, fw - fh);
    printf("website classifier:  tp %u fp %u fn %u tn %u; decided %zu of %zu sites; %.2f "
           "pages per site, %.2f to decide\n",
           r->website.tp, r->website.fp, r->website.fn, r->website.tn, r->decided, r->n_sites,
           r->pages_per_site, r->pages_to_decide);
    printf("homepage classifier: tp %u fp %u fn %u tn %u; %zu homepages unreadable\n",
           r->homepage.tp, r->homepage.fp, r->homepage.fn, r->homepage.tn, r->no_homepage);
    printf("time: %.1f s collecting, %.1f s training, %.1f s classifying; %llu requests\n",
           r->seconds_collect, r->seconds_train, r->seconds_classify,
           (unsigned long long)r->fetch.requests);
}

/* A JSON number, or null for NaN and infinities (JSON has neither). */
static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstats(const struct evalstats *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "precision", jnum(evalstats_precision(s)));
    json_object_set_new(o, "recall", jnum(evalstats_recall(s)));
    json_object_set_new(o, "f1", jnum(evalstats_f1(s)));
    json_object_set_new(o, "accuracy", jnum(evalstats_accuracy(s)));
    json_object_set_new(o, "tp", json_integer(s->tp));
    json_object_set_new(o, "fp", json_integer(s->fp));
    json_object_set_new(o, "fn", json_integer(s->fn));
    json_object_set_new(o, "tn", json_integer(s->tn));
    return o;
}

static enum err write_report(const char *path, const struct jobspec *job,
                             const struct evaluate_result *r)
{
    struct buf pj;
    buf_init(&pj, 0);
    enum err e = jobspec_params_json(&job->params, &pj);
    if (e)
        return e;
    json_t *root = json_object();
    json_object_set_new(root, "topic", json_string(job->topic));
    json_object_set_new(root, "mode", json_string(r->mode == EVALUATE_CV ? "cv" : "heldout"));
    if (r->mode == EVALUATE_CV)
        json_object_set_new(root, "folds", json_integer(r->folds));
    json_object_set_new(root, "params", json_loads(buf_str(&pj), 0, NULL));
    buf_release(&pj);
    json_object_set_new(root, "prior_target", jnum(r->prior_target));
    json_object_set_new(root, "p_threshold", jnum(job->params.p_threshold));
    json_object_set_new(root, "page_cap", json_integer(r->page_cap));
    json_object_set_new(root, "page_accuracy", jnum(r->page_cv.accuracy));
    json_object_set_new(root, "p_err", jnum(r->page_cv.p_err));
    json_object_set_new(root, "p_err_used_mean", jnum(r->p_err_mean));
    json_t *train = json_object();
    json_object_set_new(train, "sites", json_integer((json_int_t)r->train_sites));
    json_object_set_new(train, "relevant", json_integer((json_int_t)r->train_relevant));
    json_object_set_new(train, "pages", json_integer((json_int_t)r->train_pages));
    json_t *excl = json_array();
    for (size_t i = 0; i < r->n_excluded; i++)
        json_array_append_new(excl, json_string(r->excluded[i]));
    json_object_set_new(train, "excluded", excl);
    json_t *tsites = json_array();
    for (size_t i = 0; i < r->n_train; i++) {
        const struct evaluate_train_site *t = &r->train[i];
        json_t *o = json_object();
        json_object_set_new(o, "homepage", json_string(t->homepage));
        json_object_set_new(o, "relevant", json_boolean(t->relevant));
        json_object_set_new(o, "pages", json_integer((json_int_t)t->pages));
        json_object_set_new(o, "fetches", json_integer(t->fetches));
        if (t->redirected)
            json_object_set_new(o, "redirected", json_true());
        json_array_append_new(tsites, o);
    }
    json_object_set_new(train, "sites", tsites);
    json_object_set_new(root, "training", train);

    json_t *web = jstats(&r->website);
    json_object_set_new(web, "pages_per_site", jnum(r->pages_per_site));
    json_object_set_new(web, "pages_to_decide", jnum(r->pages_to_decide));
    json_object_set_new(web, "decided", json_integer((json_int_t)r->decided));
    json_object_set_new(root, "website", web);
    json_t *home = jstats(&r->homepage);
    json_object_set_new(home, "unreadable", json_integer((json_int_t)r->no_homepage));
    json_object_set_new(root, "homepage", home);
    json_object_set_new(root, "f1_improvement",
                        jnum(evalstats_f1(&r->website) - evalstats_f1(&r->homepage)));
    json_object_set_new(root, "sites_evaluated", json_integer((json_int_t)r->n_sites));

    json_t *times = json_object();
    json_object_set_new(times, "collect", jnum(r->seconds_collect));
    json_object_set_new(times, "train", jnum(r->seconds_train));
    json_object_set_new(times, "classify", jnum(r->seconds_classify));
    json_object_set_new(root, "seconds", times);
    json_t *fetch = json_object();
    json_object_set_new(fetch, "requests", json_integer((json_int_t)r->fetch.requests));
    json_object_set_new(fetch, "robots_requests",
                        json_integer((json_int_t)r->fetch.robots_requests));
    json_object_set_new(fetch, "bytes", json_integer((json_int_t)r->fetch.bytes));
    json_object_set_new(root, "fetch", fetch);

    json_t *sites = json_array();
    for (size_t i = 0; i < r->n_sites; i++) {
        const struct evaluate_site *s = &r->sites[i];
        json_t *o = json_object();
        json_object_set_new(o, "homepage", json_string(s->homepage));
        json_object_set_new(o, "truth", json_boolean(s->truth));
        if (s->fold >= 0)
            json_object_set_new(o, "fold", json_integer(s->fold));
        json_object_set_new(o, "relevant", json_boolean(s->relevant));
        json_object_set_new(o, "confidence", jnum(s->confidence));
        json_object_set_new(o, "decided", json_boolean(s->decided));
        json_object_set_new(o, "pages", json_integer(s->pages));
        json_object_set_new(o, "pages_to_decide", json_integer(s->pages_to_decide));
        if (s->redirected)
            json_object_set_new(o, "redirected", json_true());
        json_object_set_new(o, "homepage_pr", jnum(s->home_pr));
        json_object_set_new(o, "homepage_relevant", json_boolean(s->home_relevant));
        json_t *trace = json_array();
        for (size_t j = 0; j < s->n_trace; j++) {
            json_t *pg = json_object();
            json_object_set_new(pg, "url", json_string(s->trace[j].url));
            json_object_set_new(pg, "status", json_string(fetch_status_name(s->trace[j].status)));
            json_object_set_new(pg, "pr_target", jnum(s->trace[j].pr_target));
            json_array_append_new(trace, pg);
        }
        json_object_set_new(o, "trace", trace);
        json_array_append_new(sites, o);
    }
    json_object_set_new(root, "sites", sites);

    if (json_dump_file(root, path, JSON_INDENT(1) | JSON_REAL_PRECISION(6) | JSON_SORT_KEYS))
        e = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
    json_decref(root);
    return e;
}

static enum err save_model(const char *db_url, const struct jobspec *job,
                           const struct evaluate_result *r, int64_t *id)
{
    struct buf bytes, cv, params;
    buf_init(&bytes, 0);
    buf_init(&cv, 0);
    buf_init(&params, 0);
    struct store *s = NULL;
    const struct pagecls_cv *c = pagecls_get_cv(r->model);
    enum err e = pagecls_serialize(r->model, &bytes);
    if (!e)
        e = buf_appendf(&cv,
                        "{\"folds\":%u,\"sites\":%u,\"pages\":%llu,\"correct\":%.17g,"
                        "\"accuracy\":%.17g,\"p_err\":%.17g}",
                        c->folds, c->sites, (unsigned long long)c->pages, c->correct, c->accuracy,
                        c->p_err);
    if (!e)
        e = jobspec_params_json(&job->params, &params);
    if (!e)
        e = db_open(db_url, NULL, &s);
    if (!e)
        e = models_save(s, 0, PAGECLS_FORMAT_VERSION, c->p_err, c->accuracy, buf_str(&cv),
                        buf_str(&params), bytes.data, bytes.len, id);
    store_free(s);
    buf_release(&bytes);
    buf_release(&cv);
    buf_release(&params);
    return e;
}

/* ---- the command ---- */

int cmd_eval(int argc, char **argv)
{
    const char *job_arg = NULL, *topic = NULL, *labels_path = NULL, *proxy = NULL;
    const char *report_path = NULL, *db_url = NULL;
    const char *sets[MAX_SETS];
    int n_sets = 0, save = 0;
    enum evaluate_mode mode = EVALUATE_CV;
    static const struct option longopts[] = {
        {"job", required_argument, NULL, 'j'},
        {"topic", required_argument, NULL, 't'},
        {"labels", required_argument, NULL, 'l'},
        {"proxy", required_argument, NULL, 'p'},
        {"mode", required_argument, NULL, 'm'},
        {"report", required_argument, NULL, 'r'},
        {"set", required_argument, NULL, 's'},
        {"save-model", no_argument, NULL, 'S'},
        {"db", required_argument, NULL, 'd'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': job_arg = optarg; break;
        case 't': topic = optarg; break;
        case 'l': labels_path = optarg; break;
        case 'p': proxy = optarg; break;
        case 'r': report_path = optarg; break;
        case 'd': db_url = optarg; break;
        case 'S': save = 1; break;
        case 'm':
            if (strcmp(optarg, "cv") == 0)
                mode = EVALUATE_CV;
            else if (strcmp(optarg, "heldout") == 0)
                mode = EVALUATE_HELDOUT;
            else
                return cli_usage_error("eval", "--mode wants cv or heldout, not '%s'", optarg);
            break;
        case 's':
            if (n_sets == MAX_SETS)
                return cli_usage_error("eval", "at most %d --set options", MAX_SETS);
            if (!strchr(optarg, '='))
                return cli_usage_error("eval", "--set wants KEY=VALUE, not '%s'", optarg);
            sets[n_sets++] = optarg;
            break;
        case '?':
            if (optopt)
                return cli_usage_error("eval", "option '%s' needs a value", argv[optind - 1]);
            return cli_usage_error("eval", "unknown option '%s'", argv[optind - 1]);
        default: return cli_usage_error("eval", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("eval", "unexpected argument '%s'", argv[optind]);
    if (!job_arg)
        return cli_usage_error("eval", "--job is required");
    if (mode == EVALUATE_HELDOUT && !labels_path)
        return cli_usage_error("eval", "--mode heldout needs --labels");
    if (db_url && !save)
        return cli_usage_error("eval", "--db only goes with --save-model");

    /* Check the --set keys before any work (usage errors). */
    struct jobspec_params probe;
    jobspec_params_default(&probe);
    for (int i = 0; i < n_sets; i++) {
        char key[128];
        const char *eq = strchr(sets[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
        if (jobspec_params_set(&probe, key, eq + 1) != ERR_OK)
            return cli_usage_error("eval", "--set %s", err_msg());
    }

    struct jobspec *job = NULL;
    struct labels *labels = NULL;
    struct evaluate_result *res = NULL;
    int rc = CLI_OK;
    const char *p = job_arg;
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    enum err e = *p == '{' ? jobspec_select(job_arg, strlen(job_arg), "--job", topic, &job)
                           : jobspec_load(job_arg, topic, &job);
    if (e) {
        rc = cli_fail("eval", "%s", err_msg());
        goto out;
    }
    for (int i = 0; i < n_sets; i++) {
        char key[128];
        const char *eq = strchr(sets[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
        if (jobspec_params_set(&job->params, key, eq + 1) != ERR_OK) {
            rc = cli_usage_error("eval", "--set %s", err_msg());
            goto out;
        }
    }
    if (labels_path && labels_load(labels_path, &labels) != ERR_OK) {
        rc = cli_fail("eval", "%s", err_msg());
        goto out;
    }

    struct bar bar = {0};
    const char *term = getenv("TERM");
    bar.on = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
    struct evaluate_opts o = {0};
    o.mode = mode;
    o.labels = labels;
    fetch_config_defaults(&o.fetch);
    o.fetch.proxy = proxy;
    o.progress = bar_update;
    o.progress_ctx = &bar;
    e = evaluate_run(job, &o, &res);
    bar_end(&bar);
    if (e) {
        rc = cli_fail("eval", "%s", err_msg());
        goto out;
    }
    print_table(job, res);
    if (report_path && write_report(report_path, job, res) != ERR_OK) {
        rc = cli_fail("eval", "%s", err_msg());
        goto out;
    }
    if (save) {
        int64_t id;
        if (save_model(db_url, job, res, &id) != ERR_OK) {
            rc = cli_fail("eval", "saving the model: %s", err_msg());
            goto out;
        }
        printf("model saved: id %lld\n", (long long)id);
    }
out:
    evaluate_result_free(res);
    labels_free(labels);
    jobspec_free(job);
    return rc;
}
