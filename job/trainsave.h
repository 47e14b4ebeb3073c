/*
 * A training website's record (crawler/trainset.h's struct trainset_site) as JSON text,
 * for the training checkpoint (store/trainstore.h), and back:
 *   {"homepage": URL, "site": URL, "fetches": N, "home_status": N, "home_http_status": N,
 *    "redirected": 0|1, "pages": [{"url": URL, "text": TEXT, "links": [URL, ...], "intrinsic":
 * [URL, ...]}, ...]}
 * ("links" the transversal ones; "intrinsic" may be absent: a record written before
 * they were kept)
 * home_status is enum fetch_status's number: the record lives only as long as a job's
 * training, within one version of sitescout.
 */
#ifndef SITESCOUT_JOB_TRAINSAVE_H
#define SITESCOUT_JOB_TRAINSAVE_H

#include "common/buf.h"
#include "common/err.h"
#include "crawler/trainset.h"

/* s as JSON text into out (appended). ERR_PARSE when a text is not UTF-8. */
enum err trainsave_write(const struct trainset_site *s, struct buf *out) WARN_UNUSED;

/* A record back into *out (zeroed first; trainset_site_release frees it). ERR_PARSE. */
enum err trainsave_read(const char *json, struct trainset_site *out) WARN_UNUSED;

#endif
