/*
 * Inside the store: the website crawler's writes of an examined website
 * (crawlstore_site_done, crawlstore_site_more, in sitewrite.c), and the page rows as
 * array literals, which crawlstore_sites_update shares.
 */
#ifndef SITESCOUT_STORE_SITEWRITE_H
#define SITESCOUT_STORE_SITEWRITE_H

#include "common/buf.h"
#include "store/crawlstore.h"

/* Six literals of r's pages for unnest(): url, status, http status, bytes, pr_target,
 * posterior. a is initialised here; the caller releases it (sqlarray_release) always. */
#define SITEWRITE_PAGE_ARRAYS 6
enum err sitewrite_page_arrays(struct buf a[SITEWRITE_PAGE_ARRAYS],
                               const struct crawlstore_site_result *r) WARN_UNUSED;

/*
 * The job's state while it runs. A job's counters and rows change only then: a helper
 * (store/jobteam.h) that finishes a website after the lead ended the job records
 * nothing, so that what a finished job shows is final. (The lead itself writes before
 * it ends the job.)
 */
#define JOB_RUNS "state NOT IN ('done', 'failed', 'paused')"

#endif
