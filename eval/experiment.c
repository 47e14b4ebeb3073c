/* `sitescout experiment`: the paper's crawling experiments (§5.1, §5.3) on one replay web. */
#include "eval/experiment.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/num.h"
#include "eval/exprun.h"
#include "eval/foundcurve.h"
#include "eval/labels.h"
#include "eval/replaythread.h"
#include "eval/report.h"
#include "eval/reportcsv.h"
#include "eval/reportfigs.h"
#include "eval/reportio.h"
#include "eval/reportplot.h"
#include "eval/reportsummary.h"
#include "eval/targets.h"
#include "job/jobspec.h"
#include "store/dbopen.h"
#include "store/store.h"

/* Messages printed while the experiment goes on carry the command's name. */
#define WHO "sitescout experiment"

struct run_def {
    const char *strategy, *edge_weights, *p_threshold;
};

/* Indexed by enum report_role: the runs in the order they are made. */
static const struct run_def run_defs[REPORT_RUNS] = {
    {"website", "global", "0.9"},         {"website", "local", "0.9"},
    {"website", "combined", "0.9"},       {"page", "combined", "0.9"},
    {"website", "combined", "0.7"},       {"bfs", "combined", "0.9"},
    {"homepage", "combined", "0.9"},      {"page_homepage", "combined", "0.9"},
    {"bestfirst", "combined", "0.9"},     {"history", "combined", "0.9"},
    {"hotwords", "combined", "0.9"},      {"relevance_degree", "combined", "0.9"},
    {"weight_table", "combined", "0.9"},  {"learning_anchor", "combined", "0.9"},
    {"context_graph", "combined", "0.9"},
};

/* The parameters the experiment sets per run: --set may not change them. */
static const char *const reserved[] = {"strategy", "edge_weights", "p_threshold", "max_pages"};

/* Everything one experiment holds; released by exp_release. */
struct exp {
    const struct experiment_opts *o;
    struct jobspec *js;
    struct jobspec_params base; /* the job's parameters with the budget and --set applied */
    struct labels *labels;
    struct targets *targets;
    struct store *s;
    struct replaythread replay;
    struct report rep;
    struct report_table2 t2;
    struct buf cmdline;
    int selected[REPORT_RUNS]; /* --runs */
    int n_selected;
    int failed; /* a run or the evaluation did not end well */
};

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

/* The job's parameters for every run: the budget, no politeness delay, then --set. */
static enum err apply_sets(struct exp *x)
{
    const struct experiment_opts *o = x->o;
    x->base = x->js->params;
    x->base.max_pages = o->budget;
    x->base.politeness_delay_ms = 0;
    x->base.judge = 0; /* the paper's verdicts: the examination's (--set judge=... to change) */
    /* The paper's LinkRank (§4.3.4): l_threshold throughout, no deeper reads (--set
     * linkrank_threshold=growing to change). */
    x->base.linkrank_threshold = 1;
    for (size_t i = 0; i < o->n_sets; i++) {
        const char *set = o->sets[i];
        char key[128];
        const char *eq = strchr(set, '=');
        if (!eq || eq == set || (size_t)(eq - set) >= sizeof key)
            return err_set(ERR_INVAL, "--set wants key=value, not '%s'", set);
        snprintf(key, sizeof key, "%.*s", (int)(eq - set), set);
        for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++)
            if (strcmp(key, reserved[k]) == 0)
                return err_set(ERR_INVAL, "--set %s: the experiment sets it for each run%s", key,
                               strcmp(key, "max_pages") == 0 ? " (use --budget)" : "");
        if (jobspec_params_set(&x->base, key, eq + 1) != ERR_OK)
            return err_set(ERR_INVAL, "--set %s", err_msg());
    }
    return ERR_OK;
}

/* The run of job strategy name: its run with combined edge weights and p_threshold
 * 0.9 (website: website-combined); -1 if none. */
static int strategy_role(const char *name)
{
    for (int i = 0; i < REPORT_RUNS; i++)
        if (strcmp(run_defs[i].strategy, name) == 0 &&
            strcmp(run_defs[i].edge_weights, "combined") == 0 &&
            strcmp(run_defs[i].p_threshold, "0.9") == 0)
            return i;
    return -1;
}

/* The names a list option takes, for its error message. */
static void list_names(char *names, size_t size, int strategies)
{
    names[0] = '\0';
    for (int i = 0, n = 0, k = 0; i < REPORT_RUNS && n >= 0 && (size_t)n < size; i++)
        if (!strategies || strategy_role(run_defs[i].strategy) == i)
            n += snprintf(names + n, size - (size_t)n, "%s%s", k++ ? ", " : "",
                          strategies ? run_defs[i].strategy : report_run_name((enum report_role)i));
}

/* --runs (run names) or --strategies (job strategies): the runs to make; without either
 * the paper's (REPORT_DEFAULT_RUNS). */
static enum err select_runs(struct exp *x)
{
    int by_strategy = x->o->strategies != NULL;
    const char *list = by_strategy ? x->o->strategies : x->o->runs;
    const char *opt = by_strategy ? "--strategies" : "--runs";
    if (x->o->runs && x->o->strategies)
        return err_set(ERR_INVAL, "--runs and --strategies: give one of them");
    for (int i = 0; i < REPORT_RUNS; i++)
        x->selected[i] = !list && i < REPORT_DEFAULT_RUNS;
    x->n_selected = list ? 0 : REPORT_DEFAULT_RUNS;
    if (!list)
        return ERR_OK;
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        char name[64] = "";
        if (len < sizeof name)
            snprintf(name, sizeof name, "%.*s", (int)len, p);
        int role = by_strategy ? strategy_role(name) : report_role_find(name);
        if (role < 0) {
            char names[256];
            list_names(names, sizeof names, by_strategy);
            return err_set(ERR_INVAL, "%s: no %s '%.*s' (%s: %s)", opt,
                           by_strategy ? "strategy" : "run", (int)(len > 64 ? 64 : len), p,
                           by_strategy ? "strategies" : "runs", names);
        }
        x->n_selected += !x->selected[role];
        x->selected[role] = 1;
        if (!p[len])
            return ERR_OK;
        p += len + 1;
    }
}

/* Each selected run's strategy goes with the parameters --set gave (a classifier it
 * cannot work with is refused here, not found out by the run). */
static enum err check_runs(struct exp *x)
{
    for (int i = 0; i < REPORT_RUNS; i++) {
        struct jobspec_params p = x->base;
        if (x->selected[i] &&
            (jobspec_params_set(&p, "strategy", run_defs[i].strategy) || jobspec_params_check(&p)))
            return err_set(ERR_INVAL, "run %s: %s", report_run_name((enum report_role)i),
                           err_msg());
    }
    return ERR_OK;
}

/* Everything that is checked before anything starts: errors here are bad usage. */
static enum err prepare(struct exp *x)
{
    const struct experiment_opts *o = x->o;
    if (access(o->warc, R_OK) != 0)
        return err_set(ERR_INVAL, "cannot read --warc %s: %s", o->warc, strerror(errno));
    enum err e = select_runs(x);
    if (!e)
        e = jobspec_load(o->jobs, o->topic, &x->js);
    if (!e)
        e = apply_sets(x);
    if (!e)
        e = check_runs(x);
    if (!e)
        e = labels_load(o->labels, &x->labels);
    if (!e && o->targets)
        e = targets_load(o->targets, &x->targets);
    if (!e && !is_dir_or_make(o->out_dir))
        e = err_set(ERR_INVAL, "--out %s: not a directory and cannot be created", o->out_dir);
    return e;
}

static enum err experiment_report_init(struct exp *x)
{
    struct report *rep = &x->rep;
    rep->repeat = x->o->repeat ? x->o->repeat : 1;
    enum err e = report_alloc(rep);
    if (e)
        return e;
    rep->topic = x->js->topic;
    rep->budget = x->o->budget;
    rep->pprs_window = x->base.pprs_window;
    rep->fig7_asked = x->o->fig7_window;
    rep->fig7_window = foundcurve_window_for(rep->fig7_asked, rep->budget);
    rep->command_line = buf_str(&x->cmdline);
    for (int i = 0; i < REPORT_RUNS; i++)
        for (unsigned k = 0; k < rep->repeat; k++) {
            struct report_run *run = &rep->runs[i][k];
            run->name = report_run_name((enum report_role)i);
            run->strategy = run_defs[i].strategy;
            run->edge_weights = run_defs[i].edge_weights;
            if (!num_parse_double(run_defs[i].p_threshold, 0, 1, &run->p_threshold))
                return err_set(ERR_INVAL, "run %s: p_threshold '%s' is no probability", run->name,
                               run_defs[i].p_threshold);
            run->repeat = k + 1;
            run->selected = x->selected[i];
        }
    return ERR_OK;
}

/* Repeat k of run i, the nth crawl of the experiment, with its start and end lines on
 * stderr. */
static enum err experiment_crawl_one(struct exp *x, int i, unsigned k, int nth)
{
    struct report_run *run = &x->rep.runs[i][k];
    int total = x->n_selected * (int)x->rep.repeat;
    char label[64]; /* the run's name, and which repeat when there are several */
    if (x->rep.repeat > 1)
        snprintf(label, sizeof label, "%s #%u", run->name, run->repeat);
    else
        snprintf(label, sizeof label, "%s", run->name);
    struct jobspec *js = x->js;
    js->params = x->base;
    if (jobspec_params_set(&js->params, "strategy", run->strategy) != ERR_OK ||
        jobspec_params_set(&js->params, "edge_weights", run->edge_weights) != ERR_OK ||
        jobspec_params_set(&js->params, "p_threshold", run_defs[i].p_threshold) != ERR_OK)
        return err_set(ERR_INVAL, "%s: %s", run->name, err_msg());
    fprintf(stderr, "[%d/%d] %s: strategy=%s edge_weights=%s p_threshold=%.2f ...\n", nth, total,
            label, run->strategy, run->edge_weights, run->p_threshold);
    enum err e = exprun_crawl(x->s, js, x->labels, x->replay.proxy, run);
    if (e) {
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%s (job %lld)", label, (long long)run->job_id);
        return err_set(e, "%s: %s", prefix, err_msg());
    }
    char pprs[32], pr[32], re[32];
    fprintf(stderr,
            "[%d/%d] %s: job %lld %s (%s) in %.1f s: %lld pages, %lld sites examined, "
            "%lld relevant, pprs %s, precision %s, recall %s\n",
            nth, total, label, (long long)run->job_id, run->state, run->stop_reason, run->seconds,
            (long long)run->pages, (long long)run->examined, (long long)run->relevant,
            reportio_num(pprs, sizeof pprs, report_run_pprs(run), 1, "-"),
            reportio_num(pr, sizeof pr, run->score.precision, 3, "-"),
            reportio_num(re, sizeof re, run->score.recall, 3, "-"));
    if (strcmp(run->state, "done") != 0)
        x->failed = 1;
    return ERR_OK;
}

/* Table 2; a failure is reported and marks the experiment failed, the rest goes on. */
static void table2(struct exp *x)
{
    struct jobspec *js = x->js;
    js->params = x->base;
    fprintf(stderr,
            "[eval] %s: %d-fold cross-validation, website against homepage "
            "classifier ...\n",
            js->topic, x->base.cv_folds);
    memset(&x->t2, 0, sizeof x->t2);
    if (exprun_table2(js, x->labels, x->replay.proxy, &x->t2) != ERR_OK) {
        fprintf(stderr, WHO ": eval: %s\n", err_msg());
        x->failed = 1;
        return;
    }
    x->rep.table2 = &x->t2;
    fprintf(stderr,
            "[eval] %s in %.1f s: website F1 %.3f, homepage F1 %.3f, %.1f pages "
            "per site, p_err %.3f\n",
            js->topic, x->t2.seconds, x->t2.web_f1, x->t2.home_f1, x->t2.pages_per_site,
            x->t2.p_err);
}

/* The replay server, the database, the selected runs and Table 2. */
static enum err measure(struct exp *x)
{
    const struct experiment_opts *o = x->o;
    enum err e = replaythread_start(&x->replay, o->warc);
    if (e) {
        char prefix[1024];
        snprintf(prefix, sizeof prefix, "replay of %s", o->warc);
        return err_set(e, "%s: %s", prefix, err_msg());
    }
    e = dbopen_open(o->db_url, NULL, &x->s);
    if (e)
        return e;
    fprintf(stderr, "experiment %s: budget %lld pages, replay of %s on %s\n", x->js->topic,
            o->budget, o->warc, x->replay.proxy);
    /* Repeat by repeat, so that a machine that slows down over time touches every run
     * alike. */
    int nth = 0;
    for (unsigned k = 0; k < x->rep.repeat && !e; k++)
        for (int i = 0; i < REPORT_RUNS && !e; i++)
            if (x->selected[i])
                e = experiment_crawl_one(x, i, k, ++nth);
    if (!e && !o->skip_eval)
        table2(x);
    replaythread_stop(&x->replay);
    return e;
}

/* The named figures on stderr, and each target's verdict. */
static void print_figures(const struct exp *x)
{
    struct reportfigs figs;
    reportfigs_compute(&x->rep, &figs);
    fprintf(stderr, "figures:");
    for (size_t i = 0; i < REPORTFIGS_NAMED; i++) {
        char b[32];
        fprintf(stderr, "%s %s %s", i ? "," : "", reportfigs_name(i),
                reportio_num(b, sizeof b, reportfigs_value(&figs, i), reportfigs_decimals(i), "-"));
    }
    fputc('\n', stderr);
    for (size_t k = 0; x->targets && k < x->targets->n; k++) {
        const struct targets_item *t = &x->targets->items[k];
        fprintf(stderr, "target %s %s %s: %s\n", reportfigs_name(t->figure), targets_op_name(t->op),
                t->value_text,
                targets_verdict_name(targets_check(t, reportfigs_value(&figs, t->figure))));
    }
}

/* The CSV files, the plots (skipped without gnuplot) and summary.md. */
static enum err write_outputs(struct exp *x)
{
    const char *dir = x->o->out_dir;
    enum err e = reportcsv_write(&x->rep, dir);
    if (e)
        return e;
    const char *plots_note = NULL;
    char note[512];
    enum err pe = reportplot_draw(&x->rep, dir);
    if (pe) {
        snprintf(note, sizeof note, "%s", err_msg());
        plots_note = note;
        fprintf(stderr, WHO ": plots skipped: %s\n", note);
        if (pe != ERR_NOTFOUND)
            x->failed = 1;
    }
    e = reportsummary_write(&x->rep, x->targets, dir, plots_note);
    if (e)
        return e;
    print_figures(x);
    printf("%s/summary.md\n", dir);
    return ERR_OK;
}

static void exp_release(struct exp *x)
{
    replaythread_stop(&x->replay);
    store_free(x->s);
    report_release(&x->rep);
    buf_release(&x->cmdline);
    targets_free(x->targets);
    labels_free(x->labels);
    jobspec_free(x->js);
}

enum experiment_end experiment_run(const struct experiment_opts *o)
{
    struct exp x = {.o = o};
    buf_init(&x.cmdline, 0);
    enum experiment_end end = EXPERIMENT_FAILED;
    if (prepare(&x) != ERR_OK) {
        end = EXPERIMENT_USAGE;
        goto out;
    }
    if (quote_command(o->argc, o->argv, &x.cmdline) != ERR_OK)
        goto out;
    if (experiment_report_init(&x) != ERR_OK)
        goto out;
    if (measure(&x) != ERR_OK || write_outputs(&x) != ERR_OK)
        goto out;
    if (x.failed) {
        err_set(ERR_IO, "a run or the evaluation did not end well; see %s/summary.md", o->out_dir);
        goto out;
    }
    end = EXPERIMENT_DONE;
out:
    exp_release(&x);
    return end;
}
