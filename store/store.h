/*
 * The store: the only user of libpq. Parameterised statements only ($1, $2, ...);
 * values travel as text. A lost connection is re-established with backoff and the
 * statement retried once when outside a transaction. Retried, a statement may run twice:
 * a crash (or a lost network) can take the reply of a commit that went through. A
 * statement sent on its own must therefore either be idempotent, or its caller must check
 * its outcome after a reconnect (store_reconnects changed): a claim of border websites,
 * say, may have claimed some its caller never heard of (crawler/extcrawl.c gives those
 * back). And a database that runs with synchronous_commit = off (the embedded cluster)
 * can lose the last acknowledged commits in a crash: what a runner wrote just before a
 * reconnect may be gone.
 *
 * Ownership: store_open hands out a struct store the caller frees with store_free.
 * store_query hands out rows the caller frees with store_rows_free; strings from
 * store_rows_get are borrowed from the rows.
 */
#ifndef SITESCOUT_STORE_STORE_H
#define SITESCOUT_STORE_STORE_H

#include <stdint.h>

#include "common/err.h"

struct store;
struct store_rows;

/* Connect (retrying with backoff for up to timeout_ms; 0 = try once). */
enum err store_open(const char *url, int timeout_ms, struct store **out) WARN_UNUSED;
void store_free(struct store *s);

/* The URL s connects to (borrowed; as given to store_open). */
const char *store_url(const struct store *s);

/* Does a server answer at url? (No authentication needed.) */
int store_ping(const char *url);

/* Does s's database answer a statement (SELECT 1)? ERR_DB when not: the health check. */
enum err store_check(struct store *s) WARN_UNUSED;

/* Connect to admin_url and create database `name` unless it exists. */
enum err store_create_database(const char *admin_url, const char *name) WARN_UNUSED;

/* Run a statement with text parameters (NULL entries are SQL NULL); discard its rows. */
enum err store_exec(struct store *s, const char *sql, int nparams,
                    const char *const *params) WARN_UNUSED;

/* store_exec, and how many rows the statement (INSERT, UPDATE, DELETE) touched. */
enum err store_exec_rows(struct store *s, const char *sql, int nparams, const char *const *params,
                         int64_t *rows) WARN_UNUSED;
/* Run a statement with text parameters and keep its rows. *out is NULL on error. */
enum err store_query(struct store *s, const char *sql, int nparams, const char *const *params,
                     struct store_rows **out) WARN_UNUSED;

/* store_query with parameter bytes_at (0-based) given as len raw bytes, sent in binary (a
 * bytea: no hex text of twice its size); params[bytes_at] is not read. ERR_INVAL for an
 * index out of range or more than INT_MAX bytes. */
enum err store_query_bytes(struct store *s, const char *sql, int nparams, const char *const *params,
                           int bytes_at, const void *data, size_t len,
                           struct store_rows **out) WARN_UNUSED;

/*
 * store_query for the statements a crawl runs over and over: prepared on
 * the connection at first use and executed by name after that, so the server parses
 * and plans them once, for any parameters (the session's plan_cache_mode is
 * force_generic_plan; a plan is made again when a table's statistics change). sql
 * must stay at its address for s's lifetime (a string literal or a static array): the
 * statement is known by it. Past STORE_MAX_PREPARED statements, these run unprepared.
 */
#define STORE_MAX_PREPARED 32
enum err store_query_prepared(struct store *s, const char *sql, int nparams,
                              const char *const *params, struct store_rows **out) WARN_UNUSED;

/*
 * Up to STORE_PIPELINE_MAX prepared statements (as store_query_prepared) in one round trip and one
 * transaction: sent together in libpq's pipeline mode, with one Sync, so the server
 * runs them as one implicit transaction and commits once. calls[i].rows is set for
 * each (store_rows_free) when all succeeded; on an error none is committed and no rows
 * are kept. A connection lost outside a transaction is re-established and the whole
 * batch sent again (up to 3 times); a batch rolled back to break a deadlock is sent again
 * (up to 3 times). A lost connection may have taken the reply of a commit that went
 * through: each statement of a pipeline must be safe to run twice (write nothing twice
 * when its first run committed), as store/sitewrite.c's are.
 */
#define STORE_PIPELINE_MAX 64
struct store_call {
    const char *sql; /* at a lasting address, as for store_query_prepared */
    int nparams;
    const char *const *params;
    struct store_rows *rows; /* out */
};
enum err store_pipeline(struct store *s, struct store_call *calls, int n) WARN_UNUSED;

/* Run a script of several statements without parameters (migrations only). */
enum err store_exec_script(struct store *s, const char *sql) WARN_UNUSED;

enum err store_begin(struct store *s) WARN_UNUSED;
enum err store_commit(struct store *s) WARN_UNUSED;
void store_rollback(struct store *s); /* best effort; never fails the caller */

/*
 * Run fn(s, ctx) in one transaction. If the connection was lost before COMMIT and could
 * be re-established (the transaction rolled back), fn runs once more from the start, so
 * a short database outage does not end a crawl. fn must only write to the database
 * (nothing else it does may be done twice). A lost COMMIT is not redone: whether it
 * took effect is unknown.
 */
enum err store_tx(struct store *s, enum err (*fn)(struct store *s, void *ctx),
                  void *ctx) WARN_UNUSED;
/* store_tx for a transaction that is safe to run twice (its second run writes what the
 * first did, or nothing): one whose COMMIT was lost is run again as well. */
enum err store_tx_idempotent(struct store *s, enum err (*fn)(struct store *s, void *ctx),
                             void *ctx) WARN_UNUSED;

int store_rows_count(const struct store_rows *r);
int store_rows_columns(const struct store_rows *r);
/* Value at row, col as text; NULL for SQL NULL. Borrowed. */
const char *store_rows_get(const struct store_rows *r, int row, int col);
/*
 * Value at row, col as a number (checked: the whole text), or def for SQL NULL or
 * text that is not one. PostgreSQL's text of an integer or float column always is;
 * a float's NaN and Infinity come back as such.
 */
int64_t store_rows_i64(const struct store_rows *r, int row, int col, int64_t def);
double store_rows_double(const struct store_rows *r, int row, int col, double def);
void store_rows_free(struct store_rows *r);

/* How many times this connection was lost and re-established. */
int store_reconnects(const struct store *s);

/*
 * Commit s's transactions synchronously from now on, whatever the server's
 * synchronous_commit (the embedded cluster's is off), on every session s opens: for a
 * connection whose writes other writes build on (a crawl's claims and border additions,
 * which its verdicts then update), so that a crash cannot take them once acknowledged.
 */
enum err store_sync_commit(struct store *s) WARN_UNUSED;

#endif
