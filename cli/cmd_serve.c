/* `sitescout serve`: the options of the HTTP API server (server/serve.h runs it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/num.h"
#include "cli/cmds.h"
#include "cli/opts.h"
#include "server/api.h"
#include "server/http.h"
#include "server/httpneg.h"
#include "server/serve.h"

void cmd_serve_usage(void)
{
    printf("usage: sitescout serve [--listen 127.0.0.1:8080] [--db URL] [--proxy URL]\n"
           "                       [--workers N] [--fetch-slots N] [--token T]\n"
           "                       [--conns-per-ip N] [--header-timeout S]\n"
           "                       [--cors-origin ORIGIN]\n"
           "                       [--warc-dir DIR [--warc-max-size BYTES]]\n"
           "\n"
           "Serve the HTTP API (docs/api.md) and run the jobs submitted to it, N at a time\n"
           "(each in its own worker; a worker with no job of its own helps other processes\n"
           "with theirs, as `sitescout worker` does). The running jobs share one fetcher fairly: "
           "while k jobs\n"
           "are fetching, each gets 1/k of the fetch slots (never more than its concurrency;\n"
           "slots a job cannot use at the moment go to the others), and a host's politeness\n"
           "delay holds across jobs. Jobs that were running when a previous server died\n"
           "are resumed on start. Without --db (or SITESCOUT_DB) it uses the embedded\n"
           "PostgreSQL.\n"
           "SIGINT or SIGTERM stops cleanly: running crawls are paused and resumed by the\n"
           "next start.\n"
           "\n"
           "Options:\n"
           "  --listen ADDR:PORT  IPv4 or [IPv6] address and port (port 0 picks a free one);\n"
           "                      default 127.0.0.1:8080, e.g. [::1]:8080. An address\n"
           "                      other than loopback needs --token\n"
           "  --db URL            PostgreSQL connection URL\n"
           "  --proxy URL         fetch through this proxy, SCHEME://HOST:PORT (http, https,\n"
           "                      socks4, socks4a, socks5, socks5h; e.g. the replay web); it\n"
           "                      resolves names, so only IP literals are checked here for\n"
           "                      private and own addresses (docs/crawl.md, Destinations)\n"
           "  --workers N         jobs run at once (0..%d); default 2. 0 serves the API\n"
           "                      and dashboard only: `sitescout worker` processes run\n"
           "                      the jobs (docs/deploy.md)\n"
           "  --fetch-slots N     transfers in flight for all jobs together (1..%d);\n"
           "                      default %d\n"
           "  --token T           every API call needs 'Authorization: Bearer T'\n"
           "                      (or SITESCOUT_TOKEN=T in the environment, which ps does\n"
           "                      not show)\n"
           "  --cors-origin ORIGIN  browsers on this origin (e.g. https://dash.example.org)\n"
           "                      may call the API: its requests get CORS headers and its\n"
           "                      preflight OPTIONS an answer without the token (or\n"
           "                      SITESCOUT_CORS_ORIGIN=ORIGIN in the environment); other\n"
           "                      origins get no CORS headers. Default: none\n"
           "  --conns-per-ip N    connections one client address may hold open (1..%d);\n"
           "                      more are closed at once. Default %d\n"
           "  --header-timeout S  seconds a request's line and headers may take to arrive,\n"
           "                      however steadily they trickle in (1..%d); then the\n"
           "                      connection is closed. Default %d\n"
           "  --warc-dir DIR      jobs with the parameter \"warc\": true archive every fetch\n"
           "                      as WARC/1.1 files DIR/sitescout-job-ID-NNNNN.warc.gz\n"
           "                      (docs/crawl.md, WARC capture); without it such jobs get 422\n"
           "  --warc-max-size BYTES  start a new WARC file past this size; default 1 GiB\n"
           "  --print-routes      print the routes the API serves and exit\n"
           "\n"
           "At most %d connections are open at once (fewer when half the open-file limit\n"
           "is lower); a request body must arrive within %d s of its headers.\n"
           "Prints 'listening on ADDR:PORT' on stdout when ready.\n",
           SERVE_MAX_WORKERS, SERVE_MAX_SLOTS, SERVE_DEFAULT_SLOTS, HTTP_MAX_CONNS_PER_IP,
           HTTP_DEFAULT_CONNS_PER_IP, HTTP_MAX_HEADER_SECONDS, HTTP_DEFAULT_HEADER_SECONDS,
           HTTP_MAX_CONNECTIONS, HTTP_BODY_SECONDS);
}

static void print_routes(void)
{
    for (int i = 0; i < api_routes_count; i++)
        printf("%s %s\n", api_routes[i].method, api_routes[i].pattern);
}

/* --listen ADDRESS:PORT or [IPV6]:PORT into host (of size n, no brackets) and *port;
 * 0 if it is not one. */
static int parse_listen(const char *listen, char *host, size_t n, int *port)
{
    const char *colon = strrchr(listen, ':');
    int p;
    if (!colon || colon == listen || !num_parse_int(colon + 1, 0, 65535, &p))
        return 0;
    const char *h = listen;
    size_t hn = (size_t)(colon - listen);
    if (*h == '[') { /* [::1]:8080 */
        if (hn < 3 || h[hn - 1] != ']')
            return 0;
        h++, hn -= 2;
    }
    if (hn >= n)
        return 0;
    snprintf(host, n, "%.*s", (int)hn, h);
    *port = p;
    return 1;
}

static void announce(void *ctx, const char *host, int port)
{
    (void)ctx;
    if (strchr(host, ':'))
        printf("listening on [%s]:%d\n", host, port);
    else
        printf("listening on %s:%d\n", host, port);
    fflush(stdout);
}

int cmd_serve(int argc, char **argv)
{
    const char *listen = "127.0.0.1:8080";
    int routes = 0;
    const char *proxy = NULL;
    int fetch_slots = SERVE_DEFAULT_SLOTS;
    struct serve_opts o = {.workers = SERVE_DEFAULT_WORKERS,
                           .conns_per_ip = HTTP_DEFAULT_CONNS_PER_IP,
                           .header_seconds = HTTP_DEFAULT_HEADER_SECONDS,
                           .ready = announce};
    const struct opts_entry tab[] = {
        OPTS_STRING("listen", &listen),
        OPTS_STRING("db", &o.db_url),
        OPTS_STRING("proxy", &proxy),
        OPTS_INT("workers", &o.workers, 0, SERVE_MAX_WORKERS, "0.." OPTS_STR(SERVE_MAX_WORKERS)),
        OPTS_INT("fetch-slots", &fetch_slots, 1, SERVE_MAX_SLOTS, "1.." OPTS_STR(SERVE_MAX_SLOTS)),
        OPTS_STRING("token", &o.token),
        OPTS_STRING("cors-origin", &o.cors_origin),
        OPTS_INT("conns-per-ip", &o.conns_per_ip, 1, HTTP_MAX_CONNS_PER_IP,
                 "1.." OPTS_STR(HTTP_MAX_CONNS_PER_IP)),
        OPTS_INT("header-timeout", &o.header_seconds, 1, HTTP_MAX_HEADER_SECONDS,
                 "1.." OPTS_STR(HTTP_MAX_HEADER_SECONDS)),
        OPTS_FLAG("print-routes", &routes),
        OPTS_STRING("warc-dir", &o.warc_dir),
        OPTS_UINT64("warc-max-size", &o.warc_max_size, "a size in bytes"),
    };
    const struct opts_parser parser = {"serve", tab, sizeof tab / sizeof tab[0], OPTS_ERR_JOINT,
                                       .max_args = 0};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    if ((rc = cli_check_proxy("serve", proxy)))
        return rc;
    if (routes) {
        print_routes();
        return CLI_OK;
    }
    if ((rc = cli_check_warc("serve", o.warc_dir, o.warc_max_size)))
        return rc;
    if (!o.token) /* not on the command line, where `ps` shows it to every user */
        o.token = getenv("SITESCOUT_TOKEN");
    if (!o.cors_origin)
        o.cors_origin = getenv("SITESCOUT_CORS_ORIGIN");
    if (o.cors_origin && !*o.cors_origin)
        o.cors_origin = NULL;
    if (o.cors_origin && !httpneg_origin_ok(o.cors_origin))
        return cli_usage_error("serve",
                               "--cors-origin wants an origin as browsers send it, "
                               "http[s]://HOST[:PORT] in lower case without a path, not '%.200s'",
                               o.cors_origin);
    char host[64];
    if (!parse_listen(listen, host, sizeof host, &o.port))
        return cli_usage_error("serve", "--listen wants ADDRESS:PORT, not '%s'", listen);
    if (strncmp(host, "127.", 4) != 0 && strcmp(host, "::1") != 0 && (!o.token || !*o.token))
        return cli_usage_error("serve", "listening on %s (not loopback) needs --token", host);
    o.host = host;
    (void)cli_probe_proxy("serve", proxy, 0);
    return cli_serve("serve", &o, proxy, fetch_slots);
}
