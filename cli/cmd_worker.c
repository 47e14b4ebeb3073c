/* `sitescout worker`: run jobs without the HTTP API (server/serve.h with no_api). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/opts.h"
#include "server/serve.h"

#define WORKER_DEFAULT_JOBS 4

void cmd_worker_usage(void)
{
    printf("usage: sitescout worker [--db URL] [--proxy URL] [--jobs N] [--fetch-slots N]\n"
           "                        [--warc-dir DIR [--warc-max-size BYTES]]\n"
           "\n"
           "Run the jobs in the database without serving the API: any number of workers,\n"
           "on any number of machines, share one PostgreSQL with a `serve` (which may run\n"
           "none itself: serve --workers 0). Each job has one lead, which trains it, writes\n"
           "its metrics and ends it; workers with room to spare help with jobs that other\n"
           "processes crawl with the website crawler (strategies website and homepage),\n"
           "claiming websites from the same border, so none is examined twice. A worker\n"
           "killed even with -9 loses only the pages in flight: its job passes to another\n"
           "runner and its websites go back to the border once its lease runs out\n"
           "(SITESCOUT_LEASE_SECONDS, default 30). See docs/deploy.md.\n"
           "SIGINT or SIGTERM stops cleanly: jobs it leads are paused and resumed by the\n"
           "next runner at once; jobs it helps go on without it.\n"
           "\n"
           "Options:\n"
           "  --db URL            PostgreSQL connection URL (or SITESCOUT_DB); default the\n"
           "                      embedded PostgreSQL\n"
           "  --proxy URL         fetch through this proxy, SCHEME://HOST:PORT (http, https,\n"
           "                      socks4, socks4a, socks5, socks5h; e.g. the replay web)\n"
           "  --jobs N            jobs run or helped at once (1..%d); default %d\n"
           "  --fetch-slots N     transfers in flight for all its jobs together (1..%d);\n"
           "                      default %d\n"
           "  --warc-dir DIR      where jobs with \"warc\": true write WARC files; jobs with\n"
           "                      WARC capture are never helped, only led\n"
           "  --warc-max-size BYTES  start a new WARC file past this size; default 1 GiB\n"
           "\n"
           "Prints 'working' on stdout when ready.\n",
           SERVE_MAX_WORKERS, WORKER_DEFAULT_JOBS, SERVE_MAX_SLOTS, SERVE_DEFAULT_SLOTS);
}

static void announce(void *ctx, const char *host, int port)
{
    (void)ctx, (void)host, (void)port;
    printf("working\n");
    fflush(stdout);
}

int cmd_worker(int argc, char **argv)
{
    const char *proxy = NULL;
    int fetch_slots = SERVE_DEFAULT_SLOTS;
    struct serve_opts o = {.workers = WORKER_DEFAULT_JOBS, .no_api = 1, .ready = announce};
    const struct opts_entry tab[] = {
        OPTS_STRING("db", &o.db_url),
        OPTS_STRING("proxy", &proxy),
        OPTS_INT("jobs", &o.workers, 1, SERVE_MAX_WORKERS, "1.." OPTS_STR(SERVE_MAX_WORKERS)),
        OPTS_INT("fetch-slots", &fetch_slots, 1, SERVE_MAX_SLOTS, "1.." OPTS_STR(SERVE_MAX_SLOTS)),
        OPTS_STRING("warc-dir", &o.warc_dir),
        OPTS_UINT64("warc-max-size", &o.warc_max_size, "a size in bytes"),
    };
    const struct opts_parser parser = {"worker", tab, sizeof tab / sizeof tab[0], OPTS_ERR_JOINT,
                                       .max_args = 0};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    if ((rc = cli_check_proxy("worker", proxy)))
        return rc;
    if ((rc = cli_check_warc("worker", o.warc_dir, o.warc_max_size)))
        return rc;
    (void)cli_probe_proxy("worker", proxy, 0);
    return cli_serve("worker", &o, proxy, fetch_slots);
}
