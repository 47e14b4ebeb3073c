/*
 * A crawl fetch's outcome in SQL ('ok', 'http_404', ... or the fetch's error), and the
 * statement that counts a website's pages by outcome in job_fetches (migration 014):
 * the one definition of an outcome's name, for the writers and the readers.
 */
#ifndef SITESCOUT_STORE_SQLFETCH_H
#define SITESCOUT_STORE_SQLFETCH_H

/* The outcome of a page whose error is ERROR (NULL: none) and HTTP status STATUS. */
#define FETCH_KIND_OF(ERROR, STATUS)                                                               \
    "coalesce(" ERROR ", CASE WHEN " STATUS " >= 400 THEN 'http_' || " STATUS " ELSE 'ok' END)"

/*
 * Adds to job JOB's counts the pages whose statuses are the arrays ST (text: 'ok' or the
 * error, as sitewrite_page_arrays writes them) and HS (int: the HTTP status, 0 none),
 * when their purpose PURPOSE is 'crawl' and COND holds. The rows are locked in kind order,
 * so two writers never deadlock on them.
 */
#define FETCHES_ADD(JOB, PURPOSE, ST, HS, COND)                                                    \
    "INSERT INTO job_fetches (job_id, kind, n) SELECT " JOB                                        \
    ", k, count(*) FROM (SELECT " FETCH_KIND_OF(                                                   \
        "nullif(st, 'ok')", "nullif(hs, 0)") " AS k FROM unnest(" ST "::text[], " HS               \
                                             "::int[]) AS t(st, hs) WHERE " PURPOSE                \
                                             " = 'crawl' AND " COND ") f GROUP BY k ORDER BY k"    \
                                             " ON CONFLICT (job_id, kind) DO UPDATE SET n = "      \
                                             "job_fetches.n + EXCLUDED.n"

#endif
