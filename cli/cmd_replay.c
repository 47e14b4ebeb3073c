/* `sitescout replay`: serve WARC archives as the web, an HTTP proxy with fault injection. */
#include <stdio.h>
#include <string.h>

#include "replay/replayd.h"
#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/opts.h"

void cmd_replay_usage(void)
{
    printf("usage: sitescout replay --warc FILE|DIR [--warc FILE|DIR]... [OPTIONS]\n"
           "\n"
           "Serve web archives (WARC) as if they were the live web: an HTTP proxy for\n"
           "crawlers (curl -x http://127.0.0.1:8081 http://HOST/) that also answers\n"
           "origin-form requests routed by their Host header. Recorded responses are sent\n"
           "as recorded; an unknown URL on a known host gets 404, an unknown host 502.\n"
           "\n"
           "Options:\n"
           "  --warc FILE|DIR      a .warc or .warc.gz file, or a directory: its *.warc,\n"
           "                       *.warc.gz and *.open files in name order (e.g. the\n"
           "                       files of 'sitescout crawl --warc-dir'); repeatable (the\n"
           "                       first record of a URL wins)\n"
           "  --listen HOST:PORT   where to listen (default 127.0.0.1:8081); port 0 picks a\n"
           "                       free port; prints 'listening on IP:PORT' when ready\n"
           "  --access-log FILE    append one JSON line per request to FILE\n"
           "\n"
           "Fault injection, all off by default. Each decision depends only on --seed, the\n"
           "URL and how often that URL was requested before (a redirect loop only on --seed\n"
           "and the URL: a looping URL loops every time):\n"
           "  --seed N             seed of every random decision (default 1)\n"
           "  --latency-ms MEAN    delay each response by an exponential time, this mean\n"
           "                       (capped at 20 x MEAN)\n"
           "  --error-rate R       answer this share of requests with 500 or 503\n"
           "  --reset-rate R       reset the connection halfway through this share of bodies\n"
           "  --slow-rate R        send this share of bodies in %d slow pieces ...\n"
           "  --slow-ms MS         ... spread over about MS milliseconds (default 2000)\n"
           "  --stall-rate R       send half of this share of bodies, then nothing ...\n"
           "  --stall-ms MS        ... for MS milliseconds (default 60000), then the rest\n"
           "  --redirect-loop-rate R\n"
           "                       this share of URLs answer 301 or 302 to themselves, or\n"
           "                       to a partner URL that redirects back, every time\n"
           "  --trap-host NAME     serve NAME as an endless calendar (a spider trap)\n"
           "  --huge-host NAME     serve every page of NAME as a 100 MB text/html body\n"
           "  --junk-host NAME     serve binary junk labelled text/html on NAME\n"
           "The three host options may be repeated.\n"
           "\n"
           "Stops cleanly on SIGINT or SIGTERM. More in docs/replay.md.\n",
           20);
}

/* Where one of the repeatable host options puts its names (OPTS_CALL's dest). */
struct host_opt {
    const char *opt; /* "--trap-host", for the error lines */
    const char **list;
    size_t *n;
};

static int add_host(void *dest, const char *name)
{
    const struct host_opt *h = dest;
    if (!*name || strchr(name, '/') || strchr(name, ' '))
        return cli_usage_error("replay", "%s wants a host name, not '%s'", h->opt, name);
    if (*h->n == REPLAY_HOSTS_MAX)
        return cli_usage_error("replay", "at most %d %s options", REPLAY_HOSTS_MAX, h->opt);
    h->list[(*h->n)++] = name;
    return CLI_OK;
}

int cmd_replay(int argc, char **argv)
{
    struct replayd_opts o = {.cfg.seed = 1};
    struct replay_config *cfg = &o.cfg;
    struct opts_list warcs = {o.warcs, 0, REPLAYD_WARCS_MAX};
    double slow_ms = 0, stall_ms = 0; /* whole milliseconds wanted; a fraction is cut off */
    struct host_opt trap = {"--trap-host", cfg->trap_hosts, &cfg->ntrap},
                    huge = {"--huge-host", cfg->huge_hosts, &cfg->nhuge},
                    junk = {"--junk-host", cfg->junk_hosts, &cfg->njunk};
    const struct opts_entry tab[] = {
        OPTS_LIST("warc", &warcs, "at most " OPTS_STR(REPLAYD_WARCS_MAX) " --warc files"),
        OPTS_STRING("listen", &cfg->listen),
        OPTS_STRING("access-log", &cfg->access_log),
        OPTS_UINT64("seed", &cfg->seed, "a non-negative integer"),
        OPTS_DOUBLE("latency-ms", &cfg->latency_ms, 0, 600000, "0 to 600000"),
        OPTS_DOUBLE("error-rate", &cfg->error_rate, 0, 1, "a rate from 0 to 1"),
        OPTS_DOUBLE("reset-rate", &cfg->reset_rate, 0, 1, "a rate from 0 to 1"),
        OPTS_DOUBLE("slow-rate", &cfg->slow_rate, 0, 1, "a rate from 0 to 1"),
        OPTS_DOUBLE("slow-ms", &slow_ms, 1, 600000, "1 to 600000"),
        OPTS_DOUBLE("stall-rate", &cfg->stall_rate, 0, 1, "a rate from 0 to 1"),
        OPTS_DOUBLE("stall-ms", &stall_ms, 1, 3600000, "1 to 3600000"),
        OPTS_DOUBLE("redirect-loop-rate", &cfg->loop_rate, 0, 1, "a rate from 0 to 1"),
        OPTS_CALL("trap-host", &trap, add_host),
        OPTS_CALL("huge-host", &huge, add_host),
        OPTS_CALL("junk-host", &junk, add_host),
    };
    const struct opts_parser parser = {"replay", tab, sizeof tab / sizeof tab[0], OPTS_ERR_UNKNOWN,
                                       .max_args = 0};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    if (!warcs.n)
        return cli_usage_error("replay", "--warc FILE is required");
    o.nwarcs = (size_t)warcs.n;
    cfg->slow_ms = (unsigned)slow_ms;
    cfg->stall_ms = (unsigned)stall_ms;
    if (replayd_run(&o) != ERR_OK)
        return cli_fail("replay", "%s", err_msg());
    return CLI_OK;
}
