/*
 * The context graph and its layer classifier (Tsay et al., seed 000, §3.2 "Page Layer
 * Prediction" and Figures 3, 6-7; Dorado, seed 004, §6.4 "Graphic Context Algorithm",
 * Algorithm 3, and §9.2.2; both after Diligenti et al.'s context graphs).
 *
 * Layers: layer 0 holds the target pages; layer k (1..CTXGRAPH_N) the pages that link
 * to a layer k-1 page and are in no lower layer ("the minimum link distance from that
 * document to a target document", seed 000 §3.2); every other page is in the layer
 * "other", CTXGRAPH_OTHER = N + 1 (seed 000's "N + 2 classes corresponding to the
 * layers 0, 1, 2, ..., N and a category other"; seed 004 §9.2.2's "w/ non-relevant"
 * layer, the farthest from the centre).
 *
 * The classifier: one class per layer kept, the page classifier's (classifier/pagecls.h:
 * TF-IDF, k-means centroids per class, log-distance confidences) trained on the
 * layers' pages. A page goes to the layer of greatest confidence. A layer 1..N with
 * fewer than CTXGRAPH_MIN_PAGES pages gets no class (its pages are left out of the
 * training and no page is ever put there), nor does one none of whose pages keeps a
 * term of the model (the pages of one website, say: the page classifier keeps only terms
 * of min_sites websites); layer 0 and "other" are kept whenever they hold a page.
 *
 * Ownership: a struct ctxgraph owns its page classifier; free with ctxgraph_free. It is
 * read-only once made: classify with a scratch of its own per thread (ctxgraph_scratch_new).
 */
#ifndef SITESCOUT_CLASSIFIER_CTXGRAPH_H
#define SITESCOUT_CLASSIFIER_CTXGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/pagecls.h"
#include "common/buf.h"
#include "common/err.h"

/* Layers 0..N from the targets. Seed 000 §4 sets N = 4 for graphs built from a search
 * engine's back-links; our graph is the training crawl's, 25 pages a website, where the
 * deeper layers thin out fast: N = 3 (docs/crawl.md). */
#define CTXGRAPH_N     3
#define CTXGRAPH_OTHER (CTXGRAPH_N + 1)
/* A layer 1..N needs this many pages to get a class of its own (k-means makes up to 4
 * centroids a class; fewer pages would make a class of one or two websites' pages). */
#define CTXGRAPH_MIN_PAGES 8
/* Model text's first line: "ctxgraph 1 layers L0 L1 ...\n", then the page classifier's
 * bytes (pagecls_serialize). */
#define CTXGRAPH_FORMAT_VERSION 1

/* A link of the training crawl's graph: page from links to page to (indices). */
struct ctxgraph_edge {
    size_t from, to;
};

/*
 * Each of n pages' layer into layer[]: 0 for the pages whose target[i] is set, then k for
 * a page with an edge to a page of layer k-1 and no lower layer, up to CTXGRAPH_N;
 * CTXGRAPH_OTHER for the rest. Edges out of range are ignored.
 */
void ctxgraph_layers(size_t n, const unsigned char *target, const struct ctxgraph_edge *edges,
                     size_t n_edges, int *layer);

struct ctxgraph;

/*
 * Train the layer classifier on n pages whose cls is their layer (0..CTXGRAPH_OTHER).
 * ERR_INVAL when layer 0 has no page or fewer than two layers are kept, or p's kind is not
 * the kNN (an SVM tells two classes apart, not the layers). *out is the
 * caller's (ctxgraph_free). kept_pages, when not NULL, gets the pages of each layer
 * (CTXGRAPH_OTHER + 1 counts), 0 for a layer left out.
 */
enum err ctxgraph_train(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                        struct ctxgraph **out, size_t *kept_pages) WARN_UNUSED;
void ctxgraph_free(struct ctxgraph *g);

/* How many layers have a class, and which layer class i stands for (i < count). */
uint32_t ctxgraph_count(const struct ctxgraph *g);
int ctxgraph_layer(const struct ctxgraph *g, uint32_t i);

/*
 * The choice among n classes (layers layer_of[i], ascending) given their confidences:
 * the greatest confidence; a tie goes to the lower layer. *conf is the winner's.
 */
void ctxgraph_pick(const double *pr, uint32_t n, const int *layer_of, int *layer, double *conf);

struct pagecls_scratch;
enum err ctxgraph_scratch_new(const struct ctxgraph *g, struct pagecls_scratch **out) WARN_UNUSED;

/*
 * A page's layer and the classifier's confidence in it (ctxgraph_pick). A page with no
 * term the model knows is "other", confidence 0: nothing says it leads anywhere.
 * s from ctxgraph_scratch_new(g).
 */
enum err ctxgraph_classify(const struct ctxgraph *g, struct pagecls_scratch *s, const char *text,
                           size_t len, int *layer, double *conf) WARN_UNUSED;

/* The model as bytes (appended to out) and back; ERR_PARSE for malformed bytes. */
enum err ctxgraph_format(const struct ctxgraph *g, struct buf *out) WARN_UNUSED;
enum err ctxgraph_parse(const void *data, size_t len, struct ctxgraph **out) WARN_UNUSED;

#endif
