/* `serve`'s label judge (labeljudge.h). */
#include "server/labeljudge.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "job/joblabels.h"
#include "store/dbopen.h"
#include "store/labelstore.h"
#include "store/store.h"

#define LOOK_MS  250 /* how often it looks for labels to judge */
#define JOBS_MAX 16  /* jobs judged in one look */

struct labeljudge {
    const char *url;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stopping;
};

/* Wait ms or until stopped; 1 when stopped. */
static int wait_ms(struct labeljudge *lj, int ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += (long)ms * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&lj->lock);
    while (!lj->stopping && pthread_cond_timedwait(&lj->wake, &lj->lock, &until) != ETIMEDOUT)
        ;
    int stopped = lj->stopping;
    pthread_mutex_unlock(&lj->lock);
    return stopped;
}

static void look(struct labeljudge *lj, struct store *s)
{
    int64_t ids[JOBS_MAX];
    int n;
    if (labelstore_due(s, JOBLABELS_SETTLE_MS, ids, JOBS_MAX, &n) != ERR_OK) {
        log_warn("labels: %s", err_msg());
        return;
    }
    for (int i = 0; i < n && !lj->stopping; i++) {
        int judged;
        struct jobjudge_result r;
        if (joblabels_judge(s, ids[i], JOBLABELS_SETTLE_MS, &judged, &r) != ERR_OK)
            log_warn("labels: job %lld: %s", (long long)ids[i], err_msg());
        else if (judged)
            log_info("labels: job %lld judged again, learning from its labels: %lld verdicts"
                     " changed, %lld relevant",
                     (long long)ids[i], (long long)r.changed, (long long)r.relevant);
        jobjudge_model_free(r.model);
    }
}

static void *labeljudge_main(void *arg)
{
    struct labeljudge *lj = arg;
    struct store *s = NULL;
    while (!wait_ms(lj, LOOK_MS)) {
        if (!s && dbopen_open(lj->url, NULL, &s) != ERR_OK) {
            log_warn("labels: %s", err_msg());
            s = NULL;
            continue;
        }
        look(lj, s);
    }
    store_free(s);
    return NULL;
}

enum err labeljudge_start(const char *url, struct labeljudge **out)
{
    *out = NULL;
    struct labeljudge *lj = calloc(1, sizeof *lj);
    if (!lj)
        return err_set(ERR_NOMEM, "out of memory");
    lj->url = url;
    pthread_mutex_init(&lj->lock, NULL);
    pthread_cond_init(&lj->wake, NULL);
    if (pthread_create(&lj->thread, NULL, labeljudge_main, lj) != 0) {
        pthread_cond_destroy(&lj->wake);
        pthread_mutex_destroy(&lj->lock);
        free(lj);
        return err_set(ERR_IO, "cannot start the label judge's thread");
    }
    *out = lj;
    return ERR_OK;
}

void labeljudge_stop(struct labeljudge *lj)
{
    if (!lj)
        return;
    pthread_mutex_lock(&lj->lock);
    lj->stopping = 1;
    pthread_cond_signal(&lj->wake);
    pthread_mutex_unlock(&lj->lock);
    pthread_join(lj->thread, NULL);
    pthread_cond_destroy(&lj->wake);
    pthread_mutex_destroy(&lj->lock);
    free(lj);
}
