/*
 * Transversal links aggregated per destination website (paper §4.1: "the number of
 * transversal links from one site to another website is limited to one"): for each
 * destination, the sum of Pr[p|target] over the source pages linking there, and the
 * number of such pages (each page counts once per destination, however many links
 * it has there). Used by the internal crawler and for the training sites' links.
 */
#ifndef SITESCOUT_CRAWLER_EDGES_H
#define SITESCOUT_CRAWLER_EDGES_H

#include <stddef.h>

#include "common/err.h"
#include "common/strmap.h"

struct edge {
    char *host;      /* host[:port] of the destination website */
    char *homepage;  /* its homepage, scheme://host[:port]/ */
    double conf_sum; /* sum of Pr[p|target] over the pages linking there */
    int page_count;  /* number of such pages */
};

struct edgeset {
    struct edge *edges;
    size_t n, cap;
    struct strmap index; /* host -> index + 1 */
};

void edgeset_init(struct edgeset *es);
void edgeset_release(struct edgeset *es);

/*
 * How an aggregated link from examined site V to W weighs on W's rank (paper §4.2):
 * global = confidence(V, target); local = the mean Pr[p|target] of V's pages that
 * link to W (conf_sum / page_count); combined = their average.
 */
enum edges_weights { EDGES_GLOBAL, EDGES_LOCAL, EDGES_COMBINED, EDGES_N_WEIGHTS };

double edges_weight(enum edges_weights mode, double site_confidence, double conf_sum,
                    int page_count);

/* The name of mode ("global", "local", "combined"; the job parameter edge_weights
 * takes them), or NULL past the last. */
const char *edges_weights_name(size_t mode);

/* A name edges_weights_name gives -> its mode; -1 for anything else. */
int edges_weights_parse(const char *name);

/*
 * A hostile web's link flood (issue 29: one page of 60,000 links put 2,000 made-up
 * websites on the border at its rank) is bounded: one page adds at most
 * EDGES_PAGE_MAX_NEW destinations the set does not have yet, one set (a website's
 * examination) holds at most EDGES_SITE_MAX destinations, and a page linking to n >
 * EDGES_PAGE_FULL destinations gives each only pr * EDGES_PAGE_FULL / n, so that all
 * its links together weigh as much as a page of EDGES_PAGE_FULL links (a directory of
 * that size keeps its full weight). Links to destinations already in the set count
 * the same way whatever the caps.
 */
#define EDGES_PAGE_MAX_NEW 100
#define EDGES_SITE_MAX     1000
#define EDGES_PAGE_FULL    100

/* Add one page's transversal links (normalised URLs) with the page's Pr[p|target]. */
enum err edgeset_add_page(struct edgeset *es, char *const *links, size_t n,
                          double pr_target) WARN_UNUSED;

#endif
