/* A job's websites and the links between them, as JSON (graphstore.h). */
#include "store/graphstore.h"

#include <stdlib.h>
#include <string.h>

#include "store/sqlnum.h"
#include "store/store.h"

/*
 * One statement: the chosen websites (n), the links among them (e, through the edges'
 * primary key (job_id, src_host, ...) from each chosen source), the answer built from
 * both; no row when the job does not exist.
 */
static const char GRAPH_SQL[] =
    "WITH n AS ("
    "  SELECT s.host, s.role, s.confidence, s.relevant, s.label FROM sites s"
    "  WHERE s.job_id = $1 AND s.state = 'examined' AND s.role IN ('start', 'discovered')"
    "  ORDER BY s.relevant IS TRUE DESC, s.role = 'start' DESC, s.confidence DESC NULLS LAST,"
    "  s.host LIMIT $2),"
    " e AS ("
    "  SELECT e.src_host, e.dst_host, e.weight, e.page_count FROM n a"
    "  JOIN edges e ON e.job_id = $1 AND e.src_host = a.host"
    "  JOIN n b ON b.host = e.dst_host"
    "  WHERE e.src_host <> e.dst_host"
    "  ORDER BY e.weight DESC NULLS LAST, e.src_host, e.dst_host LIMIT $3 + 1)"
    " SELECT json_build_object('job_id', j.id,"
    "  'nodes', coalesce((SELECT json_agg(json_build_object('host', n.host, 'role', n.role,"
    "    'confidence', n.confidence, 'relevant', n.relevant, 'label', n.label)) FROM n),"
    "    '[]'::json),"
    "  'edges', coalesce((SELECT json_agg(json_build_object('src', x.src_host,"
    "    'dst', x.dst_host, 'weight', x.weight, 'pages', x.page_count))"
    "    FROM (SELECT * FROM e ORDER BY e.weight DESC NULLS LAST, e.src_host, e.dst_host"
    "    LIMIT $3) x), '[]'::json),"
    "  'edges_capped', (SELECT count(*) FROM e) > $3,"
    "  'total', (SELECT count(*) FROM sites t WHERE t.job_id = $1 AND t.state = 'examined'"
    "    AND t.role IN ('start', 'discovered')))::text"
    " FROM jobs j WHERE j.id = $1";

enum err graphstore_graph(struct store *s, int64_t job, int64_t max_nodes, char **json)
{
    *json = NULL;
    char ids[32], nodes[32], edges[32];
    const char *p[] = {NUM(ids, job), NUM(nodes, max_nodes), NUM(edges, GRAPHSTORE_MAX_EDGES)};
    struct store_rows *r = NULL;
    enum err e = store_query(s, GRAPH_SQL, 3, p, &r);
    if (e)
        goto out;
    const char *text = store_rows_count(r) > 0 ? store_rows_get(r, 0, 0) : NULL;
    if (!text) {
        e = err_set(ERR_NOTFOUND, "no job %lld", (long long)job);
        goto out;
    }
    *json = strdup(text);
    if (!*json)
        e = err_set(ERR_NOMEM, "out of memory");
out:
    store_rows_free(r);
    return e;
}
