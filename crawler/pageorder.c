/* The page crawlers' frontier orders, from the seeds' formulas. */
#include "crawler/pageorder.h"

#include <math.h>

struct pageorder_links pageorder_link(double conf, double dist, double hot)
{
    return (struct pageorder_links){
        .conf_sum = conf, .links = 1, .conf_max = conf, .dist_min = dist, .hot_max = hot};
}

void pageorder_links_add(struct pageorder_links *dst, const struct pageorder_links *src)
{
    dst->conf_sum += src->conf_sum;
    dst->links += src->links;
    /* A page found again keeps its best parent's score (bestfirst: seed 004 §9.2.1, "just
     * update if the new score is greater"), its nearest relevant ancestor (history) and
     * its hottest anchor (hotwords). */
    if (src->conf_max > dst->conf_max)
        dst->conf_max = src->conf_max;
    if (src->dist_min < dst->dist_min)
        dst->dist_min = src->dist_min;
    if (src->hot_max > dst->hot_max)
        dst->hot_max = src->hot_max;
    /* Seed 001 gives R_j for one parent j; with several, the best (as bestfirst). */
    if (src->rel_max > dst->rel_max)
        dst->rel_max = src->rel_max;
    if (src->rel_own > dst->rel_own)
        dst->rel_own = src->rel_own;
    dst->other_hosts += src->other_hosts;
    /* Seed 002's link score sums the relevancies of the pages linking here, takes the
     * best anchor (the seed scores one anchor a link) and the URL's own words. */
    dst->rel_sum += src->rel_sum;
    if (src->anchor_max > dst->anchor_max)
        dst->anchor_max = src->anchor_max;
    if (src->url_score > dst->url_score)
        dst->url_score = src->url_score;
    /* Seeds 000 and 004 put a link in the queue of the page it was found on; a link found
     * on several pages joins the best of their queues (the nearest the targets). */
    if (src->layer_max > dst->layer_max)
        dst->layer_max = src->layer_max;
}

double pageorder_page(const struct pageorder_links *in)
{
    return in->links ? in->conf_sum / in->links : 0;
}

double pageorder_bfs(const struct pageorder_links *in)
{
    (void)in;
    return 0; /* every page alike: found order decides */
}

/* Seed 004 §6.3, Algorithm 2: score := apply_rule(doc); save_score(out_links, score). */
double pageorder_bestfirst(const struct pageorder_links *in)
{
    return in->conf_max;
}

/* Seed 004 §6.5, Algorithm 4: save_score(out_links, distance), the lowest first. */
double pageorder_history(const struct pageorder_links *in)
{
    return -in->dist_min;
}

/* Seed 000 §3.1 and Figure 6: hot(u) > theta puts u in queue 0, served before the rest;
 * within it the hotter first. The rest (queue k of the context graph's layers in the
 * seed, which we have not) in bestfirst order. Scores are in [0, 1], so 1 + hot is above
 * every score of the rest. */
double pageorder_hotwords(const struct pageorder_links *in)
{
    return in->hot_max > PAGEORDER_HOT_THETA ? 1 + in->hot_max : in->conf_max;
}

/* Seed 004 §6.5, equation 6.1: distance = min(1, (1 - c) e^(2 d_p / C)), 0 if relevant. */
double pageorder_history_distance(double c, double d_parent)
{
    if (c > PAGEORDER_RELEVANT)
        return 0;
    return fmin(1.0, (1 - c) * exp(2 * d_parent / PAGEORDER_HISTORY_CUTOFF));
}

/* Seed 001 §2.1: "According to R_i, then, the hyperlinks whose hostnames are different
 * from that of web page i can be prioritized into the queue": a link takes the degree of
 * relevance of the page it was found on. A link to the page's own host "is simply
 * disregarded" there, and the crawl goes on "until the queue is empty"; here it waits
 * below every link to another host, so it is read only once the seed's queue is empty
 * (on our webs no homepage links to another website: read homepage by homepage, the
 * seed's queue runs dry after a few hundred pages, docs/crawl.md). */
double pageorder_relevance_degree(const struct pageorder_links *in)
{
    return in->other_hosts ? PAGEORDER_OTHER_HOST_BAND + in->rel_max : in->rel_own;
}

/* Seed 001 §2.1, eq. 1: R_i = (1 - rho) lambda_i / |K| + rho R_j. */
double pageorder_relevance(uint32_t lambda, uint32_t n_keys, double rho, double r_parent)
{
    double own = n_keys ? (double)lambda / n_keys : 0;
    return (1 - rho) * own + rho * r_parent;
}

/* Seed 002, "Calculation of Link Score": Link_Score(i) = Anchor_Relevancy_Score(i) +
 * Relevance_Score_URL_Description(i) + [Relevancy(P1) + ... + Relevancy(Pn)]. */
double pageorder_weight_table(const struct pageorder_links *in)
{
    return in->anchor_max + in->url_score + in->rel_sum;
}

/* Seed 004 §6.6, Algorithm 5: final_score := svm_score * factor - anchor_score * (1 -
 * factor). The minus is read as the plus of §9.2.4 ("TotalScore = anchorScore 10% +
 * svmScore 90%"): a link whose anchor looks relevant must not lose by it. */
double pageorder_learning_anchor(const struct pageorder_links *in)
{
    return PAGEORDER_ANCHOR_FACTOR * in->conf_max + (1 - PAGEORDER_ANCHOR_FACTOR) * in->anchor_max;
}

/* Seed 000 Figure 7, dequeue: "remove the element at the beginning of the first
 * non-empty queue"; seed 004 §6.4: "if it is possible from L0, if not L1, if not L2". */
double pageorder_context_graph(const struct pageorder_links *in)
{
    return in->layer_max;
}

double pageorder_layer_score(int layer, double conf)
{
    if (layer < 0)
        layer = 0;
    if (layer >= PAGEORDER_LAYERS)
        layer = PAGEORDER_LAYERS - 1;
    conf = fmax(0.0, fmin(conf, PAGEORDER_LAYER_WIDTH - 1e-9));
    return (PAGEORDER_LAYERS - layer) * PAGEORDER_LAYER_WIDTH + conf;
}
