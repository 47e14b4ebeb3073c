/* The job scheduler of `sitescout serve`: worker threads running the runnable jobs. */
#include "server/sched.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "crawler/fetch.h"
#include "job/jobrun.h"
#include "store/apistore.h"
#include "store/crawlstore.h"
#include "store/store.h"

struct worker {
    struct sched *sc;
    int slot;
    pthread_t thread;
    struct store *s;
    int64_t job;
    int pause_sent; /* we paused the job because the server stops */
};

/* Shared by the workers: running and the orphans under mu. */
struct sched {
    pthread_mutex_t mu;
    const char *url;
    struct fetch_pool *pool;
    int64_t running[SCHED_MAX_WORKERS]; /* by worker slot; 0 when idle */
    int64_t *orphans;                   /* jobs a dead process left running, taken first */
    size_t n_orphans;
    atomic_int stopping;
    struct worker *workers;
    int n_workers, started;
};

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int is_running(const struct sched *sc, int64_t id)
{
    for (int i = 0; i < SCHED_MAX_WORKERS; i++)
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
    if (w->sc->stopping && !w->pause_sent) {
        w->pause_sent = 1;
        if (crawlstore_job_request(w->s, w->job, "pause") != ERR_OK)
            log_warn("serve: job %" PRId64 ": cannot pause: %s", w->job, err_msg());
    }
}

static void run_job(struct worker *w, int64_t id)
{
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

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    while (!w->sc->stopping) {
        if (!w->s && store_open(w->sc->url, 2000, &w->s) != ERR_OK) {
            log_warn("serve: worker %d: %s", w->slot, err_msg());
            sleep_ms(1000);
            continue;
        }
        int64_t id = pick(w);
        if (id)
            run_job(w, id);
        else
            sleep_ms(500);
    }
    store_free(w->s);
    w->s = NULL;
    return NULL;
}

/* Oldest first: pick() takes from the end. */
static void reverse(int64_t *ids, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        int64_t t = ids[i];
        ids[i] = ids[n - 1 - i];
        ids[n - 1 - i] = t;
    }
}

enum err sched_new(const struct sched_config *c, struct store *s, struct sched **out)
{
    *out = NULL;
    struct sched *sc = calloc(1, sizeof *sc);
    if (!sc)
        return err_set(ERR_NOMEM, "out of memory");
    pthread_mutex_init(&sc->mu, NULL);
    sc->url = c->db_url;
    sc->n_workers = c->workers;
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = c->proxy;
    fc.max_in_flight = c->fetch_slots;
    enum err e = fetch_pool_new(&fc, &sc->pool);
    if (!e)
        e = apistore_runnable(s, 1, &sc->orphans, &sc->n_orphans);
    if (!e && !(sc->workers = calloc((size_t)c->workers, sizeof *sc->workers)))
        e = err_set(ERR_NOMEM, "out of memory");
    if (e) {
        sched_free(sc);
        return e;
    }
    reverse(sc->orphans, sc->n_orphans);
    if (sc->n_orphans)
        log_info("serve: %zu job(s) to resume", sc->n_orphans);
    *out = sc;
    return ERR_OK;
}

enum err sched_start(struct sched *sc)
{
    for (; sc->started < sc->n_workers; sc->started++) {
        struct worker *w = &sc->workers[sc->started];
        w->sc = sc;
        w->slot = sc->started;
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            return err_set(ERR_IO, "cannot start a worker thread");
    }
    return ERR_OK;
}

void sched_stop(struct sched *sc)
{
    if (sc)
        sc->stopping = 1;
}

void sched_free(struct sched *sc)
{
    if (!sc)
        return;
    sched_stop(sc);
    for (int i = 0; i < sc->started; i++)
        pthread_join(sc->workers[i].thread, NULL);
    free(sc->workers);
    fetch_pool_free(sc->pool);
    free(sc->orphans);
    pthread_mutex_destroy(&sc->mu);
    free(sc);
}
