/*
 * Internal to server/: answers of the API's polled GET routes (a job, its sites, its border), kept
 * for RESPCACHE_MS so that many polling clients (dashboards, scripts) cost PostgreSQL one query per
 * route and arguments every RESPCACHE_MS, not one each: they would otherwise compete with the crawl
 * for the database. A change made through the API drops its job's answers at once. Thread-safe.
 */
#ifndef SITESCOUT_SERVER_RESPCACHE_H
#define SITESCOUT_SERVER_RESPCACHE_H

#include <stdint.h>

#define RESPCACHE_MS         250
#define RESPCACHE_REFRESH_MS 1000 /* a refresh may take this long before another starts */
#define RESPCACHE_SLOTS      256  /* answers kept at most (a slot per key hash) */
/* The oldest answer ever handed out (docs/api.md's promise: 250 ms plus one refresh). */
#define RESPCACHE_MAX_AGE_MS (RESPCACHE_MS + RESPCACHE_REFRESH_MS)

/*
 * The answer kept for key (a malloc'd copy), or NULL: then the caller asks the database
 * and keeps its answer (respcache_put), or says it could not (respcache_missed). While
 * one caller makes an answer none was kept for, the others wait for it (up to
 * RESPCACHE_REFRESH_MS, then they make it themselves). An answer older than RESPCACHE_MS is still
 * handed out, and the first caller to find it stale is told to refresh it (*refresh
 * set): the others get it as it is while that one refreshes it (for up to
 * RESPCACHE_REFRESH_MS). A crowd of polls that finds it stale costs one query, not one
 * each; with a background refresher (server/apirefresh.h) none of them waits for it.
 * An answer older than RESPCACHE_MAX_AGE_MS (after an idle spell, or a refresh that
 * never came) is never handed out: it counts as none kept.
 */
char *respcache_get(const char *key, int *refresh);

/* The answer respcache_get told the caller to make (NULL) will not come: an error. */
void respcache_missed(const char *key);

/* Keep json (copied) as key's answer, for job's sake (respcache_drop_job). */
void respcache_put(const char *key, int64_t job, const char *json);

/* Forget every answer kept for job. */
void respcache_drop_job(int64_t job);

/* Tests: the clock the cache reads (milliseconds), or NULL for monotime_ms. */
void respcache_set_clock(int64_t (*now_ms)(void));

#endif
