/* The only libpq user: connections with retry, parameterised statements, transactions. */
#include "store/store.h"

#include <libpq-fe.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/monotime.h"
#include "common/num.h"

#define RETRY_FIRST_MS      100
#define RETRY_MAX_MS        5000
#define RECONNECT_BUDGET_MS 30000 /* unless SITESCOUT_DB_WAIT_SECONDS says otherwise */

struct store {
    PGconn *conn;
    char *url;
    int in_tx;
    int reconnects;
    int sync_commit; /* store_sync_commit: set again on every new session */
    const char *prepared[STORE_MAX_PREPARED]; /* statement i is named "ss<i>" */
    int n_prepared;                           /* on this session */
};

struct store_rows {
    PGresult *res;
};

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* libpq messages end in a newline; keep the first line for one-line errors. */
static const char *first_line(const char *msg, char *out, size_t n)
{
    size_t i = 0;
    while (msg && msg[i] && msg[i] != '\n' && i + 1 < n) {
        out[i] = msg[i];
        i++;
    }
    out[i] = '\0';
    return out;
}

static void quiet_notices(void *arg, const char *message)
{
    (void)arg;
    log_debug("postgres: %s", message);
}

static PGconn *connect_once(const char *url, char *why, size_t n)
{
    PGconn *c = PQconnectdb(url);
    if (c && PQstatus(c) == CONNECTION_OK) {
        PQsetNoticeProcessor(c, quiet_notices, NULL);
        return c;
    }
    first_line(c ? PQerrorMessage(c) : "out of memory", why, n);
    PQfinish(c);
    return NULL;
}

enum err store_open(const char *url, int timeout_ms, struct store **out)
{
    *out = NULL;
    struct store *s = calloc(1, sizeof *s);
    if (!s || !(s->url = strdup(url))) {
        free(s);
        return err_set(ERR_NOMEM, "out of memory");
    }
    char why[512] = "";
    long deadline = monotime_ms() + timeout_ms;
    long wait = RETRY_FIRST_MS;
    for (;;) {
        s->conn = connect_once(url, why, sizeof why);
        if (s->conn)
            break;
        if (monotime_ms() + wait > deadline) {
            store_free(s);
            return err_set(ERR_DB, "cannot connect to the database: %s", why);
        }
        log_debug("database not reachable yet (%s); retrying in %ld ms", why, wait);
        sleep_ms(wait);
        wait = wait * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : wait * 2;
    }
    *out = s;
    return ERR_OK;
}

const char *store_url(const struct store *s)
{
    return s->url;
}

void store_free(struct store *s)
{
    if (!s)
        return;
    PQfinish(s->conn);
    free(s->url);
    free(s);
}

int store_ping(const char *url)
{
    return PQping(url) == PQPING_OK;
}

enum err store_check(struct store *s)
{
    return store_exec(s, "SELECT 1", 0, NULL);
}

int store_reconnects(const struct store *s)
{
    return s->reconnects;
}

enum err store_sync_commit(struct store *s)
{
    s->sync_commit = 1;
    return store_exec(s, "SET synchronous_commit = on", 0, NULL);
}

/* How long a lost connection is tried again before a statement fails with ERR_DB: 30 s,
 * or SITESCOUT_DB_WAIT_SECONDS (1..3600). */
static int store_wait_seconds(void)
{
    const char *v = getenv("SITESCOUT_DB_WAIT_SECONDS");
    int n;
    return v && num_parse_int(v, 1, 3600, &n) ? n : RECONNECT_BUDGET_MS / 1000;
}

/* Re-establish a lost connection with exponential backoff. */
static enum err reconnect(struct store *s)
{
    long deadline = monotime_ms() + store_wait_seconds() * 1000L;
    long wait = RETRY_FIRST_MS;
    char why[512] = "connection lost";
    log_warn("database connection lost; reconnecting");
    for (;;) {
        PQreset(s->conn);
        s->n_prepared = 0; /* a new session knows none */
        if (PQstatus(s->conn) == CONNECTION_OK) {
            if (s->sync_commit)
                PQclear(PQexec(s->conn, "SET synchronous_commit = on"));
            s->reconnects++;
            log_info("database connection re-established");
            return ERR_OK;
        }
        first_line(PQerrorMessage(s->conn), why, sizeof why);
        if (monotime_ms() + wait > deadline)
            return err_set(ERR_DB, "database connection lost and not re-established: %s", why);
        sleep_ms(wait);
        wait = wait * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : wait * 2;
    }
}

static int result_ok(const PGresult *res)
{
    ExecStatusType st = PQresultStatus(res);
    return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

static enum err result_error(struct store *s, const PGresult *res)
{
    char line[512];
    const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(s->conn);
    return err_set(ERR_DB, "%s",
                   first_line(msg && *msg ? msg : "unknown database error", line, sizeof line));
}

/*
 * Did the statement fail because the session is gone? libpq says CONNECTION_BAD; but
 * right after a server crash (an immediate stop) it may still say CONNECTION_OK, with
 * "server closed the connection unexpectedly": an error of libpq's own, without a
 * SQLSTATE. A session ended on purpose (pg_terminate_backend, 57P01) is not taken for
 * a loss: the connection is then bad anyway, and a runner whose job was taken over
 * must not write on.
 */
static int session_lost(const struct store *s, const PGresult *res)
{
    if (PQstatus(s->conn) == CONNECTION_BAD)
        return 1;
    if (res && PQresultErrorField(res, PG_DIAG_SQLSTATE))
        return 0;
    const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(s->conn);
    return msg && strstr(msg, "connection") != NULL;
}

/*
 * The statement sql as prepared on s's session: its index, prepared now if new; -1 when
 * the cache is full. On a failed PREPARE, *res is its result.
 */
static int prepared_index(struct store *s, const char *sql, int nparams, PGresult **res)
{
    *res = NULL;
    for (int i = 0; i < s->n_prepared; i++)
        if (s->prepared[i] == sql)
            return i;
    if (s->n_prepared == STORE_MAX_PREPARED)
        return -1;
    /* The first on this session: plan them once, for any parameters. PostgreSQL's
     * default planned the website's write anew at every call (0.3 ms, as much as it
     * ran) when the first calls' custom plans looked cheaper than the generic one. */
    if (s->n_prepared == 0)
        PQclear(PQexec(s->conn, "SET plan_cache_mode = force_generic_plan"));
    char name[16];
    snprintf(name, sizeof name, "ss%d", s->n_prepared);
    PGresult *r = PQprepare(s->conn, name, sql, nparams, NULL);
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
        *res = r;
        return -2;
    }
    PQclear(r);
    s->prepared[s->n_prepared] = sql;
    return s->n_prepared++;
}

/* A parameter given as raw bytes (store_query_bytes). */
struct bytes_param {
    int at;
    const void *data;
    int len;
};

/* sql with its parameters, one of them raw bytes, sent in binary. */
static PGresult *run_bytes(struct store *s, const char *sql, int nparams, const char *const *params,
                           const struct bytes_param *b)
{
    const char **values = malloc((size_t)nparams * sizeof *values);
    int *lengths = calloc((size_t)nparams, sizeof *lengths);
    int *formats = calloc((size_t)nparams, sizeof *formats);
    PGresult *res = NULL;
    if (values && lengths && formats) {
        memcpy(values, params, (size_t)nparams * sizeof *values);
        values[b->at] = b->data;
        lengths[b->at] = b->len;
        formats[b->at] = 1;
        res = PQexecParams(s->conn, sql, nparams, NULL, values, lengths, formats, 0);
    }
    free(values);
    free(lengths);
    free(formats);
    return res;
}

/* Run sql once: prepared (by name), with parameters (b: one of them raw bytes), or as a
 * script (nparams < 0). */
static PGresult *run_once(struct store *s, const char *sql, int nparams, const char *const *params,
                          int prepare, const struct bytes_param *b)
{
    if (nparams < 0)
        return PQexec(s->conn, sql);
    if (b)
        return run_bytes(s, sql, nparams, params, b);
    if (prepare) {
        PGresult *res;
        int i = prepared_index(s, sql, nparams, &res);
        if (i == -2)
            return res;
        if (i >= 0) {
            char name[16];
            snprintf(name, sizeof name, "ss%d", i);
            return PQexecPrepared(s->conn, name, nparams, params, NULL, NULL, 0);
        }
    }
    return PQexecParams(s->conn, sql, nparams, NULL, params, NULL, NULL, 0);
}

/*
 * Run one statement. On a lost connection outside a transaction, reconnect and
 * retry once; inside a transaction the caller must redo the whole transaction.
 */
static enum err run(struct store *s, const char *sql, int nparams, const char *const *params,
                    int prepare, const struct bytes_param *b, PGresult **out)
{
    *out = NULL;
    for (int attempt = 0;; attempt++) {
        PGresult *res = run_once(s, sql, nparams, params, prepare, b);
        if (res && result_ok(res)) {
            *out = res;
            return ERR_OK;
        }
        if (!session_lost(s, res)) {
            enum err e = result_error(s, res);
            PQclear(res);
            return e;
        }
        PQclear(res);
        int was_in_tx = s->in_tx;
        s->in_tx = 0;
        enum err e = reconnect(s);
        if (e)
            return e;
        if (was_in_tx || attempt > 0)
            return err_set(ERR_DB, "database connection lost during a transaction; "
                                   "it was rolled back");
    }
}

enum err store_exec(struct store *s, const char *sql, int nparams, const char *const *params)
{
    PGresult *res;
    enum err e = run(s, sql, nparams, params, 0, NULL, &res);
    PQclear(res);
    return e;
}

enum err store_exec_rows(struct store *s, const char *sql, int nparams, const char *const *params,
                         int64_t *rows)
{
    *rows = 0;
    PGresult *res;
    enum err e = run(s, sql, nparams, params, 0, NULL, &res);
    if (!e)
        if (!num_parse_i64(PQcmdTuples(res), 0, INT64_MAX, rows))
            *rows = 0; /* "" for a command that counts no rows */
    PQclear(res);
    return e;
}

static enum err query(struct store *s, const char *sql, int nparams, const char *const *params,
                      int prepare, const struct bytes_param *b, struct store_rows **out)
{
    *out = NULL;
    PGresult *res;
    enum err e = run(s, sql, nparams, params, prepare, b, &res);
    if (e)
        return e;
    struct store_rows *r = malloc(sizeof *r);
    if (!r) {
        PQclear(res);
        return err_set(ERR_NOMEM, "out of memory");
    }
    r->res = res;
    *out = r;
    return ERR_OK;
}

enum err store_query(struct store *s, const char *sql, int nparams, const char *const *params,
                     struct store_rows **out)
{
    return query(s, sql, nparams, params, 0, NULL, out);
}

enum err store_query_bytes(struct store *s, const char *sql, int nparams, const char *const *params,
                           int bytes_at, const void *data, size_t len, struct store_rows **out)
{
    *out = NULL;
    if (bytes_at < 0 || bytes_at >= nparams || len > INT_MAX)
        return err_set(ERR_INVAL, "store: raw bytes as parameter %d of %d, %zu bytes", bytes_at,
                       nparams, len);
    const struct bytes_param b = {bytes_at, data ? data : "", (int)len}; /* NULL: SQL NULL */
    return query(s, sql, nparams, params, 0, &b, out);
}

enum err store_query_prepared(struct store *s, const char *sql, int nparams,
                              const char *const *params, struct store_rows **out)
{
    return query(s, sql, nparams, params, 1, NULL, out);
}

#define PIPELINE_DEADLOCK_RETRIES 3
/* How many times a batch goes again after a lost connection (each after a reconnect). */
#define PIPELINE_LOST_RETRIES 3
/* The first pause before sending a batch again after a deadlock; it doubles each time.
 * Sent at once, the batch can take its first lock again before the session it deadlocked
 * with wakes up to take it, and the two deadlock again. */
#define PIPELINE_DEADLOCK_PAUSE_MS 20

/* Send calls[0..n) and a Sync in pipeline mode (the statements prepared first). */
static int pipeline_send(struct store *s, struct store_call *calls, int n, PGresult **failed)
{
    int idx[STORE_PIPELINE_MAX];
    for (int i = 0; i < n; i++)
        if ((idx[i] = prepared_index(s, calls[i].sql, calls[i].nparams, failed)) == -2)
            return 0;
    if (!PQenterPipelineMode(s->conn))
        return 0;
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "ss%d", idx[i]);
        int sent = idx[i] >= 0 ? PQsendQueryPrepared(s->conn, name, calls[i].nparams,
                                                     calls[i].params, NULL, NULL, 0)
                               : PQsendQueryParams(s->conn, calls[i].sql, calls[i].nparams, NULL,
                                                   calls[i].params, NULL, NULL, 0);
        if (!sent)
            return 0;
    }
    return PQpipelineSync(s->conn);
}

/*
 * Read the pipeline's results up to its Sync: each call's (kept in calls[i].rows when
 * all succeed) and the first failure's (*failed). Leaves pipeline mode. 1: all read.
 */
static int pipeline_read(struct store *s, struct store_call *calls, int n, PGresult **failed)
{
    int i = 0, synced = 0;
    while (!synced && PQstatus(s->conn) == CONNECTION_OK) {
        PGresult *res = PQgetResult(s->conn);
        if (!res) { /* the end of one statement's results */
            if (i == n)
                break; /* no Sync after the last: the connection is broken */
            i++;
            continue;
        }
        ExecStatusType st = PQresultStatus(res);
        if (st == PGRES_PIPELINE_SYNC) {
            synced = 1;
        } else if (i < n && result_ok(res) && !*failed && !calls[i].rows) {
            struct store_rows *r = malloc(sizeof *r);
            if (r) {
                r->res = res;
                calls[i].rows = r;
                continue;
            }
        } else if (!*failed && st != PGRES_PIPELINE_ABORTED) {
            *failed = res;
            continue;
        }
        PQclear(res);
    }
    PQexitPipelineMode(s->conn);
    for (int k = 0; synced && !*failed && k < n; k++)
        if (!calls[k].rows)
            return 0; /* out of memory, or a statement without a result */
    return synced;
}

static void pipeline_drop(struct store_call *calls, int n)
{
    for (int i = 0; i < n; i++) {
        store_rows_free(calls[i].rows);
        calls[i].rows = NULL;
    }
}

enum err store_pipeline(struct store *s, struct store_call *calls, int n)
{
    if (n < 1 || n > STORE_PIPELINE_MAX || s->in_tx)
        return err_set(ERR_INVAL, "a pipeline takes 1 to %d statements, outside a transaction",
                       STORE_PIPELINE_MAX);
    for (int i = 0; i < n; i++)
        calls[i].rows = NULL;
    for (int attempt = 0, deadlocks = 0;; attempt++) {
        PGresult *failed = NULL;
        int done = pipeline_send(s, calls, n, &failed) && pipeline_read(s, calls, n, &failed);
        if (done && !failed)
            return ERR_OK;
        pipeline_drop(calls, n);
        if (PQpipelineStatus(s->conn) != PQ_PIPELINE_OFF)
            PQexitPipelineMode(s->conn);
        /* Chosen to break a deadlock: all of it was rolled back, and goes again. */
        const char *state = failed ? PQresultErrorField(failed, PG_DIAG_SQLSTATE) : NULL;
        if (state && strcmp(state, "40P01") == 0 && deadlocks++ < PIPELINE_DEADLOCK_RETRIES) {
            log_warn("database: a deadlock rolled a batch of writes back; sending it again");
            PQclear(failed);
            sleep_ms(PIPELINE_DEADLOCK_PAUSE_MS << (deadlocks - 1));
            attempt--;
            continue;
        }
        if (!session_lost(s, failed)) {
            enum err e = failed || PQstatus(s->conn) != CONNECTION_OK
                             ? result_error(s, failed)
                             : err_set(ERR_NOMEM, "out of memory (a pipeline's results)");
            PQclear(failed);
            return e;
        }
        PQclear(failed);
        enum err e = reconnect(s);
        if (e)
            return e;
        /* Its commit may have gone through with the reply lost: the batch's statements
         * are safe to send again (store.h), so it goes again, not dropped. */
        if (attempt >= PIPELINE_LOST_RETRIES)
            return err_set(ERR_DB,
                           "database connection lost %d times during a batch of "
                           "writes; it was not written",
                           attempt + 1);
        log_warn("database: sending a batch of writes again after a lost connection");
    }
}

enum err store_exec_script(struct store *s, const char *sql)
{
    PGresult *res;
    enum err e = run(s, sql, -1, NULL, 0, NULL, &res);
    PQclear(res);
    return e;
}

enum err store_begin(struct store *s)
{
    enum err e = store_exec(s, "BEGIN", 0, NULL);
    if (!e)
        s->in_tx = 1;
    return e;
}

enum err store_commit(struct store *s)
{
    enum err e = store_exec(s, "COMMIT", 0, NULL);
    s->in_tx = 0;
    return e;
}

void store_rollback(struct store *s)
{
    if (PQstatus(s->conn) == CONNECTION_OK)
        PQclear(PQexec(s->conn, "ROLLBACK"));
    s->in_tx = 0;
}

/* store_tx, and with commit_again a transaction whose COMMIT was lost is run again too. */
static enum err tx(struct store *s, enum err (*fn)(struct store *s, void *ctx), void *ctx,
                   int commit_again)
{
    for (int attempt = 0;; attempt++) {
        int reconnects = s->reconnects;
        enum err e = store_begin(s);
        if (!e && !(e = fn(s, ctx))) {
            e = store_commit(s);
            if (!e || !commit_again)
                return e;
        }
        store_rollback(s);
        if (e != ERR_DB || s->reconnects == reconnects || attempt > 0)
            return e;
        log_warn("database: redoing a transaction the lost connection rolled back (or whose "
                 "commit it lost)");
    }
}

enum err store_tx(struct store *s, enum err (*fn)(struct store *s, void *ctx), void *ctx)
{
    return tx(s, fn, ctx, 0);
}

enum err store_tx_idempotent(struct store *s, enum err (*fn)(struct store *s, void *ctx), void *ctx)
{
    return tx(s, fn, ctx, 1);
}

int store_rows_count(const struct store_rows *r)
{
    return PQntuples(r->res);
}

int store_rows_columns(const struct store_rows *r)
{
    return PQnfields(r->res);
}

const char *store_rows_get(const struct store_rows *r, int row, int col)
{
    if (PQgetisnull(r->res, row, col))
        return NULL;
    return PQgetvalue(r->res, row, col);
}

int64_t store_rows_i64(const struct store_rows *r, int row, int col, int64_t def)
{
    int64_t v;
    return num_parse_i64(store_rows_get(r, row, col), INT64_MIN, INT64_MAX, &v) ? v : def;
}

double store_rows_double(const struct store_rows *r, int row, int col, double def)
{
    double v;
    return num_parse_double_any(store_rows_get(r, row, col), &v) ? v : def;
}

void store_rows_free(struct store_rows *r)
{
    if (!r)
        return;
    PQclear(r->res);
    free(r);
}

enum err store_create_database(const char *admin_url, const char *name)
{
    struct store *s;
    enum err e = store_open(admin_url, 10000, &s);
    if (e)
        return e;
    const char *params[] = {name};
    struct store_rows *rows;
    e = store_query(s, "SELECT 1 FROM pg_database WHERE datname = $1", 1, params, &rows);
    if (!e && store_rows_count(rows) == 0) {
        /* CREATE DATABASE takes no parameters: quote the identifier with libpq. */
        char *ident = PQescapeIdentifier(s->conn, name, strlen(name));
        if (!ident) {
            e = err_set(ERR_NOMEM, "out of memory");
        } else {
            char sql[256];
            snprintf(sql, sizeof sql, "CREATE DATABASE %s", ident);
            PQfreemem(ident);
            e = store_exec(s, sql, 0, NULL);
            if (!e)
                log_info("created database %s", name);
        }
    }
    store_rows_free(rows);
    store_free(s);
    return e;
}
