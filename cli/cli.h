/* Subcommand table and the shared conventions of the command line. */
#ifndef SITESCOUT_CLI_CLI_H
#define SITESCOUT_CLI_CLI_H

#include <stdint.h>

#include "common/err.h"

/* Exit codes: 0 success, 1 the command failed, 2 the command line was wrong. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

struct cli_command {
    const char *name;
    const char *summary;               /* one line for `sitescout help` */
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    void (*usage)(void);               /* full --help text to stdout */
};

/* Every command, in the order `sitescout help` lists them. */
extern const struct cli_command cli_commands[];
extern const int cli_commands_count;

const struct cli_command *cli_find(const char *name);

/* Print "sitescout CMD: message" to stderr with a hint to --help; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Print "sitescout CMD: message" to stderr; returns CLI_FAIL. */
int cli_fail(const char *cmd, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* True for "-h" and "--help". */
int cli_is_help(const char *arg);

/*
 * The --warc-dir and --warc-max-size options of cmd: CLI_OK if dir (NULL: not given)
 * is a directory this process can write to and max_size is 0 (not given) or given
 * with dir; else a usage error printed, and its exit status.
 */
int cli_check_warc(const char *cmd, const char *dir, uint64_t max_size);

/*
 * --proxy of cmd (NULL: not given): CLI_OK if fetch_proxy_invalid (crawler/fetchproxy.h)
 * takes it, else one line "sitescout CMD: --proxy '...' is not a proxy URL: ..." and
 * CLI_USAGE.
 */
int cli_check_proxy(const char *cmd, const char *proxy);

/*
 * Can the proxy be reached now (fetch_proxy_unreachable, 5 s)? CLI_OK if so or if proxy
 * is NULL. Else with fatal: "sitescout CMD: --proxy URL: WHY" and CLI_FAIL (nothing is
 * stored: no failed job row for a proxy that is down); without: a warning, CLI_OK (a
 * server may start before its proxy).
 */
int cli_probe_proxy(const char *cmd, const char *proxy, int fatal);

/*
 * serve_run(o) (server/serve.h) with the fetch pool its jobs share, made here with proxy
 * (or NULL) and fetch_slots transfers in flight: the server layer makes no fetcher
 * (docs/architecture.md). CLI_OK after a clean stop, else "sitescout CMD: WHY" and
 * CLI_FAIL.
 */
struct serve_opts;
int cli_serve(const char *cmd, struct serve_opts *o, const char *proxy, int fetch_slots);

#endif
