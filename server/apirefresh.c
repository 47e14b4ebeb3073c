/* The API's background refresher (see apirefresh.h). */
#include "server/apirefresh.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct refresh {
    struct refresh *next;
    char *path;
    char *args[2 * APIREFRESH_ARGS_MAX + 1];
};

struct apirefresh {
    apirefresh_fn fn;
    void *ctx;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct refresh *head, *tail;
    int queued, stopping;
};

static void refresh_free(struct refresh *r)
{
    if (!r)
        return;
    free(r->path);
    for (int i = 0; r->args[i]; i++)
        free(r->args[i]);
    free(r);
}

static void *refresher_main(void *arg)
{
    struct apirefresh *rf = arg;
    pthread_mutex_lock(&rf->lock);
    for (;;) {
        while (!rf->head && !rf->stopping)
            pthread_cond_wait(&rf->wake, &rf->lock);
        if (rf->stopping)
            break;
        struct refresh *r = rf->head;
        rf->head = r->next;
        if (!rf->head)
            rf->tail = NULL;
        rf->queued--;
        pthread_mutex_unlock(&rf->lock);
        rf->fn(rf->ctx, r->path, (const char *const *)r->args);
        refresh_free(r);
        pthread_mutex_lock(&rf->lock);
    }
    pthread_mutex_unlock(&rf->lock);
    return NULL;
}

enum err apirefresh_start(apirefresh_fn fn, void *ctx, struct apirefresh **out)
{
    *out = NULL;
    struct apirefresh *rf = calloc(1, sizeof *rf);
    if (!rf)
        return err_set(ERR_NOMEM, "out of memory");
    rf->fn = fn;
    rf->ctx = ctx;
    pthread_mutex_init(&rf->lock, NULL);
    pthread_cond_init(&rf->wake, NULL);
    if (pthread_create(&rf->thread, NULL, refresher_main, rf) != 0) {
        pthread_cond_destroy(&rf->wake);
        pthread_mutex_destroy(&rf->lock);
        free(rf);
        return err_set(ERR_IO, "cannot start the API's refresher thread");
    }
    *out = rf;
    return ERR_OK;
}

/* A copy of path and args, or NULL. */
static struct refresh *refresh_new(const char *path, const char *const *args)
{
    struct refresh *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return NULL;
    }
    for (int i = 0; args && args[i]; i++) {
        if (i == 2 * APIREFRESH_ARGS_MAX || !(r->args[i] = strdup(args[i]))) {
            refresh_free(r);
            return NULL;
        }
    }
    return r;
}

int apirefresh_submit(struct apirefresh *rf, const char *path, const char *const *args)
{
    if (!rf)
        return 0;
    struct refresh *r = refresh_new(path, args);
    if (!r)
        return 0;
    pthread_mutex_lock(&rf->lock);
    int take = !rf->stopping && rf->queued < APIREFRESH_QUEUE_MAX;
    if (take) {
        if (rf->tail)
            rf->tail->next = r;
        else
            rf->head = r;
        rf->tail = r;
        rf->queued++;
        pthread_cond_signal(&rf->wake);
    }
    pthread_mutex_unlock(&rf->lock);
    if (!take)
        refresh_free(r);
    return take;
}

void apirefresh_stop(struct apirefresh *rf)
{
    if (!rf)
        return;
    pthread_mutex_lock(&rf->lock);
    rf->stopping = 1;
    pthread_cond_signal(&rf->wake);
    pthread_mutex_unlock(&rf->lock);
    pthread_join(rf->thread, NULL);
    while (rf->head) {
        struct refresh *r = rf->head;
        rf->head = r->next;
        refresh_free(r);
    }
    pthread_cond_destroy(&rf->wake);
    pthread_mutex_destroy(&rf->lock);
    free(rf);
}
