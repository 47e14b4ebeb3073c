/* The models table: model bytes with their figures, in and out as hex bytea. */
#include "store/models.h"

#include "common/ascii.h"
#include "common/num.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

void models_record_free(struct models_record *m)
{
    if (!m)
        return;
    free(m->cv);
    free(m->params);
    free(m->data);
    free(m->created_at);
    free(m);
}

/* encode(data, 'hex') text to bytes (whatever the server's bytea_output is). */
static enum err from_hex(const char *s, unsigned char **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!s)
        return err_set(ERR_PARSE, "model bytes: missing");
    size_t hn = strlen(s);
    if (hn % 2 || hn / 2 > MODELS_MAX_BYTES)
        return err_set(ERR_PARSE, "model bytes: bad hex length %zu", hn);
    unsigned char *b = malloc(hn / 2 ? hn / 2 : 1);
    if (!b)
        return err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < hn / 2; i++) {
        int hi = ascii_hex_value((unsigned char)s[2 * i]),
            lo = ascii_hex_value((unsigned char)s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return err_set(ERR_PARSE, "model bytes: bad hex digit");
        }
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    *out = b;
    *n_out = hn / 2;
    return ERR_OK;
}

enum err models_save(struct store *s, int64_t job_id, const char *kind, int format_version,
                     double p_err, double page_accuracy, const char *cv_json,
                     const char *params_json, const void *data, size_t len, int64_t *id_out)
{
    *id_out = 0;
    if (len > MODELS_MAX_BYTES)
        return err_set(ERR_TOOBIG, "model of %zu bytes is over the %zu byte cap", len,
                       MODELS_MAX_BYTES);
    if (!isfinite(p_err))
        return err_set(ERR_INVAL, "model p_err must be a number");
    char job[32], ver[32], perr[40], acc[40];
    snprintf(job, sizeof job, "%" PRId64, job_id);
    snprintf(ver, sizeof ver, "%d", format_version);
    snprintf(perr, sizeof perr, "%.17g", p_err);
    snprintf(acc, sizeof acc, "%.17g", page_accuracy);
    const char *params[] = {job_id > 0 ? job : NULL,
                            ver,
                            perr,
                            isfinite(page_accuracy) ? acc : NULL,
                            cv_json,
                            params_json,
                            NULL, /* the data, as raw bytes */
                            kind ? kind : MODELS_PAGES};
    struct store_rows *rows = NULL;
    enum err e = store_query_bytes(s,
                                   "INSERT INTO models (job_id, format_version, p_err,"
                                   " page_accuracy, cv, params, data, kind) VALUES ($1::bigint,"
                                   " $2::int, $3::float8, $4::float8, $5::jsonb, $6::jsonb,"
                                   " $7::bytea, $8) RETURNING id",
                                   8, params, 6, data, len, &rows);
    if (e)
        return e;
    const char *id = store_rows_count(rows) == 1 ? store_rows_get(rows, 0, 0) : NULL;
    if (!id || !num_parse_i64(id, INT64_MIN, INT64_MAX, id_out))
        e = err_set(ERR_DB, "INSERT INTO models returned no id");
    store_rows_free(rows);
    return e;
}

#define SELECT_MODEL                                                                               \
    "SELECT id, coalesce(job_id, 0), format_version, p_err, page_accuracy, cv::text, "             \
    "params::text, encode(data, 'hex'), created_at::text, kind FROM models "

static char *dup_or_null(const char *s, int *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

static enum err load_one(struct store *s, const char *sql, int n_params, const char *const *params,
                         struct models_record **out)
{
    *out = NULL;
    struct store_rows *rows;
    enum err e = store_query(s, sql, n_params, params, &rows);
    if (e)
        return e;
    struct models_record *m = NULL;
    if (store_rows_count(rows) == 0) {
        e = err_set(ERR_NOTFOUND, "no such model");
        goto out;
    }
    m = calloc(1, sizeof *m);
    if (!m) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    m->id = store_rows_i64(rows, 0, 0, 0);
    m->job_id = store_rows_i64(rows, 0, 1, 0);
    m->format_version = (int)store_rows_i64(rows, 0, 2, 0);
    m->p_err = store_rows_double(rows, 0, 3, 0);
    m->page_accuracy = store_rows_double(rows, 0, 4, NAN);
    int oom = 0;
    m->cv = dup_or_null(store_rows_get(rows, 0, 5), &oom);
    m->params = dup_or_null(store_rows_get(rows, 0, 6), &oom);
    m->created_at = dup_or_null(store_rows_get(rows, 0, 8), &oom);
    snprintf(m->kind, sizeof m->kind, "%s", store_rows_get(rows, 0, 9));
    if (oom) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    if ((e = from_hex(store_rows_get(rows, 0, 7), &m->data, &m->len)))
        goto out;
    *out = m;
    m = NULL;
out:
    models_record_free(m);
    store_rows_free(rows);
    return e;
}

enum err models_load(struct store *s, int64_t id, struct models_record **out)
{
    char arg[32];
    snprintf(arg, sizeof arg, "%" PRId64, id);
    const char *p[] = {arg};
    enum err e = load_one(s, SELECT_MODEL "WHERE id = $1::bigint", 1, p, out);
    if (e == ERR_NOTFOUND)
        e = err_set(ERR_NOTFOUND, "no model with id %" PRId64, id);
    return e;
}

enum err models_load_latest(struct store *s, int64_t job_id, const char *kind,
                            struct models_record **out)
{
    char arg[32];
    snprintf(arg, sizeof arg, "%" PRId64, job_id);
    const char *p[] = {arg, kind};
    enum err e = load_one(s,
                          SELECT_MODEL "WHERE job_id = $1::bigint AND kind = $2 "
                                       "ORDER BY created_at DESC, id DESC LIMIT 1",
                          2, p, out);
    if (e == ERR_NOTFOUND)
        e = err_set(ERR_NOTFOUND, "job %" PRId64 " has no %s model", job_id, kind);
    return e;
}

enum err models_delete_job(struct store *s, int64_t job_id)
{
    char ids[32];
    snprintf(ids, sizeof ids, "%" PRId64, job_id);
    const char *p[] = {ids};
    return store_exec(s, "DELETE FROM models WHERE job_id = $1", 1, p);
}
