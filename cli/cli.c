/* Shared command-line conventions: the command table, error lines, home directory. */
#include "cli/cli.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmds.h"
#include "crawler/fetch.h"
#include "crawler/fetchproxy.h"
#include "server/serve.h"

const struct cli_command cli_commands[] = {
    {"crawl", "run a crawl job in the foreground: find relevant websites", cmd_crawl,
     cmd_crawl_usage},
    {"db", "manage the embedded PostgreSQL cluster (start, stop, status, url, psql, migrate)",
     cmd_db, cmd_db_usage},
    {"eval", "measure the website classifier against the homepage classifier (Table 2)", cmd_eval,
     cmd_eval_usage},
    {"experiment", "run the paper's crawling experiments on a replay web: CSV, plots, summary",
     cmd_experiment, cmd_experiment_usage},
    {"export", "write a job's websites to stdout as CSV or NDJSON", cmd_export, cmd_export_usage},
    {"judge", "judge a job's websites again with a model learnt from its crawl", cmd_judge,
     cmd_judge_usage},
    {"label", "say whether a website of a job is relevant: the job learns from it", cmd_label,
     cmd_label_usage},
    {"replay", "serve WARC archives as the web (an HTTP proxy with fault injection)", cmd_replay,
     cmd_replay_usage},
    {"serve", "run the HTTP API and the jobs submitted to it", cmd_serve, cmd_serve_usage},
    {"version", "print the version", cmd_version, cmd_version_usage},
    {"worker", "run and help with jobs, without the API (scale out)", cmd_worker, cmd_worker_usage},
};
const int cli_commands_count = (int)(sizeof cli_commands / sizeof cli_commands[0]);

const struct cli_command *cli_find(const char *name)
{
    for (int i = 0; i < cli_commands_count; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

__attribute__((format(printf, 2, 0))) static void vprint_error(const char *cmd, const char *fmt,
                                                               va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (cmd)
        fprintf(stderr, "sitescout %s: %s\n", cmd, msg);
    else
        fprintf(stderr, "sitescout: %s\n", msg);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint_error(cmd, fmt, ap);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "Try 'sitescout %s --help'.\n", cmd);
    else
        fprintf(stderr, "Try 'sitescout help'.\n");
    return CLI_USAGE;
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint_error(cmd, fmt, ap);
    va_end(ap);
    return CLI_FAIL;
}

int cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cli_check_proxy(const char *cmd, const char *proxy)
{
    char why[200];
    if (!proxy || !fetch_proxy_invalid(proxy, why, sizeof why))
        return CLI_OK;
    fprintf(stderr, "sitescout %s: --proxy %s\n", cmd, why);
    return CLI_USAGE;
}

int cli_probe_proxy(const char *cmd, const char *proxy, int fatal)
{
    char why[256];
    if (!proxy || !fetch_proxy_unreachable(proxy, 5000, why, sizeof why))
        return CLI_OK;
    if (fatal)
        return cli_fail(cmd, "--proxy %s: %s", proxy, why);
    fprintf(stderr, "sitescout %s: warning: --proxy %s: %s (fetches fail until it answers)\n", cmd,
            proxy, why);
    return CLI_OK;
}

int cli_serve(const char *cmd, struct serve_opts *o, const char *proxy, int fetch_slots)
{
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = proxy;
    fc.max_in_flight = fetch_slots;
    struct fetch_pool *pool = NULL;
    enum err e = fetch_pool_new(&fc, &pool);
    if (!e) {
        o->pool = pool;
        e = serve_run(o); /* its workers are gone when it returns: the pool may go */
    }
    int rc = e ? cli_fail(cmd, "%s", err_msg()) : CLI_OK;
    fetch_pool_free(pool);
    return rc;
}

int cli_check_warc(const char *cmd, const char *dir, uint64_t max_size)
{
    struct stat st;
    if (!dir)
        return max_size ? cli_usage_error(cmd, "--warc-max-size needs --warc-dir") : CLI_OK;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_usage_error(cmd, "--warc-dir %s: not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return cli_usage_error(cmd, "--warc-dir %s: cannot write there", dir);
    return CLI_OK;
}
