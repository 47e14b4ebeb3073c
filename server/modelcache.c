/* The crawl models the API read last (modelcache.h). */
#include "server/modelcache.h"

#include <pthread.h>
#include <stdlib.h>

static struct {
    pthread_mutex_t lock;
    uint64_t tick;
    struct {
        int64_t job, id;
        void *model; /* NULL: an empty slot */
        void (*free_model)(void *);
        int uses;      /* callers using it now */
        uint64_t used; /* tick of its last use */
    } slot[MODELCACHE_SLOTS];
    /* Models given out but not kept (every slot in use), or dropped while in use. */
    struct loose {
        void *model;
        void (*free_model)(void *);
        int uses;
        struct loose *next;
    } * loose;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The lock held: the slot kept for job's model id, or -1. */
static int slot_of(int64_t job, int64_t id)
{
    for (int i = 0; i < MODELCACHE_SLOTS; i++)
        if (cache.slot[i].model && cache.slot[i].job == job && cache.slot[i].id == id)
            return i;
    return -1;
}

/* The lock held: slot i given to one more caller. */
static void *use(int i)
{
    cache.slot[i].uses++;
    cache.slot[i].used = ++cache.tick;
    return cache.slot[i].model;
}

/* The lock held: an empty slot, else the least recently used one no caller uses, or -1. */
static int free_slot(void)
{
    int best = -1;
    for (int i = 0; i < MODELCACHE_SLOTS; i++) {
        if (!cache.slot[i].model)
            return i;
        if (!cache.slot[i].uses && (best < 0 || cache.slot[i].used < cache.slot[best].used))
            best = i;
    }
    return best;
}

enum err modelcache_get(int64_t job, int64_t id, modelcache_load load, void *ctx,
                        void (*free_model)(void *), void **out)
{
    pthread_mutex_lock(&cache.lock);
    int i = slot_of(job, id);
    *out = i >= 0 ? use(i) : NULL;
    pthread_mutex_unlock(&cache.lock);
    if (*out)
        return ERR_OK;
    void *m = NULL;
    enum err e = load(ctx, job, id, &m); /* outside the lock: the database is slow */
    if (e)
        return e;
    struct loose *own = malloc(sizeof *own);
    void *old = NULL;
    void (*free_old)(void *) = NULL;
    pthread_mutex_lock(&cache.lock);
    if ((i = slot_of(job, id)) >= 0) { /* read meanwhile by another caller: theirs */
        *out = use(i);
        old = m, free_old = free_model;
    } else if ((i = free_slot()) >= 0) {
        old = cache.slot[i].model, free_old = cache.slot[i].free_model;
        cache.slot[i].job = job;
        cache.slot[i].id = id;
        cache.slot[i].model = m;
        cache.slot[i].free_model = free_model;
        cache.slot[i].uses = 0;
        *out = use(i);
    } else if (own) { /* every slot in use: the caller's own */
        *own = (struct loose){m, free_model, 1, cache.loose};
        cache.loose = own, own = NULL;
        *out = m;
    } else {
        old = m, free_old = free_model;
        e = err_set(ERR_NOMEM, "out of memory");
    }
    pthread_mutex_unlock(&cache.lock);
    free(own);
    if (old)
        free_old(old);
    return e;
}

void modelcache_done(void *model)
{
    if (!model)
        return;
    void *gone = NULL;
    void (*free_gone)(void *) = NULL;
    pthread_mutex_lock(&cache.lock);
    int kept = 0;
    for (int i = 0; i < MODELCACHE_SLOTS; i++)
        if (cache.slot[i].model == model) {
            cache.slot[i].uses--;
            kept = 1;
        }
    for (struct loose **at = &cache.loose; !kept && *at; at = &(*at)->next)
        if ((*at)->model == model) {
            struct loose *l = *at;
            if (--l->uses == 0) {
                gone = l->model, free_gone = l->free_model;
                *at = l->next;
                free(l);
            }
            break;
        }
    pthread_mutex_unlock(&cache.lock);
    if (gone)
        free_gone(gone);
}

void modelcache_clear(void)
{
    pthread_mutex_lock(&cache.lock);
    for (int i = 0; i < MODELCACHE_SLOTS; i++) {
        if (!cache.slot[i].model)
            continue;
        struct loose *l = cache.slot[i].uses ? malloc(sizeof *l) : NULL;
        if (l) { /* in use: freed by its last caller */
            *l = (struct loose){cache.slot[i].model, cache.slot[i].free_model, cache.slot[i].uses,
                                cache.loose};
            cache.loose = l;
        } else if (!cache.slot[i].uses) {
            cache.slot[i].free_model(cache.slot[i].model);
        } else {
            continue; /* no memory to let it go: kept */
        }
        cache.slot[i].model = NULL;
    }
    pthread_mutex_unlock(&cache.lock);
}
