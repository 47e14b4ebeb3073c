/*
 * Internal to store/: the website crawler's writes of a website (crawlstore_site_done,
 * _more, and the batches of store/sitewriter.c, in sitewrite.c), and the page rows as
 * array literals, which crawlstore_sites_update shares.
 */
#ifndef SITESCOUT_STORE_SITEWRITE_H
#define SITESCOUT_STORE_SITEWRITE_H

#include "common/buf.h"
#include "store/crawlstore.h"
#include "store/store.h"

/* Seven literals of r's pages for unnest(): url, status, http status, bytes, pr_target,
 * posterior, terms. a is initialised here; the caller releases it (sqlarray_release)
 * always. The statements take the terms as their last parameter (added last, issue 30). */
#define SITEWRITE_PAGE_ARRAYS 7
enum err sitewrite_page_arrays(struct buf a[SITEWRITE_PAGE_ARRAYS],
                               const struct crawlstore_site_result *r) WARN_UNUSED;

/*
 * Several websites' writes in one round trip and one transaction (store_pipeline), in
 * as few statements as the rows they touch allow (a statement per kind for websites
 * that touch no row of each other's), each of a kind: crawlstore_site_done's,
 * crawlstore_site_more's, a claimed site given up on (FAILED: r->host, r->fetches, r->error) or put
 * back on the border unjudged (ABANDON: r->host, r->fetches); the fetches count in the job's
 * pages_downloaded (a training site's do not). Returns an error when the batch failed as a whole
 * (nothing written); otherwise each item's outcome is ERR_OK or ERR_CONFLICT (why says what:
 * examined already, or the job ended).
 * Each statement is safe to send again after its commit went through and the reply was lost
 * (store_pipeline does, after a crash): an examined website is not examined twice, a deeper
 * read is not added twice (r->fetches_before), a released claim is released once
 * (r->claimed_by); so no counter counts a write twice.
 */
#define SITEWRITE_BATCH_MAX 16
enum sitewrite_kind { SITEWRITE_DONE, SITEWRITE_MORE, SITEWRITE_FAILED, SITEWRITE_ABANDON };
struct sitewrite_item {
    const struct crawlstore_site_result *r;
    enum sitewrite_kind kind;
    enum err outcome; /* out */
    char why[320];    /* out, for a conflict */
};
enum err sitewrite_batch(struct store *s, int64_t job, struct sitewrite_item *items,
                         size_t n) WARN_UNUSED;

/*
 * The job's state while it runs. A job's counters and rows change only then: a helper
 * (store/jobteam.h) that finishes a website after the lead ended the job records
 * nothing, so that what a finished job shows is final. (The lead itself writes before
 * it ends the job.)
 */
#define JOB_RUNS "state NOT IN ('done', 'failed', 'paused')"

/*
 * The lock order of a running job's writes: a transaction that changes several of its
 * sites rows (a batch of website writes, claimed websites given back) locks the job's
 * row ($1) first, so that two of them take turns instead of deadlocking over rows they
 * both change. (Claims skip locked rows and wait for none.)
 */
#define JOB_LOCK "SELECT 1 FROM jobs WHERE id = $1 FOR NO KEY UPDATE"

#endif
