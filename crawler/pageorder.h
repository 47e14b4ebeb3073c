/*
 * The page crawlers' frontier orders (crawler/pagecrawl), one per page-level strategy,
 * each from its source's own formula (docs/crawl.md, Strategies):
 *  - page: the average Pr[p|target] of the downloaded pages linking here (paper §5.1);
 *  - bfs: the order found;
 *  - bestfirst: the best Pr[p|target] of a page linking here (Dorado, seed 004,
 *    §6.3, Algorithm 2: "save_score(out_links, score)");
 *  - history: the lowest history-path distance of a page linking here, lowest first
 *    (seed 004, §6.5, equation 6.1 and Algorithm 4);
 *  - hotwords: a link whose anchor text is similar enough to the topic's key terms goes
 *    to the front queue (Tsay et al., seed 000, §3.1); the others follow by bestfirst;
 *  - relevance_degree: the degree of relevance R of the page linking here, R from the
 *    key phrases the page holds and its own parent's R (Noh et al., seed 001, §2.1, eq. 1);
 *    a link from another host before every link within a host (the seed disregards
 *    those: we read them only once no link to another host is left);
 *  - weight_table: seed 002's link score, the anchor's and the URL's relevancy to the
 *    topic's weight table plus the relevancies of the pages linking here ("Calculation
 *    of Link Score"); only links scoring above a threshold join the frontier;
 *  - learning_anchor: the best parent's score mixed with an anchor classifier's score of
 *    the links' anchors, the classifier retrained from the crawl's verdicts (seed 004,
 *    §6.6, Algorithm 5);
 *  - context_graph: the context-graph layer of the page linking here, the lowest layer's
 *    queue first, within a layer the classifier's confidence (seed 000 §3.2 and
 *    Figures 6-7; seed 004 §6.4, Algorithm 3).
 * The summary of a frontier page's in-links is kept as links arrive; a strategy reads
 * it through a priority function, recomputed at every new link. Pure functions only.
 */
#ifndef SITESCOUT_CRAWLER_PAGEORDER_H
#define SITESCOUT_CRAWLER_PAGEORDER_H

#include <stdint.h>

/* Seed 004 §6.5: the cut-off C of equation 6.1 ("in this case they use 20"). */
#define PAGEORDER_HISTORY_CUTOFF 20.0
/* A page is relevant (distance 0) when the page classifier says Pr[p|target] > this. */
#define PAGEORDER_RELEVANT 0.5
/* Seed 000 §3.1: hot(h, q) > theta_h sends a link to queue 0. The seed gives no value. */
#define PAGEORDER_HOT_THETA 0.2
/* Seed 001 §3, Figure 2: rho of eq. 1; 0.3 was best for three of its four topics. */
#define PAGEORDER_RHO 0.3
/* relevance_degree: a link from another host (or the border) is served before every link
 * within a host, its priority this much above theirs (R is in [0, 1], a border rank at most
 * SEED_START_RANK, 2). */
#define PAGEORDER_OTHER_HOST_BAND 4.0
/* Seed 002: "If the link score is greater than threshold value then and then only link
 * gets add into the frontier". The seed gives no value (docs/crawl.md says why 0.2). */
#define PAGEORDER_LINK_THRESHOLD 0.2
/* Seed 004 §9.2.4, Figure 9.9: "TotalScore = anchorScore 10% + svmScore 90%"; anchor
 * shares of .1 to .3 beat Best-First there: we take .2, the page score's factor 0.8. */
#define PAGEORDER_ANCHOR_FACTOR 0.8
/* Context graph: layers 0 to PAGEORDER_LAYERS - 1, each a band this wide in priority, so
 * that one frontier serves the layers' queues in order: any page of layer k before any
 * page of layer k + 1, whatever their confidences (in [0, 1]; border ranks up to 2). */
#define PAGEORDER_LAYERS      8
#define PAGEORDER_LAYER_WIDTH 4.0

/* What the downloaded pages linking to a frontier page say about it. */
struct pageorder_links {
    double conf_sum;   /* sum of their Pr[p|target] */
    int links;         /* how many */
    double conf_max;   /* the best of them */
    double dist_min;   /* the lowest history-path distance among them */
    double hot_max;    /* the best hot-word score of the links' anchors */
    double rel_max;    /* the best degree of relevance R among them (seed 001, eq. 1) on
                        * other hosts (or the border's rank) ... */
    double rel_own;    /* ... and on this page's own host (relevance_degree's fallback) */
    int other_hosts;   /* how many of them are on other hosts, or the border */
    double rel_sum;    /* the sum of their relevancies to the weight table (seed 002) */
    double anchor_max; /* the best score of the links' anchors: their weight-table
                        * relevancy (weight_table), their anchor classifier score
                        * (learning_anchor) */
    double url_score;  /* the weight-table relevancy of this URL's words */
    double layer_max;  /* the best pageorder_layer_score of the pages linking here (0: none) */
    uint64_t seq;      /* when the page was first found (1, 2, ...) */
};

/* One link, from a parent page with Pr[p|target] = conf and history-path distance dist,
 * whose anchor text scored hot; rel_max, rel_own, other_hosts, rel_sum, anchor_max and
 * url_score 0 (the strategies that use them set them), seq 0 (the frontier sets it). */
struct pageorder_links pageorder_link(double conf, double dist, double hot);

/* Add the links summed in src to dst (a new link, or a redirect's source passing on
 * all it had); dst->seq stays. */
void pageorder_links_add(struct pageorder_links *dst, const struct pageorder_links *src);

/* A strategy: a frontier page's priority, higher first (equal ones in the order found). */
typedef double (*pageorder_fn)(const struct pageorder_links *in);

double pageorder_page(const struct pageorder_links *in);      /* average conf */
double pageorder_bfs(const struct pageorder_links *in);       /* 0: found order */
double pageorder_bestfirst(const struct pageorder_links *in); /* conf_max */
double pageorder_history(const struct pageorder_links *in);   /* -dist_min */
double
pageorder_hotwords(const struct pageorder_links *in); /* 1 + hot_max when hot, else conf_max */
/* other_hosts ? PAGEORDER_OTHER_HOST_BAND + rel_max : rel_own */
double pageorder_relevance_degree(const struct pageorder_links *in);
/* Seed 002's Link_Score: anchor_max + url_score + rel_sum. */
double pageorder_weight_table(const struct pageorder_links *in);
/* Seed 004 Algorithm 5: factor conf_max + (1 - factor) anchor_max. */
double pageorder_learning_anchor(const struct pageorder_links *in);
/* Seed 000 Figure 7 / seed 004 §6.4: layer_max, the lowest layer's queue first. */
double pageorder_context_graph(const struct pageorder_links *in);

/*
 * The priority of a link found on a page the context graph puts in layer (0 lowest,
 * clamped to 0..PAGEORDER_LAYERS - 1) with confidence conf (>= 0): (PAGEORDER_LAYERS -
 * layer) bands above 0, conf within the band. Higher first; every layer above 0, the
 * score of no link at all.
 */
double pageorder_layer_score(int layer, double conf);

/*
 * Seed 004 §6.5, equation 6.1: the distance of a page whose correlation score (here
 * Pr[p|target]) is c and whose parent's distance is d_parent: 0 when the page is
 * relevant (c > PAGEORDER_RELEVANT), else min(1, (1 - c) e^(2 d_parent / C)), C the cut-off.
 */
double pageorder_history_distance(double c, double d_parent);

/*
 * Seed 001 §2.1, eq. 1: the degree of relevance of a page holding lambda of the n_keys
 * key phrases, whose parent's degree is r_parent: (1 - rho) lambda / |K| + rho R_j.
 * With no key phrase (n_keys 0) the lambda term is 0.
 */
double pageorder_relevance(uint32_t lambda, uint32_t n_keys, double rho, double r_parent);

#endif
