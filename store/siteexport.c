/* A job's websites as CSV or NDJSON, for users to take away. */
#include "store/siteexport.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/jsontext.h"
#include "store/crawlstore.h"
#include "store/judgestore.h"
#include "store/sqltime.h"
#include "store/store.h"

/* One CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
static enum err csv_field(struct buf *out, const char *v, int last)
{
    enum err e = ERR_OK;
    if (v && strpbrk(v, ",\"\r\n")) {
        e = buf_append_char(out, '"');
        for (const char *c = v; !e && *c; c++)
            e = *c == '"' ? buf_append_str(out, "\"\"") : buf_append_char(out, *c);
        if (!e)
            e = buf_append_char(out, '"');
    } else if (v) {
        e = buf_append_str(out, v);
    }
    return e ? e : buf_append_str(out, last ? "\r\n" : ",");
}

/* The sites, best first; the same rows for both formats. */
#define EXPORT_FROM                                                                                \
    " FROM sites s WHERE s.job_id = $1 AND s.state = 'examined' AND s.role NOT LIKE 'train%'"      \
    " AND (NOT $2::boolean OR s.relevant)"                                                         \
    " ORDER BY s.confidence DESC NULLS LAST, s.examined_at, s.host"

enum err siteexport_write(struct store *s, int64_t job, int relevant_only, enum siteexport_format f,
                          struct buf *out)
{
    char id[32];
    snprintf(id, sizeof id, "%" PRId64, job);
    const char *p[] = {id, relevant_only ? "true" : "false"};
    struct store_rows *r;
    enum err e = crawlstore_job_exists(s, job);
    if (e)
        return e;
    if (f == SITEEXPORT_NDJSON)
        e = store_query(s,
                        "SELECT json_build_object('host', s.host, 'homepage', s.homepage,"
                        " 'role', s.role, 'relevant', s.relevant, 'confidence', s.confidence,"
                        " 'pages_visited', s.pages_visited, 'found_pages', s.found_pages,"
                        " 'rank', s.rank, 'examined_at', to_char(s.examined_at" SQL_TIME
                        ", 'judged_by', " JUDGESTORE_SQL_BY
                        ", 'judged_at', to_char(" JUDGESTORE_SQL_AT SQL_TIME ")::text" EXPORT_FROM,
                        2, p, &r);
    else
        e = store_query(s,
                        "SELECT s.host, s.homepage, s.role, s.relevant::text, s.confidence::text,"
                        " s.pages_visited::text, s.found_pages::text, s.rank::text,"
                        " to_char(s.examined_at" SQL_TIME ", " JUDGESTORE_SQL_BY
                        ", to_char(" JUDGESTORE_SQL_AT SQL_TIME EXPORT_FROM,
                        2, p, &r);
    if (e)
        return e;
    if (f == SITEEXPORT_CSV)
        e = buf_append_str(out, SITEEXPORT_COLUMNS "\r\n");
    int cols = store_rows_columns(r);
    for (int i = 0; !e && i < store_rows_count(r); i++) {
        if (f == SITEEXPORT_NDJSON) {
            size_t at = out->len;
            e = buf_append_str(out, store_rows_get(r, i, 0));
            if (!e && out->data) /* in the API's one JSON style, as its answers */
                out->len = at + jsontext_compact(out->data + at, out->len - at);
            if (!e)
                e = buf_append_char(out, '\n');
            continue;
        }
        for (int c = 0; !e && c < cols; c++)
            e = csv_field(out, store_rows_get(r, i, c), c == cols - 1);
    }
    store_rows_free(r);
    return e;
}
