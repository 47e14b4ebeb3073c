/* The polled GET answers of the API, kept RESPCACHE_MS (respcache.h). */
#include "server/respcache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/monotime.h"

static struct {
    pthread_mutex_t lock;
    struct {
        char *key, *json;
        int64_t job, until_ms;
        int64_t refresh_until_ms; /* a caller refreshes the stale answer until then */
    } slot[RESPCACHE_SLOTS];
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t slot_of(const char *key)
{
    return (size_t)(hash_bytes(key, strlen(key)) % RESPCACHE_SLOTS);
}

char *respcache_get(const char *key)
{
    char *copy = NULL;
    size_t i = slot_of(key);
    pthread_mutex_lock(&cache.lock);
    int64_t now = monotime_ms();
    if (cache.slot[i].json && strcmp(cache.slot[i].key, key) == 0) {
        if (cache.slot[i].until_ms > now || cache.slot[i].refresh_until_ms > now)
            copy = strdup(cache.slot[i].json);
        else /* stale, and nobody refreshes it: this caller will */
            cache.slot[i].refresh_until_ms = now + RESPCACHE_REFRESH_MS;
    }
    pthread_mutex_unlock(&cache.lock);
    return copy;
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
    cache.slot[i].until_ms = monotime_ms() + RESPCACHE_MS;
    cache.slot[i].refresh_until_ms = 0;
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
