/* A crawl's metrics rows, its statistics refresh and its found-pages curve
 * (declared in store/crawlstore.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/bgexec.h"
#include "store/crawlstore.h"
#include "store/sqlnum.h"
#include "store/store.h"

static void copy_field(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

int crawlstore_analyze_start(struct bgexec *b)
{
    return bgexec_run(b, "ANALYZE sites (job_id, state)");
}

enum err crawlstore_metrics_add(struct store *s, int64_t job, const struct crawlstore_metrics *m)
{
    char ids[32], el[40], pg[32], ex[32], rel[32], hr[40], hrw[40], pp[40], ppw[40];
    const char *p[] = {NUM(ids, job),
                       DBL(el, m->elapsed_s),
                       NUM(pg, m->pages),
                       NUM(ex, m->examined),
                       NUM(rel, m->relevant),
                       isnan(m->harvest_rate) ? NULL : DBL(hr, m->harvest_rate),
                       isnan(m->harvest_rate_window) ? NULL : DBL(hrw, m->harvest_rate_window),
                       isnan(m->pprs) ? NULL : DBL(pp, m->pprs),
                       isnan(m->pprs_window) ? NULL : DBL(ppw, m->pprs_window)};
    return store_exec(s,
                      "INSERT INTO metrics (job_id, elapsed_s, pages, sites_examined, "
                      " relevant_found, harvest_rate, harvest_rate_window, pprs, pprs_window) "
                      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                      9, p);
}

enum err crawlstore_metrics_tail(struct store *s, int64_t job, int64_t window,
                                 struct crawlstore_metrics **out, size_t *n, double *elapsed_s)
{
    *out = NULL;
    *n = 0;
    *elapsed_s = 0;
    char ids[32], win[32];
    const char *p[] = {NUM(ids, job), NUM(win, window)};
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT elapsed_s, pages, sites_examined, relevant_found FROM metrics"
                             " WHERE job_id = $1 AND pages >= (SELECT max(pages) FROM metrics"
                             "  WHERE job_id = $1) - $2 ORDER BY pages, id",
                             2, p, &r);
    if (e)
        return e;
    int rows = store_rows_count(r);
    struct crawlstore_metrics *v = calloc(rows ? (size_t)rows : 1, sizeof *v);
    if (!v) {
        store_rows_free(r);
        return err_set(ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < rows; i++) {
        v[i].elapsed_s = store_rows_double(r, i, 0, 0);
        v[i].pages = store_rows_i64(r, i, 1, 0);
        v[i].examined = store_rows_i64(r, i, 2, 0);
        v[i].relevant = store_rows_i64(r, i, 3, 0);
        if (v[i].elapsed_s > *elapsed_s)
            *elapsed_s = v[i].elapsed_s;
    }
    store_rows_free(r);
    *out = v;
    *n = (size_t)rows;
    return ERR_OK;
}

enum err crawlstore_found(struct store *s, int64_t job, int limit, struct crawlstore_found **out,
                          size_t *n)
{
    *out = NULL;
    *n = 0;
    char ids[32], lim[16];
    const char *p[] = {NUM(ids, job), limit > 0 ? NUM(lim, limit) : NULL};
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT w.host, w.homepage, s.role, w.confidence, w.pages_visited,"
                             " coalesce(s.found_pages, -1) "
                             "FROM relevant_websites w JOIN sites s USING (job_id, host) "
                             "WHERE w.job_id = $1 ORDER BY w.position LIMIT $2::int",
                             2, p, &r);
    if (e)
        return e;
    int rows = store_rows_count(r);
    *out = calloc(rows ? (size_t)rows : 1, sizeof **out);
    if (!*out) {
        store_rows_free(r);
        return err_set(ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < rows; i++) {
        struct crawlstore_found *f = &(*out)[i];
        copy_field(f->host, sizeof f->host, store_rows_get(r, i, 0));
        copy_field(f->homepage, sizeof f->homepage, store_rows_get(r, i, 1));
        copy_field(f->role, sizeof f->role, store_rows_get(r, i, 2));
        f->confidence = store_rows_double(r, i, 3, NAN);
        f->pages = (int)store_rows_i64(r, i, 4, 0);
        f->found_pages = store_rows_i64(r, i, 5, 0);
    }
    *n = (size_t)rows;
    store_rows_free(r);
    return ERR_OK;
}
