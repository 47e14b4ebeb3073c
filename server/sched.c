/* The job scheduler of `sitescout serve`: worker threads running the runnable jobs. */
#include "server/sched.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "common/monotime.h"
#include "job/jobrun.h"
#include "store/apistore.h"
#include "store/crawlstore.h"
#include "store/joblease.h"
#include "store/jobteam.h"
#include "store/runner.h"
#include "store/store.h"

#define SKIP_S 10 /* a job whose budget a helper found spent is not helped again before */

struct worker {
    struct sched *sc;
    int slot;
    pthread_t thread;
    struct store *s;
    int64_t job;       /* the job it runs (0: none), under sched.mu */
    int helper;        /* ... as a helper beside its lead (store/jobteam.h) */
    int pause_sent;    /* we paused the job because the server stops */
    int64_t skip;      /* a job it helped until its budget was spent ... */
    double skip_until; /* ... is not helped again before then */
    char name[160];    /* its worker name, the holder of its job's lease (store/joblease.h) */
};

/* Shared by the workers. */
struct sched {
    const char *url;
    const char *warc_dir; /* borrowed, see struct sched_config */
    uint64_t warc_max_size;
    struct fetch_pool *pool; /* borrowed, see struct sched_config */
    pthread_mutex_t mu;      /* picking a job: no two workers of this process run one job */
    atomic_int stopping;
    struct worker *workers;
    int n_workers, started;
};

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/*
 * The next job for this worker, or 0: a runnable job taken with its lead's lease in one
 * statement, so no other worker, of this process or another, leads it too
 * (store/joblease.h); jobs a dead process left training or crawling are taken as soon
 * as their lease runs out (at once when that process was on this host). Else a job
 * being crawled by another process, to examine its websites beside it as a helper
 * (store/jobteam.h), one this process does not run yet.
 */
static int64_t pick(struct worker *w)
{
    struct sched *sc = w->sc;
    int64_t id = 0, busy[SCHED_MAX_WORKERS + 1];
    size_t n = 0;
    pthread_mutex_lock(&sc->mu);
    w->helper = 0;
    if (joblease_take_next(w->s, w->name, &id) != ERR_OK)
        log_warn("serve: cannot look for jobs: %s", err_msg());
    if (!id) {
        for (int i = 0; i < sc->started; i++)
            if (sc->workers[i].job)
                busy[n++] = sc->workers[i].job;
        if (w->skip && monotime_s() < w->skip_until)
            busy[n++] = w->skip;
        if (jobteam_pick(w->s, busy, n, &id) != ERR_OK)
            log_warn("serve: cannot look for jobs to help: %s", err_msg());
        w->helper = id != 0;
    }
    w->job = id;
    pthread_mutex_unlock(&sc->mu);
    return id;
}

static void on_progress(void *ctx, const struct jobrun_progress *p)
{
    struct worker *w = ctx;
    (void)p;
    if (w->sc->stopping && !w->helper && !w->pause_sent) { /* a helper just leaves */
        w->pause_sent = 1;
        if (crawlstore_job_request(w->s, w->job, "pause") != ERR_OK)
            log_warn("serve: job %" PRId64 ": cannot pause: %s", w->job, err_msg());
    }
}

static void run_job(struct worker *w, int64_t id)
{
    w->pause_sent = 0;
    log_info("serve: worker %d %s job %" PRId64, w->slot, w->helper ? "helps with" : "runs", id);
    struct jobrun_options o = {.pool = w->sc->pool,
                               .worker = w->name,
                               .progress = on_progress,
                               .ctx = w,
                               .warc_dir = w->sc->warc_dir,
                               .warc_max_size = w->sc->warc_max_size,
                               .quit = w->helper ? &w->sc->stopping : NULL};
    enum crawl_stop why;
    enum err e = w->helper ? jobrun_help(w->s, id, &o, &why) : jobrun_run(w->s, id, &o, &why);
    if (e)
        log_warn("serve: job %" PRId64 ": %s", id, err_msg());
    else if (w->pause_sent && why == CRAWL_USER_PAUSE &&
             apistore_job_resume(w->s, id) != ERR_OK) /* the next start runs it on */
        log_warn("serve: job %" PRId64 ": %s", id, err_msg());
    else if (w->helper)
        log_info("serve: worker %d left job %" PRId64 " (%s)", w->slot, id, crawl_stop_name(why));
    if (w->helper && why == CRAWL_MAX_PAGES) { /* the lead ends it soon */
        w->skip = id;
        w->skip_until = monotime_s() + SKIP_S;
    }
    if (e == ERR_DB) { /* a fresh connection for the next job */
        store_free(w->s);
        w->s = NULL;
    }
    pthread_mutex_lock(&w->sc->mu);
    int helped = w->helper;
    w->job = 0;
    pthread_mutex_unlock(&w->sc->mu);
    if (helped) /* a job it helped ends with its lead: not at once again */
        sleep_ms(500);
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

enum err sched_new(const struct sched_config *c, struct sched **out)
{
    *out = NULL;
    struct sched *sc = calloc(1, sizeof *sc);
    if (!sc)
        return err_set(ERR_NOMEM, "out of memory");
    sc->url = c->db_url;
    sc->warc_dir = c->warc_dir;
    sc->warc_max_size = c->warc_max_size;
    sc->n_workers = c->workers;
    pthread_mutex_init(&sc->mu, NULL);
    sc->pool = c->pool;
    if (!(sc->workers = calloc((size_t)c->workers + 1, sizeof *sc->workers))) {
        sched_free(sc);
        return err_set(ERR_NOMEM, "out of memory");
    }
    *out = sc;
    return ERR_OK;
}

enum err sched_start(struct sched *sc)
{
    /* Only this thread writes started; the workers already running read it in pick(),
     * under mu. */
    while (sc->started < sc->n_workers) {
        struct worker *w = &sc->workers[sc->started];
        w->sc = sc;
        w->slot = sc->started;
        runner_name(w->name, sizeof w->name, w->slot);
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            return err_set(ERR_IO, "cannot start a worker thread");
        pthread_mutex_lock(&sc->mu);
        sc->started++;
        pthread_mutex_unlock(&sc->mu);
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
    pthread_mutex_destroy(&sc->mu);
    free(sc);
}
