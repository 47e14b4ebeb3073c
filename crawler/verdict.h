/*
 * A website's verdict, stored: the one writer of examined websites for training and
 * the website crawler alike. It weighs the website's aggregated transversal links for
 * the border (paper §4.2, crawler/edges) and records, in one transaction, its pages,
 * those links and the verdict; a website none of whose pages could be read is marked
 * failed instead, its outgoing redirects still joining the border.
 */
#ifndef SITESCOUT_CRAWLER_VERDICT_H
#define SITESCOUT_CRAWLER_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "crawler/edges.h"

struct store;
struct crawlstore_page;

struct verdict {
    const char *host;
    double confidence; /* Pr[target|W] */
    int relevant;
    int pages_to_decide;
    int fetches;         /* downloads the examination cost */
    const char *purpose; /* "crawl" or "train" */
    /* Why (issue 17; crawlstore_site_result): the prior (NaN: none), how the verdict
     * was reached and why the reading stopped (NULL: not known). */
    double prior;
    const char *verdict_by;
    const char *read_stop;
    const struct crawlstore_page *pages;
    size_t n_pages;
    const struct edge *edges; /* aggregated transversal links, weighted here */
    size_t n_edges;
    int fetches_before; /* verdict_queue_more: the fetches stored of the website before */
    /* The links weigh by link_confidence instead of confidence when link_set (issue 30:
     * the job's last crawl model's confidence). With model_id (that model's row), the
     * model gave the verdict (verdict_by_model): exam_relevant is the examination's. */
    int link_set;
    double link_confidence;
    int64_t model_id;
    int exam_relevant;
    const char *like_rejected; /* with model_id: a rejected website's likeness vetoes it */
};

/*
 * v's verdict given by the crawl model v->model_id whose confidence is
 * v->link_confidence, as a judging gives it (job/jobjudge.c): relevant when the model
 * (confidence above 1/2) and the examination (v->relevant) say so and no rejected
 * website's likeness vetoed it (v->like_rejected), the confidence the model's, at most
 * 1/2 when the examination vetoed it. The examination's verdict goes to v->exam_relevant.
 */
void verdict_by_model(struct verdict *v);

/*
 * Store v as examined in job, its edges weighted by mode. ERR_CONFLICT (nothing
 * written) when the website was examined already: by another worker meanwhile, or by
 * an earlier run of the job.
 */
enum err verdict_store(struct store *s, int64_t job, enum edges_weights mode,
                       const struct verdict *v) WARN_UNUSED;

/*
 * verdict_store queued to a site writer (store/sitewriter.h), which writes it off the
 * crawl's thread, in order; verdict_queue_more, a second, deeper read of a website
 * stored before: v->pages and v->edges are only what it added (pages since, links to
 * websites it had not linked to), v->fetches what it cost; v->confidence weighs the
 * links, the verdict stays. A conflict is only logged, by the writer.
 */
struct sitewriter;
enum err verdict_queue(struct sitewriter *w, enum edges_weights mode,
                       const struct verdict *v) WARN_UNUSED;
enum err verdict_queue_more(struct sitewriter *w, enum edges_weights mode,
                            const struct verdict *v) WARN_UNUSED;

/*
 * Record that host could not be read (why: a fetch status name, say) after fetches
 * downloads, which count in the job's pages: queued to w, as a verdict is. The targets
 * of its redirects (edges) join the border with rank at once, through s.
 */
enum err verdict_queue_unread(struct store *s, struct sitewriter *w, int64_t job, const char *host,
                              const char *why, int fetches, const struct edge *edges,
                              size_t n_edges, double rank) WARN_UNUSED;

#endif
