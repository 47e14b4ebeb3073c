/*
 * What a job found as a graph (docs/api.md, "The graph"): its examined websites, the
 * relevant first, and the links between them, for the dashboard's picture. A JSON text
 * built by PostgreSQL itself, as store/apistore.h's are; all values are parameters.
 *
 * Ownership: *json is malloc'd; the caller frees it.
 */
#ifndef SITESCOUT_STORE_GRAPHSTORE_H
#define SITESCOUT_STORE_GRAPHSTORE_H

#include <stdint.h>

#include "common/err.h"

struct store;

#define GRAPHSTORE_DEFAULT_NODES 1000
#define GRAPHSTORE_MAX_NODES     5000
/* Links given at most: the heaviest first (2,000 websites of the demo web have ~9,000). */
#define GRAPHSTORE_MAX_EDGES 50000

/*
 * {"job_id", "nodes": [{"host", "role", "confidence", "relevant", "label"}], "edges":
 * [{"src", "dst", "weight", "pages"}], "total", "edges_capped"}: up to max_nodes of job's
 * examined websites (start and discovered; training websites are not the crawl's) —
 * the relevant first, then the start sites, then by confidence — and the links among
 * them (edges between two of them, a website's links to itself left out), at most
 * GRAPHSTORE_MAX_EDGES, heaviest first. total counts all its examined websites.
 * ERR_NOTFOUND for no such job.
 */
enum err graphstore_graph(struct store *s, int64_t job, int64_t max_nodes, char **json) WARN_UNUSED;

#endif
