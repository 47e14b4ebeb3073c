/* The database connection pool: a mutex and a stack of idle connections. */
#include "store/dbpool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

struct dbpool {
    pthread_mutex_t mu;
    char *url;
    struct store **idle;
    int n_idle, max_idle;
};

enum err dbpool_new(const char *url, int max_idle, struct dbpool **out)
{
    *out = NULL;
    struct dbpool *p = calloc(1, sizeof *p);
    if (!p)
        return err_set(ERR_NOMEM, "out of memory");
    p->url = strdup(url);
    p->max_idle = max_idle > 0 ? max_idle : 1;
    p->idle = calloc((size_t)p->max_idle, sizeof *p->idle);
    if (!p->url || !p->idle) {
        free(p->url);
        free(p->idle);
        free(p);
        return err_set(ERR_NOMEM, "out of memory");
    }
    pthread_mutex_init(&p->mu, NULL);
    *out = p;
    return ERR_OK;
}

void dbpool_free(struct dbpool *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_idle; i++)
        store_free(p->idle[i]);
    pthread_mutex_destroy(&p->mu);
    free(p->idle);
    free(p->url);
    free(p);
}

enum err dbpool_take(struct dbpool *p, struct store **out)
{
    *out = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->n_idle)
        *out = p->idle[--p->n_idle];
    pthread_mutex_unlock(&p->mu);
    if (*out)
        return ERR_OK;
    return store_open(p->url, 2000, out);
}

void dbpool_give(struct dbpool *p, struct store *s, int bad)
{
    if (!s)
        return;
    pthread_mutex_lock(&p->mu);
    if (!bad && p->n_idle < p->max_idle) {
        p->idle[p->n_idle++] = s;
        s = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    store_free(s);
}
