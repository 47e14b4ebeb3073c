/* The context graph's layers and its layer classifier (seeds 000 §3.2, 004 §6.4). */
#include "classifier/ctxgraph.h"

#include <stdlib.h>
#include <string.h>

struct ctxgraph {
    struct pagecls *cls;
    uint32_t n;                        /* classes */
    int layer_of[PAGECLS_MAX_CLASSES]; /* class -> layer, ascending */
};

void ctxgraph_layers(size_t n, const unsigned char *target, const struct ctxgraph_edge *edges,
                     size_t n_edges, int *layer)
{
    for (size_t i = 0; i < n; i++)
        layer[i] = target[i] ? 0 : CTXGRAPH_OTHER;
    /* Seed 000 §3.2: "the minimum link distance from that document to a target
     * document"; seed 004 §6.4: the back-links of L0 become L1, theirs L2, ... One pass
     * over the edges a layer: a page takes the first layer one of its links reaches. */
    for (int k = 1; k <= CTXGRAPH_N; k++)
        for (size_t i = 0; i < n_edges; i++) {
            size_t from = edges[i].from, to = edges[i].to;
            if (from < n && to < n && layer[to] == k - 1 && layer[from] == CTXGRAPH_OTHER)
                layer[from] = k;
        }
}

void ctxgraph_free(struct ctxgraph *g)
{
    if (!g)
        return;
    pagecls_free(g->cls);
    free(g);
}

uint32_t ctxgraph_count(const struct ctxgraph *g)
{
    return g->n;
}

int ctxgraph_layer(const struct ctxgraph *g, uint32_t i)
{
    return g->layer_of[i];
}

/* Train on the kept layers' pages (kept[] per layer), the classes in layer order. */
static enum err train_kept(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                           const int *keep, struct pagecls_doc *buf, struct ctxgraph *g)
{
    int class_of[CTXGRAPH_OTHER + 1];
    g->n = 0;
    for (int k = 0; k <= CTXGRAPH_OTHER; k++) {
        class_of[k] = keep[k] ? (int)g->n : -1;
        if (keep[k])
            g->layer_of[g->n++] = k;
    }
    if (g->n < 2)
        return err_set(ERR_INVAL,
                       "context graph: one layer only: nothing to tell the layers apart");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (docs[i].cls <= CTXGRAPH_OTHER && class_of[docs[i].cls] >= 0) {
            buf[m] = docs[i];
            buf[m++].cls = (uint32_t)class_of[docs[i].cls];
        }
    pagecls_free(g->cls);
    g->cls = NULL;
    return pagecls_train(p, buf, m, &g->cls);
}

enum err ctxgraph_train(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                        struct ctxgraph **out, size_t *kept_pages)
{
    *out = NULL;
    if (p->kind != PAGECLS_KNN) /* else every layer but 0 and other would be left out */
        return err_set(ERR_INVAL,
                       "context graph: the layers need a classifier of several "
                       "classes; the page classifier %s tells two apart",
                       pagecls_kind_name(p->kind));
    size_t count[CTXGRAPH_OTHER + 1] = {0};
    int keep[CTXGRAPH_OTHER + 1];
    for (size_t i = 0; i < n; i++)
        if (docs[i].cls <= CTXGRAPH_OTHER)
            count[docs[i].cls]++;
    for (int k = 0; k <= CTXGRAPH_OTHER; k++)
        keep[k] = k == 0 || k == CTXGRAPH_OTHER ? count[k] > 0 : count[k] >= CTXGRAPH_MIN_PAGES;
    if (!count[0])
        return err_set(ERR_INVAL, "context graph: no target page (layer 0)");
    struct ctxgraph *g = calloc(1, sizeof *g);
    struct pagecls_doc *buf = malloc((n ? n : 1) * sizeof *buf);
    enum err e = g && buf ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    while (!e && (e = train_kept(p, docs, n, keep, buf, g)) == ERR_INVAL) {
        /* A layer none of whose pages keeps a term of the model (one website's pages, say)
         * cannot be a class: the smallest of layers 1..N goes, and training starts over. */
        int drop = 0;
        for (int k = 1; k <= CTXGRAPH_N; k++)
            if (keep[k] && (!drop || count[k] < count[drop]))
                drop = k;
        if (!drop)
            break;
        keep[drop] = 0;
        e = ERR_OK;
    }
    if (e) {
        e = err_set(e, "training the context graph's layer classifier: %s", err_msg());
        ctxgraph_free(g);
    } else {
        *out = g;
    }
    for (int k = 0; kept_pages && k <= CTXGRAPH_OTHER; k++)
        kept_pages[k] = keep[k] ? count[k] : 0;
    free(buf);
    return e;
}

void ctxgraph_pick(const double *pr, uint32_t n, const int *layer_of, int *layer, double *conf)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
        if (pr[i] > pr[best])
            best = i; /* strictly greater: a tie stays with the lower layer */
    *layer = n ? layer_of[best] : CTXGRAPH_OTHER;
    *conf = n ? pr[best] : 0;
}

enum err ctxgraph_scratch_new(const struct ctxgraph *g, struct pagecls_scratch **out)
{
    return pagecls_scratch_new(g->cls, out);
}

enum err ctxgraph_classify(const struct ctxgraph *g, struct pagecls_scratch *s, const char *text,
                           size_t len, int *layer, double *conf)
{
    struct pagecls_result r;
    enum err e = pagecls_classify(g->cls, s, text, len, &r);
    if (e)
        return e;
    if (r.known_terms == 0) {
        *layer = CTXGRAPH_OTHER;
        *conf = 0;
        return ERR_OK;
    }
    ctxgraph_pick(r.pr, g->n, g->layer_of, layer, conf);
    return ERR_OK;
}

enum err ctxgraph_format(const struct ctxgraph *g, struct buf *out)
{
    enum err e = buf_appendf(out, "ctxgraph %d layers", CTXGRAPH_FORMAT_VERSION);
    for (uint32_t i = 0; !e && i < g->n; i++)
        e = buf_appendf(out, " %d", g->layer_of[i]);
    if (!e)
        e = buf_append_char(out, '\n');
    return e ? e : pagecls_serialize(g->cls, out);
}

enum err ctxgraph_parse(const void *data, size_t len, struct ctxgraph **out)
{
    *out = NULL;
    const char *s = data, *nl = memchr(data, '\n', len < 256 ? len : 256);
    static const char head[] = "ctxgraph 1 layers";
    if (!nl || (size_t)(nl - s) < sizeof head - 1 || memcmp(s, head, sizeof head - 1) != 0)
        return err_set(ERR_PARSE, "context graph model: no \"%s\" line", head);
    struct ctxgraph *g = calloc(1, sizeof *g);
    if (!g)
        return err_set(ERR_NOMEM, "out of memory");
    const char *p = s + sizeof head - 1;
    enum err e = ERR_OK;
    while (!e && p < nl) {
        /* by hand, not sscanf: the bytes after the line need not hold a NUL */
        int layer = 0, digits = 0;
        if (*p++ != ' ')
            e = ERR_PARSE;
        for (; !e && p < nl && *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
            layer = layer * 10 + (*p - '0');
        if (e || !digits || (p < nl && *p != ' ') || layer > CTXGRAPH_OTHER ||
            g->n == PAGECLS_MAX_CLASSES || (g->n && layer <= g->layer_of[g->n - 1]))
            e = err_set(ERR_PARSE, "context graph model: bad layer list");
        else
            g->layer_of[g->n++] = layer;
    }
    if (!e && (g->n < 2 || g->layer_of[0] != 0))
        e = err_set(ERR_PARSE, "context graph model: fewer than two layers, or no layer 0");
    if (!e)
        e = pagecls_deserialize(nl + 1, len - (size_t)(nl + 1 - s), &g->cls);
    if (!e && pagecls_classes(g->cls) != g->n)
        e = err_set(ERR_PARSE, "context graph model: %u layers but %u classes", g->n,
                    pagecls_classes(g->cls));
    if (e)
        ctxgraph_free(g);
    else
        *out = g;
    return e;
}
