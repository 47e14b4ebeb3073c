/* Transversal links aggregated per destination website. */
#include "crawler/edges.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "crawler/url.h"

void edgeset_init(struct edgeset *es)
{
    memset(es, 0, sizeof *es);
    strmap_init(&es->index);
}

void edgeset_release(struct edgeset *es)
{
    for (size_t i = 0; i < es->n; i++) {
        free(es->edges[i].host);
        free(es->edges[i].homepage);
    }
    free(es->edges);
    strmap_release(&es->index);
    edgeset_init(es);
}

static enum err add_one(struct edgeset *es, const char *link, const char *host, size_t n, double pr)
{
    uintptr_t idx = (uintptr_t)strmap_get(&es->index, host, n);
    if (!idx) {
        enum err e = grow_array((void **)&es->edges, &es->cap, es->n + 1, sizeof *es->edges);
        if (e)
            return e;
        struct edge *ed = &es->edges[es->n];
        *ed = (struct edge){0};
        ed->host = strndup(host, n);
        if (!ed->host || url_homepage(link, &ed->homepage) != ERR_OK) {
            free(ed->host);
            return err_set(ERR_NOMEM, "out of memory");
        }
        idx = ++es->n;
        e = strmap_put(&es->index, host, n, (void *)idx);
        if (e)
            return e;
    }
    es->edges[idx - 1].conf_sum += pr;
    es->edges[idx - 1].page_count++;
    return ERR_OK;
}

enum err edgeset_add_page(struct edgeset *es, char *const *links, size_t n, double pr_target)
{
    struct strmap seen; /* destinations of this page: each counts once */
    strmap_init(&seen);
    enum err e = ERR_OK;
    size_t n_dest = 0;
    for (size_t i = 0; !e && i < n; i++) { /* how many destinations the page has */
        size_t hn;
        const char *h = url_host_ref(links[i], &hn);
        if (!h || strmap_get(&seen, h, hn))
            continue;
        e = strmap_put(&seen, h, hn, (void *)1);
        n_dest++;
    }
    double pr = n_dest > EDGES_PAGE_FULL ? pr_target * EDGES_PAGE_FULL / (double)n_dest : pr_target;
    strmap_release(&seen);
    strmap_init(&seen);
    size_t added = 0;
    for (size_t i = 0; !e && i < n; i++) {
        size_t hn;
        const char *h = url_host_ref(links[i], &hn);
        if (!h || strmap_get(&seen, h, hn))
            continue;
        e = strmap_put(&seen, h, hn, (void *)1);
        int known = strmap_get(&es->index, h, hn) != NULL;
        if (e || (!known && (added >= EDGES_PAGE_MAX_NEW || es->n >= EDGES_SITE_MAX)))
            continue; /* the flood's bounds */
        added += !known;
        e = add_one(es, links[i], h, hn, pr);
    }
    strmap_release(&seen);
    return e;
}

double edges_weight(enum edges_weights mode, double site_confidence, double conf_sum,
                    int page_count)
{
    double local = page_count > 0 ? conf_sum / page_count : site_confidence;
    switch (mode) {
    case EDGES_GLOBAL:
        return site_confidence;
    case EDGES_LOCAL:
        return local;
    case EDGES_COMBINED:
    case EDGES_N_WEIGHTS:
        break;
    }
    return (local + site_confidence) / 2;
}

static const char *const weights_names[] = {
    [EDGES_GLOBAL] = "global",
    [EDGES_LOCAL] = "local",
    [EDGES_COMBINED] = "combined",
};
_Static_assert(sizeof weights_names / sizeof weights_names[0] == EDGES_N_WEIGHTS,
               "a name for each edge weighting");

const char *edges_weights_name(size_t mode)
{
    return mode < EDGES_N_WEIGHTS ? weights_names[mode] : NULL;
}

int edges_weights_parse(const char *name)
{
    for (int i = 0; name && i < EDGES_N_WEIGHTS; i++)
        if (strcmp(name, weights_names[i]) == 0)
            return i;
    return -1;
}
