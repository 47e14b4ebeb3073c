/* The training checkpoint: one row per training website read, in table train_sites. */
#include "store/trainstore.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/store.h"

enum err trainstore_put(struct store *s, int64_t job, size_t idx, const char *record)
{
    char ids[32], idxs[32];
    snprintf(ids, sizeof ids, "%" PRId64, job);
    snprintf(idxs, sizeof idxs, "%zu", idx);
    const char *p[] = {ids, idxs, record};
    return store_exec(s,
                      "INSERT INTO train_sites (job_id, idx, record) VALUES ($1, $2, $3) "
                      "ON CONFLICT (job_id, idx) DO UPDATE SET record = EXCLUDED.record",
                      3, p);
}

enum err trainstore_each(struct store *s, int64_t job, trainstore_row_fn fn, void *ctx)
{
    char ids[32];
    snprintf(ids, sizeof ids, "%" PRId64, job);
    const char *p[] = {ids};
    struct store_rows *r;
    enum err e = store_query(
        s, "SELECT idx, record FROM train_sites WHERE job_id = $1 ORDER BY idx", 1, p, &r);
    if (e)
        return e;
    for (int i = 0; !e && i < store_rows_count(r); i++)
        e = fn(ctx, (size_t)store_rows_i64(r, i, 0, 0), store_rows_get(r, i, 1));
    store_rows_free(r);
    return e;
}

enum err trainstore_clear(struct store *s, int64_t job)
{
    char ids[32];
    snprintf(ids, sizeof ids, "%" PRId64, job);
    const char *p[] = {ids};
    return store_exec(s, "DELETE FROM train_sites WHERE job_id = $1", 1, p);
}
