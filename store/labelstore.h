/*
 * What a user teaches a running job (issue 31, relevance feedback): labels on its
 * websites, whether the job has learnt from them yet, and start websites added while it
 * runs. sql/020_labels.sql has the columns.
 *
 * A labelled website's verdict is its label (confidence 1 or 0; the view and the API say
 * judged_by 'user'), whatever reads or judgings come after; a labelled border website is
 * read next; the job's crawl model learns from labelled websites as from its examples
 * (store/judgestore.h). Taking a label back gives the website the verdict it had before
 * (or its examination's), until the next judging.
 */
#ifndef SITESCOUT_STORE_LABELSTORE_H
#define SITESCOUT_STORE_LABELSTORE_H

#include <stdint.h>

#include "common/err.h"

struct store;
struct store_rows;

#define LABELSTORE_CLEAR    (-1)
#define LABELSTORE_NOT      0
#define LABELSTORE_RELEVANT 1

/* What a label did. */
struct labelstore_result {
    char state[16];         /* the website's: border, claimed, examined or failed */
    int relevant;           /* its verdict now: 1, 0, or -1 (none: a website not read) */
    int changed;            /* 1 when the label differs from the one it had */
    double confidence;      /* its confidence now (NaN: none) */
    int64_t relevant_found; /* the job's relevant websites now */
};

/*
 * Give host of job the label (LABELSTORE_RELEVANT or _NOT), or take it back
 * (LABELSTORE_CLEAR), in one transaction; the job's relevant count follows, and the job
 * is marked for judging again (labels_changed_at). Works in any state of the job.
 * ERR_NOTFOUND: no such job, or no such website in it; ERR_INVAL: host is one of the
 * job's example websites (its role is its label), or a bad label.
 */
enum err labelstore_set(struct store *s, int64_t job, const char *host, int label,
                        struct labelstore_result *out) WARN_UNUSED;

/*
 * The links of host, a website of job the crawl examined: rows dst_host, conf_sum,
 * page_count; and the job's edge_weights parameter into mode (cap bytes). *out is the
 * caller's (store_rows_free).
 */
enum err labelstore_links(struct store *s, int64_t job, const char *host, char *mode, size_t cap,
                          struct store_rows **out) WARN_UNUSED;

/*
 * Host's links weigh weights[i] to dsts[i] now (its label changed what it is worth), in
 * one transaction: each destination still waiting on the border takes the difference in
 * its weight sum and rank (the average weight of the links to it), a start site or a
 * labelled one keeping its rank, as the crawl's own writes do (store/sitewrite.c).
 */
enum err labelstore_reweigh(struct store *s, int64_t job, const char *host, char *const *dsts,
                            const double *weights, size_t n) WARN_UNUSED;

/*
 * The job's labels, the last given first: columns 0 host, 1 label ('t'/'f'), 2 labelled_at
 * (RFC 3339, UTC), 3 state, 4 confidence now, 5 homepage. ERR_NOTFOUND: no such job.
 * *out is the caller's (store_rows_free).
 */
enum err labelstore_list(struct store *s, int64_t job, struct store_rows **out) WARN_UNUSED;

/*
 * Whether job has labels given or taken back since its last judging learnt from them,
 * the last at least settle_ms ago (labels given a few seconds apart give one judging):
 * *pending 1 then, and *mark what labelstore_judged takes once the judging is done.
 */
struct labelstore_mark {
    char changed_at[40]; /* jobs.labels_changed_at, as text */
};
enum err labelstore_pending(struct store *s, int64_t job, int settle_ms, int *pending,
                            struct labelstore_mark *mark) WARN_UNUSED;

/*
 * Up to cap jobs that nobody runs (done, paused or failed) with labels pending, settled
 * settle_ms or more, into ids (the oldest labels first); *n how many.
 */
enum err labelstore_due(struct store *s, int settle_ms, int64_t *ids, int cap, int *n) WARN_UNUSED;

/*
 * Start websites added to job while it runs (job/jobtopic.h), in one transaction: each
 * of hosts[i] (homepages[i]) joins the border at rank, as a start site (a discovered
 * website waiting there becomes one; a website examined, claimed or failed stays as it
 * is), and the job's body lists new_start_json (a JSON array of homepages) in its
 * start_sites too. *out: rows host, role, state of those websites now (the caller's,
 * store_rows_free). ERR_NOTFOUND: no such job; ERR_CONFLICT: the job ended.
 */
enum err labelstore_add_start_sites(struct store *s, int64_t job, char *const *hosts,
                                    char *const *homepages, size_t n, double rank,
                                    const char *new_start_json,
                                    struct store_rows **out) WARN_UNUSED;

/* The job's judging learnt from the labels as of mark (labels changed since stay pending). */
enum err labelstore_judged(struct store *s, int64_t job,
                           const struct labelstore_mark *mark) WARN_UNUSED;

#endif
