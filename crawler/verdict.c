/* Stores a website's verdict with its pages and weighted links. */
#include "crawler/verdict.h"

#include <math.h>
#include <stdlib.h>

#include "common/log.h"
#include "store/crawlstore.h"
#include "store/sitewriter.h"

/* Where a result goes: the store (now), or a site writer (queued). */
struct dest {
    struct store *s;
    int64_t job;
    enum err (*store)(struct store *, int64_t, const struct crawlstore_site_result *);
    struct sitewriter *w;
    enum err (*queue)(struct sitewriter *, const struct crawlstore_site_result *);
};

/* v with its edges weighted by mode, handed to its destination. */
static enum err write_weighted(const struct dest *d, enum edges_weights mode,
                               const struct verdict *v)
{
    struct crawlstore_edge *ce = calloc(v->n_edges ? v->n_edges : 1, sizeof *ce);
    if (!ce)
        return err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < v->n_edges; i++) {
        const struct edge *ed = &v->edges[i];
        ce[i] = (struct crawlstore_edge){
            ed->host, ed->homepage, ed->conf_sum, ed->page_count,
            edges_weight(mode, v->link_set ? v->link_confidence : v->confidence, ed->conf_sum,
                         ed->page_count)};
    }
    struct crawlstore_site_result res = {
        .host = v->host,
        .confidence = v->confidence,
        .relevant = v->relevant,
        .pages_to_decide = v->pages_to_decide,
        .fetches = v->fetches,
        .purpose = v->purpose,
        .prior = v->prior,
        .verdict_by = v->verdict_by,
        .read_stop = v->read_stop,
        .pages = v->pages,
        .n_pages = v->n_pages,
        .edges = ce,
        .n_edges = v->n_edges,
        .fetches_before = v->fetches_before,
        .model_id = v->model_id,
        .exam_relevant = v->exam_relevant,
        .like_rejected = v->like_rejected,
    };
    enum err e = d->w ? d->queue(d->w, &res) : d->store(d->s, d->job, &res);
    free(ce);
    return e;
}

enum err verdict_store(struct store *s, int64_t job, enum edges_weights mode,
                       const struct verdict *v)
{
    struct dest d = {.s = s, .job = job, .store = crawlstore_site_done};
    return write_weighted(&d, mode, v);
}

enum err verdict_queue(struct sitewriter *w, enum edges_weights mode, const struct verdict *v)
{
    struct dest d = {.w = w, .queue = sitewriter_done};
    return write_weighted(&d, mode, v);
}

enum err verdict_queue_more(struct sitewriter *w, enum edges_weights mode, const struct verdict *v)
{
    struct dest d = {.w = w, .queue = sitewriter_more};
    return write_weighted(&d, mode, v);
}

enum err verdict_queue_unread(struct store *s, struct sitewriter *w, int64_t job, const char *host,
                              const char *why, int fetches, const struct edge *edges,
                              size_t n_edges, double rank)
{
    enum err e = ERR_OK;
    for (size_t i = 0; !e && i < n_edges; i++)
        e = crawlstore_site_add(s, job, edges[i].host, edges[i].homepage, "discovered", "border",
                                NAN, -1, rank);
    return e ? e : sitewriter_failed(w, host, why, fetches);
}

void verdict_by_model(struct verdict *v)
{
    if (v->like_rejected)
        log_info("%s is more like %s, which the user rejected, than like any relevant website:"
                 " not relevant",
                 v->host, v->like_rejected);
    v->exam_relevant = v->relevant;
    v->relevant = v->relevant && v->link_confidence > 0.5 && !v->like_rejected;
    v->confidence = v->relevant || v->link_confidence <= 0.5 ? v->link_confidence : 0.5;
}
