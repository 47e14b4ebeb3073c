/* One statement at a time on a connection and a thread of its own. */
#include "store/bgexec.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "store/store.h"

struct bgexec {
    char *url;
    struct store *conn; /* the thread's while it runs */
    const char *sql;
    pthread_t thread;
    int started; /* a thread to join */
    int busy;    /* it has not finished its statement */
    pthread_mutex_t mu;
};

enum err bgexec_new(const struct store *s, struct bgexec **out)
{
    *out = NULL;
    struct bgexec *b = calloc(1, sizeof *b);
    if (!b || !(b->url = strdup(store_url(s)))) {
        free(b);
        return err_set(ERR_NOMEM, "out of memory");
    }
    pthread_mutex_init(&b->mu, NULL);
    *out = b;
    return ERR_OK;
}

static void *run(void *arg)
{
    struct bgexec *b = arg;
    enum err e = b->conn ? ERR_OK : store_open(b->url, 0, &b->conn);
    if (!e)
        e = store_exec(b->conn, b->sql, 0, NULL);
    if (e)
        log_warn("store: %.40s: %s", b->sql, err_msg());
    pthread_mutex_lock(&b->mu);
    b->busy = 0;
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

int bgexec_run(struct bgexec *b, const char *sql)
{
    pthread_mutex_lock(&b->mu);
    int busy = b->busy;
    pthread_mutex_unlock(&b->mu);
    if (busy)
        return 0;
    bgexec_wait(b); /* the last thread has finished: join it */
    b->sql = sql;
    b->busy = 1;
    if (pthread_create(&b->thread, NULL, run, b) != 0) {
        b->busy = 0;
        log_warn("store: %.40s: no thread to run it", sql);
        return 0;
    }
    b->started = 1;
    return 1;
}

void bgexec_wait(struct bgexec *b)
{
    if (b->started)
        pthread_join(b->thread, NULL);
    b->started = 0;
}

void bgexec_free(struct bgexec *b)
{
    if (!b)
        return;
    bgexec_wait(b);
    store_free(b->conn);
    pthread_mutex_destroy(&b->mu);
    free(b->url);
    free(b);
}
