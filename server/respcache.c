/* The polled GET answers of the API, kept RESPCACHE_MS (respcache.h). */
#include "server/respcache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hash.h"
#include "common/monotime.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t loaded; /* an answer none was kept for came (or will not) */
    struct {
        char *key, *json;
        int64_t job, until_ms;
        int64_t refresh_until_ms; /* a caller refreshes the stale answer until then */
        char *loading;            /* a key without an answer a caller is making ... */
        int64_t loading_until_ms; /* ... until then */
    } slot[RESPCACHE_SLOTS];
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER, .loaded = PTHREAD_COND_INITIALIZER};

static int64_t (*clock_ms)(void) = monotime_ms;

void respcache_set_clock(int64_t (*now_ms)(void))
{
    clock_ms = now_ms ? now_ms : monotime_ms;
}

/* The lock held: is key's answer being made by a caller? */
static int loading(size_t i, const char *key, int64_t now)
{
    return cache.slot[i].loading && cache.slot[i].loading_until_ms > now &&
           strcmp(cache.slot[i].loading, key) == 0;
}

/* The lock held: the answer for key being made came, or will not. */
static void loading_end(size_t i, const char *key)
{
    if (cache.slot[i].loading && strcmp(cache.slot[i].loading, key) == 0) {
        free(cache.slot[i].loading);
        cache.slot[i].loading = NULL;
        pthread_cond_broadcast(&cache.loaded);
    }
}

/* The lock held: key's answer kept, as a copy, or NULL (also when it is older than
 * the promise: nobody asked for it for a while, or its refresh never came). */
static char *kept(size_t i, const char *key, int64_t now)
{
    if (!cache.slot[i].json || strcmp(cache.slot[i].key, key) != 0)
        return NULL;
    if (cache.slot[i].until_ms - RESPCACHE_MS + RESPCACHE_MAX_AGE_MS <= now)
        return NULL;
    return strdup(cache.slot[i].json);
}

static size_t slot_of(const char *key)
{
    return (size_t)(hash_bytes(key, strlen(key)) % RESPCACHE_SLOTS);
}

char *respcache_get(const char *key, int *refresh)
{
    *refresh = 0;
    size_t i = slot_of(key);
    pthread_mutex_lock(&cache.lock);
    int64_t now = clock_ms();
    char *copy = kept(i, key, now);
    if (copy && cache.slot[i].until_ms <= now && cache.slot[i].refresh_until_ms <= now) {
        *refresh = 1; /* stale, and nobody refreshes it: this caller will */
        cache.slot[i].refresh_until_ms = now + RESPCACHE_REFRESH_MS;
    }
    /* None kept: wait while another caller makes it (a crowd that finds none costs one
     * query too), else make it. */
    while (!copy && loading(i, key, now)) {
        int64_t until = cache.slot[i].loading_until_ms;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t ns = ts.tv_nsec + (until - now) * 1000000;
        ts.tv_sec += ns / 1000000000;
        ts.tv_nsec = ns % 1000000000;
        pthread_cond_timedwait(&cache.loaded, &cache.lock, &ts);
        now = clock_ms();
        copy = kept(i, key, now);
    }
    if (!copy) {
        char *k = strdup(key);
        if (k) {
            free(cache.slot[i].loading);
            cache.slot[i].loading = k;
            cache.slot[i].loading_until_ms = now + RESPCACHE_REFRESH_MS;
        }
    }
    pthread_mutex_unlock(&cache.lock);
    return copy;
}

void respcache_missed(const char *key)
{
    size_t i = slot_of(key);
    pthread_mutex_lock(&cache.lock);
    loading_end(i, key);
    pthread_mutex_unlock(&cache.lock);
}

void respcache_put(const char *key, int64_t job, const char *json)
{
    char *k = strdup(key), *j = strdup(json);
    if (!k || !j) {
        free(k);
        free(j);
        return; /* not kept: the next request asks the database */
    }
    size_t i = slot_of(key);
    pthread_mutex_lock(&cache.lock);
    free(cache.slot[i].key);
    free(cache.slot[i].json);
    cache.slot[i].key = k;
    cache.slot[i].json = j;
    cache.slot[i].job = job;
    cache.slot[i].until_ms = clock_ms() + RESPCACHE_MS;
    cache.slot[i].refresh_until_ms = 0;
    loading_end(i, key);
    pthread_mutex_unlock(&cache.lock);
}

void respcache_drop_job(int64_t job)
{
    pthread_mutex_lock(&cache.lock);
    for (size_t i = 0; i < RESPCACHE_SLOTS; i++) {
        if (!cache.slot[i].json || cache.slot[i].job != job)
            continue;
        free(cache.slot[i].key);
        free(cache.slot[i].json);
        cache.slot[i].key = cache.slot[i].json = NULL;
    }
    pthread_mutex_unlock(&cache.lock);
}
