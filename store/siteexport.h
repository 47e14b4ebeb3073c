/*
 * A job's websites to take away (issue 17): every website it examined (training sites
 * excluded), or only the relevant ones, best first, as CSV (RFC 4180, a header line)
 * or NDJSON (one JSON object a line). The API's sites.csv / sites.ndjson and
 * `sitescout export` write the same bytes.
 */
#ifndef SITESCOUT_STORE_SITEEXPORT_H
#define SITESCOUT_STORE_SITEEXPORT_H

#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

struct store;

enum siteexport_format { SITEEXPORT_CSV, SITEEXPORT_NDJSON };

/*
 * The columns (CSV header, NDJSON keys), in order. judged_by: who gave the verdict,
 * "examination" (the page classifier as the website was read) or "crawl_model" (a model
 * learnt from the crawl, judging again what was read: issue 30); judged_at: when.
 */
#define SITEEXPORT_COLUMNS                                                                         \
    "host,homepage,role,relevant,confidence,pages_visited,found_pages,rank,examined_at,"           \
    "judged_by,judged_at"

/* Append job's websites to out. ERR_NOTFOUND: no such job. */
enum err siteexport_write(struct store *s, int64_t job, int relevant_only, enum siteexport_format f,
                          struct buf *out) WARN_UNUSED;

#endif
