/* `sitescout replay`: serve WARC archives as the web, an HTTP proxy with fault injection. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replayd.h"
#include "cli/cli.h"
#include "cli/cmds.h"

void cmd_replay_usage(void)
{
    printf("usage: sitescout replay --warc FILE [--warc FILE]... [OPTIONS]\n"
           "\n"
           "Serve web archives (WARC) as if they were the live web: an HTTP proxy for\n"
           "crawlers (curl -x http://127.0.0.1:8081 http://HOST/) that also answers\n"
           "origin-form requests routed by their Host header. Recorded responses are sent\n"
           "as recorded; an unknown URL on a known host gets 404, an unknown host 502.\n"
           "\n"
           "Options:\n"
           "  --warc FILE          a .warc or .warc.gz file; repeatable (the first record\n"
           "                       of a URL wins)\n"
           "  --listen HOST:PORT   where to listen (default 127.0.0.1:8081); port 0 picks a\n"
           "                       free port; prints 'listening on IP:PORT' when ready\n"
           "  --access-log FILE    append one JSON line per request to FILE\n"
           "\n"
           "Fault injection, all off by default. Each decision depends only on --seed, the\n"
           "URL and how often that URL was requested before:\n"
           "  --seed N             seed of every random decision (default 1)\n"
           "  --latency-ms MEAN    delay each response by an exponential time, this mean\n"
           "  --error-rate R       answer this share of requests with 500 or 503\n"
           "  --reset-rate R       reset the connection halfway through this share of bodies\n"
           "  --slow-rate R        send this share of bodies in %d slow pieces ...\n"
           "  --slow-ms MS         ... spread over about MS milliseconds (default 2000)\n"
           "  --trap-host NAME     serve NAME as an endless calendar (a spider trap)\n"
           "  --huge-host NAME     serve every page of NAME as a 100 MB text/html body\n"
           "  --junk-host NAME     serve binary junk labelled text/html on NAME\n"
           "The three host options may be repeated.\n"
           "\n"
           "Stops cleanly on SIGINT or SIGTERM. More in docs/replay.md.\n",
           20);
}

/* Parse a number in [lo, hi]; 0 on failure. */
static int parse_num(const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (!*v || *end || errno || !isfinite(d) || d < lo || d > hi)
        return 0;
    *out = d;
    return 1;
}

static int add_host(const char *opt, const char **list, size_t *n, const char *name)
{
    if (!*name || strchr(name, '/') || strchr(name, ' '))
        return cli_usage_error("replay", "%s wants a host name, not '%s'", opt, name);
    if (*n == REPLAY_HOSTS_MAX)
        return cli_usage_error("replay", "at most %d %s options", REPLAY_HOSTS_MAX, opt);
    list[(*n)++] = name;
    return CLI_OK;
}

int cmd_replay(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"warc", required_argument, NULL, 'w'},
        {"listen", required_argument, NULL, 'l'},
        {"access-log", required_argument, NULL, 'a'},
        {"seed", required_argument, NULL, 's'},
        {"latency-ms", required_argument, NULL, 'L'},
        {"error-rate", required_argument, NULL, 'E'},
        {"reset-rate", required_argument, NULL, 'R'},
        {"slow-rate", required_argument, NULL, 'S'},
        {"slow-ms", required_argument, NULL, 'M'},
        {"trap-host", required_argument, NULL, 'T'},
        {"huge-host", required_argument, NULL, 'H'},
        {"junk-host", required_argument, NULL, 'J'},
        {NULL, 0, NULL, 0},
    };
    struct replay_config cfg = {.seed = 1};
    struct replayd_opts o = {0};
    double d;
    int c, rc;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'w':
            if (o.nwarcs == REPLAYD_WARCS_MAX)
                return cli_usage_error("replay", "at most %d --warc files", REPLAYD_WARCS_MAX);
            o.warcs[o.nwarcs++] = optarg;
            break;
        case 'l':
            cfg.listen = optarg;
            break;
        case 'a':
            cfg.access_log = optarg;
            break;
        case 's': {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (!*optarg || *end || errno || optarg[0] == '-')
                return cli_usage_error("replay", "--seed wants a non-negative integer, not '%s'",
                                       optarg);
            cfg.seed = v;
            break;
        }
        case 'L':
            if (!parse_num(optarg, 0, 600000, &cfg.latency_ms))
                return cli_usage_error("replay", "--latency-ms wants 0 to 600000, not '%s'",
                                       optarg);
            break;
        case 'E':
        case 'R':
        case 'S':
            if (!parse_num(optarg, 0, 1, &d))
                return cli_usage_error("replay", "--%s-rate wants a rate from 0 to 1, not '%s'",
                                       c == 'E'   ? "error"
                                       : c == 'R' ? "reset"
                                                  : "slow",
                                       optarg);
            *(c == 'E' ? &cfg.error_rate : c == 'R' ? &cfg.reset_rate : &cfg.slow_rate) = d;
            break;
        case 'M':
            if (!parse_num(optarg, 1, 600000, &d))
                return cli_usage_error("replay", "--slow-ms wants 1 to 600000, not '%s'", optarg);
            cfg.slow_ms = (unsigned)d;
            break;
        case 'T':
            if ((rc = add_host("--trap-host", cfg.trap_hosts, &cfg.ntrap, optarg)))
                return rc;
            break;
        case 'H':
            if ((rc = add_host("--huge-host", cfg.huge_hosts, &cfg.nhuge, optarg)))
                return rc;
            break;
        case 'J':
            if ((rc = add_host("--junk-host", cfg.junk_hosts, &cfg.njunk, optarg)))
                return rc;
            break;
        case ':':
            return cli_usage_error("replay", "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("replay", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("replay", "unexpected argument '%s'", argv[optind]);
    if (!o.nwarcs)
        return cli_usage_error("replay", "--warc FILE is required");

    o.cfg = cfg;
    if (replayd_run(&o) != ERR_OK)
        return cli_fail("replay", "%s", err_msg());
    return CLI_OK;
}
