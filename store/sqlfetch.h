/*
 * Internal to store/: a crawl fetch's outcome in SQL ('ok', 'http_404', ... or the fetch's error),
 * and the statement that counts a website's pages by outcome in job_fetches (migration 014): the
 * one definition of an outcome's name, for the writers and the readers.
 */
#ifndef SITESCOUT_STORE_SQLFETCH_H
#define SITESCOUT_STORE_SQLFETCH_H

/* The outcome of a page whose error is ERROR (NULL: none) and HTTP status STATUS. */
#define FETCH_KIND_OF(ERROR, STATUS)                                                               \
    "coalesce(" ERROR ", CASE WHEN " STATUS " >= 400 THEN 'http_' || " STATUS " ELSE 'ok' END)"

/*
 * Adds to job JOB's counts the pages that FROM yields as rows with columns st (text: 'ok'
 * or the error, as the writers' page arrays hold it) and hs (int: the HTTP status, 0
 * none), FROM being a FROM clause with its WHERE (only crawl pages count). The rows are
 * locked in kind order, so two writers never deadlock on them.
 */
#define FETCHES_ADD(JOB, FROM)                                                                     \
    "INSERT INTO job_fetches (job_id, kind, n) SELECT " JOB ", " FETCH_KIND_OF(                    \
        "nullif(st, 'ok')", "nullif(hs, 0)") ", count(*) FROM " FROM                               \
                                             " GROUP BY 2 ORDER BY 2 ON CONFLICT (job_id, kind) "  \
                                             "DO UPDATE SET n = job_fetches.n + EXCLUDED.n"

#endif
