/* `sitescout crawl`'s work: load or take up the job, run it in the foreground, report. */
#include "cli/fgcrawl.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/crawlui.h"
#include "store/dbopen.h"
#include "cli/opts.h"
#include "common/log.h"
#include "eval/labels.h"
#include "job/jobrun.h"
#include "job/jobspec.h"
#include "job/jobtopic.h"
#include "job/jobwarn.h"
#include "store/crawlstore.h"
#include "store/store.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    if (interrupted)
        _exit(130); /* second Ctrl-C: abort; the job resumes with --resume */
    interrupted = 1;
}

/* A running job and how it is shown. */
struct fgcrawl {
    struct store *s;
    int64_t job;
    struct crawlui *ui;
    int stop_sent;
};

static void on_progress(void *ctx, const struct jobrun_progress *p)
{
    struct fgcrawl *fc = ctx;
    if (interrupted && !fc->stop_sent) {
        fc->stop_sent = 1;
        if (crawlstore_job_request(fc->s, fc->job, "stop") != ERR_OK)
            log_warn("cannot ask the job to stop: %s", err_msg());
        fprintf(stderr, "\nstopping (Ctrl-C again to abort at once)...\n");
    }
    crawlui_progress(fc->ui, p);
}

/* The --set overrides on a new job's body. */
static int apply_sets(const struct fgcrawl_opts *o, struct jobspec **js)
{
    for (int i = 0; i < o->n_sets; i++) {
        char key[128];
        const char *value;
        if (!opts_keyvalue(o->sets[i], key, sizeof key, &value))
            return cli_usage_error("crawl", "--set wants key=value, not '%s'", o->sets[i]);
        if (jobspec_params_set(&(*js)->params, key, value) != ERR_OK)
            return cli_usage_error("crawl", "%s", err_msg());
    }
    if (jobspec_params_check(&(*js)->params) != ERR_OK)
        return cli_usage_error("crawl", "%s", err_msg());
    return CLI_OK;
}

/* The new job's body from its file, with the --set overrides. */
static int load_job(const struct fgcrawl_opts *o, struct jobspec **js)
{
    if (jobspec_load(o->job_file, o->topic, js) != ERR_OK)
        return cli_usage_error("crawl", "%s", err_msg());
    return apply_sets(o, js);
}

/* The new job's body from an earlier job's topic and labels, with the --set overrides. */
static int load_from_job(const struct fgcrawl_opts *o, struct store *s, struct jobspec **js)
{
    struct buf body;
    buf_init(&body, 0);
    enum err e = jobtopic_body(s, o->from_job, &body);
    if (!e)
        e = jobspec_parse(body.data, body.len, js);
    buf_release(&body);
    if (e)
        return cli_fail("crawl", "--from-job %lld: %s", (long long)o->from_job, err_msg());
    return apply_sets(o, js);
}

static void warn_line(void *ctx, const char *text)
{
    (void)ctx;
    fprintf(stderr, "crawl: %s\n", text);
}

/* Store the new job, or read the body of the one to resume; say which job it is. */
static int start_job(const struct fgcrawl_opts *o, struct store *s, struct jobspec **js,
                     int64_t *job)
{
    if (*js) {
        if (jobrun_create_here(s, *js, job) != ERR_OK)
            return cli_fail("crawl", "%s", err_msg());
        printf("job %lld: %s\n", (long long)*job, (*js)->topic);
        fflush(stdout);
        jobwarn_print(*js, warn_line, NULL);
        return CLI_OK;
    }
    *job = o->resume;
    struct crawlstore_job j;
    if (crawlstore_job_get(s, o->resume, &j) != ERR_OK)
        return cli_fail("crawl", "%s", err_msg());
    enum err e = jobspec_parse(j.body_json, strlen(j.body_json), js);
    if (e) {
        crawlstore_job_release(&j);
        return cli_fail("crawl", "job %lld: %s", (long long)o->resume, err_msg());
    }
    printf("job %lld: resuming (%s)", (long long)o->resume, (*js)->topic);
    if (o->proxy || j.proxy[0])
        printf(" through %s%s", o->proxy ? o->proxy : j.proxy, o->proxy ? "" : ", the job's proxy");
    printf("\n");
    crawlstore_job_release(&j);
    return CLI_OK;
}

/* Run the started job to its end, then the summary and the report. */
static int run_job(const struct fgcrawl_opts *o, struct fgcrawl *fc)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    struct jobrun_options jo = {.proxy = o->proxy,
                                .progress = on_progress,
                                .ctx = fc,
                                .warc_dir = o->warc_dir,
                                .warc_max_size = o->warc_max_size,
                                .warc_all = o->warc_dir != NULL};
    enum crawl_stop stop;
    enum err e = jobrun_run(fc->s, fc->job, &jo, &stop);
    double seconds = crawlui_elapsed(fc->ui);
    crawlui_end_line(fc->ui);
    if (e) {
        int rc = e == ERR_DB ? cli_fail("crawl",
                                        "job %lld: %s; it can go on: sitescout crawl "
                                        "--resume %lld (a serve takes it up too)",
                                        (long long)fc->job, err_msg(), (long long)fc->job)
                             : cli_fail("crawl", "job %lld: %s", (long long)fc->job, err_msg());
        crawlui_summary(fc->ui, seconds);
        return rc;
    }
    crawlui_summary(fc->ui, seconds);
    return o->report ? crawlui_report(fc->ui, o->report, seconds) : CLI_OK;
}

int fgcrawl_run(const struct fgcrawl_opts *o)
{
    struct jobspec *js = NULL;
    struct labels *labels = NULL;
    struct fgcrawl fc = {0};
    int rc = o->job_file ? load_job(o, &js) : CLI_OK;
    if (rc)
        goto out;
    if (o->labels_path && labels_load(o->labels_path, &labels) != ERR_OK) {
        rc = cli_usage_error("crawl", "%s", err_msg());
        goto out;
    }
    if (dbopen_open(o->db_url, NULL, &fc.s) != ERR_OK) {
        rc = cli_fail("crawl", "%s", err_msg());
        goto out;
    }
    if (o->from_job && (rc = load_from_job(o, fc.s, &js)))
        goto out;
    /* A proxy that is down: said now, and no job row fails for it. */
    if ((rc = cli_probe_proxy("crawl", o->proxy, 1)) || (rc = start_job(o, fc.s, &js, &fc.job)))
        goto out;
    fflush(stdout);
    fc.ui = crawlui_new(fc.s, fc.job, &js->params, labels, js->topic);
    rc = fc.ui ? run_job(o, &fc) : cli_fail("crawl", "out of memory");
out:
    crawlui_free(fc.ui);
    store_free(fc.s);
    labels_free(labels);
    jobspec_free(js);
    return rc;
}
