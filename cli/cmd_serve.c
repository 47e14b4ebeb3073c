/* `sitescout serve`: the HTTP API (docs/api.md) and the workers that run its jobs. */
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "crawler/fetch.h"
#include "server/api.h"
#include "cli/cli.h"
#include "cli/db.h"
#include "store/dbpool.h"
#include "server/http.h"
#include "job/jobrun.h"
#include "store/apistore.h"
#include "store/crawlstore.h"
#include "store/store.h"

#define SERVE_MAX_WORKERS 64
#define SERVE_MAX_SLOTS 10000
#define SERVE_DEFAULT_SLOTS 128

void cmd_serve_usage(void)
{
    printf("usage: sitescout serve [--listen 127.0.0.1:8080] [--db URL] [--proxy URL]\n"
           "                       [--workers N] [--fetch-slots N] [--token T]\n"
           "\n"
           "Serve the HTTP API (docs/api.md) and run the jobs submitted to it, N at a time\n"
           "(each in its own worker). The running jobs share one fetcher fairly: while k jobs\n"
           "are fetching, each gets 1/k of the fetch slots (never more than its concurrency;\n"
           "slots a job cannot use at the moment go to the others), and a host's politeness\n"
           "delay holds across jobs. Jobs that were running when a previous server died\n"
           "are resumed on start. Without --db (or SITESCOUT_DB) it uses the embedded\n"
           "PostgreSQL.\n"
           "SIGINT or SIGTERM stops cleanly: running crawls are paused and resumed by the\n"
           "next start.\n"
           "\n"
           "Options:\n"
           "  --listen ADDR:PORT  IPv4 address and port (port 0 picks a free one); default\n"
           "                      127.0.0.1:8080. A non-loopback address needs --token\n"
           "  --db URL            PostgreSQL connection URL\n"
           "  --proxy URL         fetch through this HTTP proxy (e.g. the replay web)\n"
           "  --workers N         jobs run at once (1..%d); default 2\n"
           "  --fetch-slots N     transfers in flight for all jobs together (1..%d);\n"
           "                      default %d\n"
           "  --token T           every API call needs 'Authorization: Bearer T'\n"
           "  --print-routes      print the routes the API serves and exit\n"
           "\n"
           "Prints 'listening on ADDR:PORT' on stdout when ready.\n",
           SERVE_MAX_WORKERS, SERVE_MAX_SLOTS, SERVE_DEFAULT_SLOTS);
}

/* Set by the signal handler; the main thread passes it on to the workers in stopping. */
static volatile sig_atomic_t signalled;
static atomic_int stopping;

static void on_signal(int sig)
{
    (void)sig;
    signalled = 1;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The job runners: shared state under mu. */
struct sched {
    pthread_mutex_t mu;
    const char *url;
    struct fetch_pool *pool; /* shared by the jobs */
    int64_t running[SERVE_MAX_WORKERS];
    int64_t *orphans; /* jobs a dead process left running, taken first */
    size_t n_orphans;
};

struct worker {
    struct sched *sc;
    int slot;
    pthread_t thread;
    struct store *s;
    int64_t job;
    int pause_sent; /* we paused the job because the server stops */
};

static int is_running(const struct sched *sc, int64_t id)
{
    for (int i = 0; i < SERVE_MAX_WORKERS; i++)
        if (sc->running[i] == id)
            return 1;
    return 0;
}

/* The next job for this worker, or 0. */
static int64_t pick(struct worker *w)
{
    struct sched *sc = w->sc;
    int64_t id = 0;
    pthread_mutex_lock(&sc->mu);
    while (!id && sc->n_orphans)
        id = sc->orphans[--sc->n_orphans];
    if (!id) {
        int64_t *ids;
        size_t n;
        if (apistore_runnable(w->s, 0, &ids, &n) != ERR_OK) {
            log_warn("serve: cannot look for jobs: %s", err_msg());
        } else {
            for (size_t i = 0; i < n && !id; i++)
                if (!is_running(sc, ids[i]))
                    id = ids[i];
            free(ids);
        }
    }
    if (id)
        sc->running[w->slot] = id;
    pthread_mutex_unlock(&sc->mu);
    return id;
}

static void on_progress(void *ctx, const struct jobrun_progress *p)
{
    struct worker *w = ctx;
    (void)p;
    if (stopping && !w->pause_sent) {
        w->pause_sent = 1;
        if (crawlstore_job_request(w->s, w->job, "pause") != ERR_OK)
            log_warn("serve: job %" PRId64 ": cannot pause: %s", w->job, err_msg());
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    while (!stopping) {
        if (!w->s && store_open(w->sc->url, 2000, &w->s) != ERR_OK) {
            log_warn("serve: worker %d: %s", w->slot, err_msg());
            sleep_ms(1000);
            continue;
        }
        int64_t id = pick(w);
        if (!id) {
            sleep_ms(500);
            continue;
        }
        w->job = id;
        w->pause_sent = 0;
        log_info("serve: worker %d runs job %" PRId64, w->slot, id);
        struct jobrun_options o = {.pool = w->sc->pool, .progress = on_progress, .ctx = w};
        enum crawl_stop why;
        enum err e = jobrun_run(w->s, id, &o, &why);
        if (e)
            log_warn("serve: job %" PRId64 ": %s", id, err_msg());
        else if (w->pause_sent && why == CRAWL_USER_PAUSE &&
                 apistore_job_resume(w->s, id) != ERR_OK) /* the next start runs it on */
            log_warn("serve: job %" PRId64 ": %s", id, err_msg());
        if (e == ERR_DB) { /* a fresh connection for the next job */
            store_free(w->s);
            w->s = NULL;
        }
        pthread_mutex_lock(&w->sc->mu);
        w->sc->running[w->slot] = 0;
        pthread_mutex_unlock(&w->sc->mu);
    }
    store_free(w->s);
    w->s = NULL;
    return NULL;
}

int cmd_serve(int argc, char **argv)
{
    const char *listen = "127.0.0.1:8080", *db_url = NULL, *proxy = NULL, *token = NULL;
    int workers = 2, slots = SERVE_DEFAULT_SLOTS, print_routes = 0;
    static const struct option opts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"db", required_argument, NULL, 'd'},
        {"proxy", required_argument, NULL, 'p'},
        {"workers", required_argument, NULL, 'w'},
        {"fetch-slots", required_argument, NULL, 's'},
        {"token", required_argument, NULL, 't'},
        {"print-routes", no_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'l':
            listen = optarg;
            break;
        case 'd':
            db_url = optarg;
            break;
        case 'p':
            proxy = optarg;
            break;
        case 't':
            token = optarg;
            break;
        case 'R':
            print_routes = 1;
            break;
        case 'w': {
            long n;
            if (!cli_parse_long(optarg, 1, SERVE_MAX_WORKERS, &n))
                return cli_usage_error("serve", "--workers wants 1..%d, not '%s'",
                                       SERVE_MAX_WORKERS, optarg);
            workers = (int)n;
            break;
        }
        case 's': {
            long n;
            if (!cli_parse_long(optarg, 1, SERVE_MAX_SLOTS, &n))
                return cli_usage_error("serve", "--fetch-slots wants 1..%d, not '%s'",
                                       SERVE_MAX_SLOTS, optarg);
            slots = (int)n;
            break;
        }
        default:
            return cli_usage_error("serve", "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
    if (print_routes) {
        for (int i = 0; i < api_routes_count; i++)
            printf("%s %s\n", api_routes[i].method, api_routes[i].pattern);
        return CLI_OK;
    }
    char host[64];
    const char *colon = strrchr(listen, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || colon == listen || (size_t)(colon - listen) >= sizeof host || !colon[1] || *end ||
        port < 0 || port > 65535)
        return cli_usage_error("serve", "--listen wants ADDRESS:PORT, not '%s'", listen);
    snprintf(host, sizeof host, "%.*s", (int)(colon - listen), listen);
    if (strncmp(host, "127.", 4) != 0 && (!token || !*token))
        return cli_usage_error("serve", "listening on %s (not loopback) needs --token", host);

    char *url = NULL;
    struct store *s = NULL;
    struct dbpool *pool = NULL;
    struct http *h = NULL;
    struct worker *ws = NULL;
    int started = 0, rc = CLI_FAIL;
    struct sched sc = {0};
    pthread_mutex_init(&sc.mu, NULL);
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = proxy;
    fc.max_in_flight = slots;
    enum err e = fetch_pool_new(&fc, &sc.pool);
    if (!e)
        e = db_resolve_url(db_url, NULL, &url);
    if (!e)
        e = db_open(url, NULL, &s); /* brings the schema up to date */
    if (!e)
        e = apistore_runnable(s, 1, &sc.orphans, &sc.n_orphans);
    if (!e)
        e = dbpool_new(url, 8, &pool);
    if (e) {
        rc = cli_fail("serve", "%s", err_msg());
        goto out;
    }
    store_free(s);
    s = NULL;
    /* Oldest first: pick() takes from the end. */
    for (size_t i = 0; i < sc.n_orphans / 2; i++) {
        int64_t t = sc.orphans[i];
        sc.orphans[i] = sc.orphans[sc.n_orphans - 1 - i];
        sc.orphans[sc.n_orphans - 1 - i] = t;
    }
    if (sc.n_orphans)
        log_info("serve: %zu job(s) to resume", sc.n_orphans);
    sc.url = url;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct api_config cfg = {.pool = pool, .token = token};
    int bound = 0;
    if (http_start(host, (int)port, 4, api_handle, &cfg, &h, &bound) != ERR_OK) {
        rc = cli_fail("serve", "%s", err_msg());
        goto out;
    }
    ws = calloc((size_t)workers, sizeof *ws);
    if (!ws) {
        rc = cli_fail("serve", "out of memory");
        goto out;
    }
    for (; started < workers; started++) {
        ws[started].sc = &sc;
        ws[started].slot = started;
        if (pthread_create(&ws[started].thread, NULL, worker_main, &ws[started]) != 0) {
            rc = cli_fail("serve", "cannot start a worker thread");
            stopping = 1;
            goto out;
        }
    }
    printf("listening on %s:%d\n", host, bound);
    fflush(stdout);
    while (!signalled)
        sleep_ms(100);
    log_info("serve: stopping");
    rc = CLI_OK;
out:
    stopping = 1;
    http_stop(h); /* no new requests; the workers pause their jobs */
    for (int i = 0; i < started; i++)
        pthread_join(ws[i].thread, NULL);
    free(ws);
    fetch_pool_free(sc.pool);
    dbpool_free(pool);
    store_free(s);
    free(sc.orphans);
    pthread_mutex_destroy(&sc.mu);
    free(url);
    return rc;
}
