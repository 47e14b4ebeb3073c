/* `sitescout serve`'s lifecycle: database, API, scheduler, and a clean stop on a signal. */
#include "server/serve.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/log.h"
#include "server/api.h"
#include "server/apirefresh.h"
#include "server/labeljudge.h"
#include "server/http.h"
#include "store/dbopen.h"
#include "store/dbpool.h"
#include "store/store.h"

static volatile sig_atomic_t signalled;

static void on_signal(int sig)
{
    (void)sig;
    signalled = 1;
}

/* Before the API listens: whoever saw it ready may signal at once. */
static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/*
 * Connections and fetches each take a descriptor; the soft limit is often 1024 while
 * the hard one is far higher. The HTTP server takes at most half of what this leaves.
 */
static void raise_open_files(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        rl.rlim_cur = want;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            log_warn("serve: cannot raise the limit of open files: %s", strerror(errno));
    }
}

static void wait_for_signal(void)
{
    struct timespec tick = {0, 100 * 1000000L};
    while (!signalled)
        nanosleep(&tick, NULL);
}

/* Bring the schema up to date and make the scheduler. */
static enum err prepare(const struct serve_opts *o, const char *url, struct sched **sc)
{
    struct store *s;
    enum err e = dbopen_open(url, NULL, &s);
    if (!e) {
        struct sched_config c = {.db_url = url,
                                 .workers = o->workers,
                                 .pool = o->pool,
                                 .warc_dir = o->warc_dir,
                                 .warc_max_size = o->warc_max_size};
        e = sched_new(&c, sc);
    }
    store_free(s);
    return e;
}

enum err serve_run(const struct serve_opts *o)
{
    struct sched *sc = NULL;
    struct dbpool *pool = NULL;
    struct http *h = NULL;
    char *url = NULL;
    enum err e = dbopen_resolve_url(o->db_url, NULL, &url);
    if (!e)
        e = prepare(o, url, &sc);
    if (!e && !o->no_api)
        e = dbpool_new(url, 8, &pool);
    struct api_config cfg = {.pool = pool,
                             .token = o->token,
                             .warc = o->warc_dir != NULL,
                             .cors_origin = o->cors_origin};
    if (!e && !o->no_api)
        e = apirefresh_start(api_refresh, &cfg, &cfg.refresh);
    int bound = 0;
    if (!e) {
        catch_signals();
        raise_open_files();
    }
    if (!e && !o->no_api) {
        struct http_config hc = {.host = o->host,
                                 .port = o->port,
                                 .threads = 4,
                                 .conns_per_ip = o->conns_per_ip,
                                 .header_seconds = o->header_seconds,
                                 .fn = api_handle,
                                 .ctx = &cfg};
        e = http_start(&hc, &h, &bound);
    }
    struct labeljudge *lj = NULL; /* the jobs nobody runs learn from their labels here */
    if (!e && !o->no_api)
        e = labeljudge_start(url, &lj);
    if (!e)
        e = sched_start(sc);
    if (e)
        goto out;
    if (o->ready)
        o->ready(o->ctx, o->no_api ? NULL : o->host, bound);
    wait_for_signal();
    log_info("serve: stopping");
out:
    sched_stop(sc);
    http_stop(h); /* no new requests; the workers pause their jobs */
    apirefresh_stop(cfg.refresh);
    labeljudge_stop(lj);
    sched_free(sc);
    dbpool_free(pool);
    free(url);
    return e;
}
