/* Stores a website's verdict with its pages and weighted links. */
#include "crawler/verdict.h"

#include <math.h>
#include <stdlib.h>

#include "store/crawlstore.h"

/* v with its edges weighted by mode, handed to write (site_done or site_more). */
static enum err
store_weighted(struct store *s, int64_t job, enum edges_weights mode, const struct verdict *v,
               enum err (*write)(struct store *, int64_t, const struct crawlstore_site_result *))
{
    struct crawlstore_edge *ce = calloc(v->n_edges ? v->n_edges : 1, sizeof *ce);
    if (!ce)
        return err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < v->n_edges; i++) {
        const struct edge *ed = &v->edges[i];
        ce[i] = (struct crawlstore_edge){
            ed->host, ed->homepage, ed->conf_sum, ed->page_count,
            edges_weight(mode, v->confidence, ed->conf_sum, ed->page_count)};
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
    };
    enum err e = write(s, job, &res);
    free(ce);
    return e;
}

enum err verdict_store(struct store *s, int64_t job, enum edges_weights mode,
                       const struct verdict *v)
{
    return store_weighted(s, job, mode, v, crawlstore_site_done);
}

enum err verdict_store_more(struct store *s, int64_t job, enum edges_weights mode,
                            const struct verdict *v)
{
    return store_weighted(s, job, mode, v, crawlstore_site_more);
}

enum err verdict_store_unread(struct store *s, int64_t job, const char *host, const char *why,
                              int fetches, const struct edge *edges, size_t n_edges, double rank)
{
    enum err e = ERR_OK;
    for (size_t i = 0; !e && i < n_edges; i++)
        e = crawlstore_site_add(s, job, edges[i].host, edges[i].homepage, "discovered", "border",
                                NAN, -1, rank);
    return e ? e : crawlstore_site_failed(s, job, host, why, fetches);
}
