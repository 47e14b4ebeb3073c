/* Page classifier model bytes: writing (format version 3) and range-checked reading (1 to 3). */
#include "classifier/pagecls_format.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls_model.h"

/*
 * Layout (all integers little-endian, doubles as IEEE-754 binary64 bit patterns):
 *   "SSPC" u32 version
 *   u32 kind (0 kNN, 1 SVM)                                       (version 3; 1, 2: kNN)
 *   u32 flags (1 stem, 2 keep_numbers, 4 sublinear_tf) u32 min_df u32 min_sites
 *   u32 centroids u32 max_iter u64 seed f64 eps
 *   f64 svm_c                                                     (version 3)
 *   u32 n_classes, kNN: u32 k[n_classes]                          (SVM: n_classes 2, no k)
 *   u32 n_terms, n_terms x (u8 len, len bytes), f64 idf[n_terms]
 *   kNN: k_total x (u32 nnz, nnz x (u32 term id ascending, f64 weight))   sparse centroids
 *   SVM: f64 w[n_terms] f64 b                                     dense: most weights are not 0
 *   u32 folds u32 sites u64 pages f64 correct f64 accuracy f64 p_err
 *   f64 calib_a f64 calib_temper f64 calib_short_terms   (version >= 2; 1 has no calibration)
 *   f64 calib_offset                                              (version 3)
 * No checksum: the store keeps bytes intact, and a checksum would hide the parser
 * from the fuzzer; instead every field is range-checked.
 */
static const char model_magic[4] = {'S', 'S', 'P', 'C'};
#define FLAG_STEM      1u
#define FLAG_NUMBERS   2u
#define FLAG_SUBLINEAR 4u
#define MAX_SVM_WEIGHT 1e6 /* |w|, |b|: far beyond a trained model's; keeps margins finite */

_Static_assert(sizeof(double) == 8, "doubles must be IEEE-754 binary64");

/* ---- writing ---- */

/* Appends to b; the first failure sticks in e and later puts do nothing. */
struct writer {
    struct buf *b;
    enum err e;
};

static void put(struct writer *w, const void *p, size_t n)
{
    if (!w->e)
        w->e = buf_append(w->b, p, n);
}

static void put_u32(struct writer *w, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(w, b, 4);
}

static void put_u64(struct writer *w, uint64_t v)
{
    put_u32(w, (uint32_t)v);
    put_u32(w, (uint32_t)(v >> 32));
}

static void put_f64(struct writer *w, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put_u64(w, u);
}

/* Magic, version, options, parameters, classes with their k. */
static void put_header(struct writer *w, const struct pagecls *m)
{
    const struct pagecls_params *p = &m->params;
    put(w, model_magic, sizeof model_magic);
    put_u32(w, PAGECLS_FORMAT_VERSION);
    put_u32(w, p->kind);
    put_u32(w, (p->tok.stem ? FLAG_STEM : 0) | (p->tok.keep_numbers ? FLAG_NUMBERS : 0) |
                   (p->sublinear_tf ? FLAG_SUBLINEAR : 0));
    put_u32(w, p->min_df);
    put_u32(w, p->min_sites);
    put_u32(w, p->centroids);
    put_u32(w, p->max_iter);
    put_u64(w, p->seed);
    put_f64(w, p->eps);
    put_f64(w, p->svm_c);
    put_u32(w, m->n_classes);
    if (p->kind == PAGECLS_KNN)
        for (uint32_t c = 0; c < m->n_classes; c++)
            put_u32(w, m->k[c]);
}

/* The terms, then their idf. */
static void put_terms(struct writer *w, const struct pagecls *m)
{
    put_u32(w, m->n_terms);
    for (uint32_t t = 0; t < m->n_terms; t++) {
        size_t len;
        const char *term = vocab_term(&m->vocab, t, &len);
        unsigned char l = (unsigned char)len;
        put(w, &l, 1);
        put(w, term, len);
    }
    for (uint32_t t = 0; t < m->n_terms; t++)
        put_f64(w, m->idf[t]);
}

/* Each centroid as its non-zero (term id, weight) pairs: most weights are zero. */
static void put_centroids(struct writer *w, const struct pagecls *m)
{
    for (uint32_t j = 0; j < m->k_total; j++) {
        uint32_t nnz = 0;
        for (size_t t = 0; t < m->n_terms; t++)
            nnz += m->cent[t * m->k_total + j] != 0;
        put_u32(w, nnz);
        for (size_t t = 0; t < m->n_terms; t++) {
            double x = m->cent[t * m->k_total + j];
            if (x != 0) {
                put_u32(w, (uint32_t)t);
                put_f64(w, x);
            }
        }
    }
}

enum err pagecls_serialize(const struct pagecls *m, struct buf *out)
{
    size_t start = out->len;
    struct writer w = {out, ERR_OK};
    put_header(&w, m);
    put_terms(&w, m);
    if (m->params.kind == PAGECLS_SVM) {
        for (uint32_t t = 0; t < m->n_terms; t++)
            put_f64(&w, m->w[t]);
        put_f64(&w, m->b);
    } else {
        put_centroids(&w, m);
    }
    put_u32(&w, m->cv.folds);
    put_u32(&w, m->cv.sites);
    put_u64(&w, m->cv.pages);
    put_f64(&w, m->cv.correct);
    put_f64(&w, m->cv.accuracy);
    put_f64(&w, m->cv.p_err);
    put_f64(&w, m->cv.calib.a);
    put_f64(&w, m->cv.calib.temper);
    put_f64(&w, m->cv.calib.short_terms);
    put_f64(&w, m->cv.calib.offset);
    if (w.e) {
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
    }
    return w.e;
}

/* ---- reading ---- */

/* Reads from p; a read past the end sets short_read and yields zeros from then on. */
struct reader {
    const unsigned char *p;
    size_t left;
    size_t len; /* of the whole input, for the message */
    bool short_read;
};

static const unsigned char *take(struct reader *r, size_t n)
{
    if (r->short_read || r->left < n) {
        r->short_read = true;
        return NULL;
    }
    const unsigned char *q = r->p;
    r->p += n;
    r->left -= n;
    return q;
}

static uint32_t get_u32(struct reader *r)
{
    const unsigned char *b = take(r, 4);
    if (!b)
        return 0;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t get_u64(struct reader *r)
{
    uint64_t lo = get_u32(r);
    return lo | (uint64_t)get_u32(r) << 32;
}

static double get_f64(struct reader *r)
{
    uint64_t u = get_u64(r);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* In the read_ steps below: reject the model with a message, or when the input ran out. */
#define BAD(...) return err_set(ERR_PARSE, "classifier model: " __VA_ARGS__)
#define SHORT(r)                                                                                   \
    do {                                                                                           \
        if ((r)->short_read)                                                                       \
            BAD("truncated after %zu of %zu bytes", (r)->len - (r)->left, (r)->len);               \
    } while (0)

/* Magic, version, options and parameters. */
static enum err read_params(struct reader *r, struct pagecls_params *p, uint32_t *version_out)
{
    const unsigned char *magic = take(r, 4);
    if (!magic || memcmp(magic, model_magic, 4) != 0)
        BAD("not a sitescout model (bad magic)");
    uint32_t version = get_u32(r);
    SHORT(r);
    if (version < 1 || version > PAGECLS_FORMAT_VERSION)
        BAD("format version %u, this build reads 1 to %d", version, PAGECLS_FORMAT_VERSION);
    *version_out = version;
    p->kind = version >= 3 ? get_u32(r) : PAGECLS_KNN;
    uint32_t flags = get_u32(r);
    p->tok.stem = flags & FLAG_STEM;
    p->tok.keep_numbers = flags & FLAG_NUMBERS;
    p->sublinear_tf = flags & FLAG_SUBLINEAR;
    p->min_df = get_u32(r);
    p->min_sites = get_u32(r);
    p->centroids = get_u32(r);
    p->max_iter = get_u32(r);
    p->seed = get_u64(r);
    p->eps = get_f64(r);
    p->svm_c = version >= 3 ? get_f64(r) : 1;
    SHORT(r);
    if (flags & ~(FLAG_STEM | FLAG_NUMBERS | FLAG_SUBLINEAR))
        BAD("unknown flags 0x%x", flags);
    if (pagecls_check_params(p))
        BAD("parameters out of range");
    return ERR_OK;
}

/* The classes and their centroid counts (first and k_total follow from them). */
static enum err read_classes(struct reader *r, struct pagecls *m)
{
    m->n_classes = get_u32(r);
    SHORT(r);
    if (m->n_classes < 2 || m->n_classes > PAGECLS_MAX_CLASSES)
        BAD("%u classes", m->n_classes);
    if (m->params.kind == PAGECLS_SVM) {
        if (m->n_classes != 2)
            BAD("an svm of %u classes", m->n_classes);
        return ERR_OK;
    }
    for (uint32_t c = 0; c < m->n_classes; c++) {
        m->k[c] = get_u32(r);
        SHORT(r);
        if (m->k[c] < 1 || m->k[c] > PAGECLS_MAX_K)
            BAD("class %u has %u centroids", c, m->k[c]);
        m->first[c] = m->k_total;
        m->k_total += m->k[c];
    }
    return ERR_OK;
}

/* The vocabulary, then room for the idf and the centroids it implies. */
static enum err read_terms(struct reader *r, struct pagecls *m)
{
    enum err e;
    m->n_terms = get_u32(r);
    SHORT(r);
    /* Each term takes at least 10 bytes (length, one byte, idf): bound before allocating. */
    if (m->n_terms < 1 || m->n_terms > VOCAB_MAX_TERMS || m->n_terms > r->left / 10 ||
        (uint64_t)m->n_terms * m->k_total > PAGECLS_MAX_CELLS)
        BAD("%u terms", m->n_terms);
    for (uint32_t t = 0; t < m->n_terms; t++) {
        const unsigned char *l = take(r, 1);
        const unsigned char *term = l ? take(r, *l) : NULL;
        SHORT(r);
        uint32_t id;
        bool added;
        if (*l == 0)
            BAD("empty term %u", t);
        if ((e = vocab_add(&m->vocab, (const char *)term, *l, &id, &added)))
            return e;
        if (!added)
            BAD("duplicate term %u", t);
    }
    m->idf = malloc((size_t)m->n_terms * sizeof *m->idf);
    if (m->params.kind == PAGECLS_SVM)
        m->w = malloc((size_t)m->n_terms * sizeof *m->w);
    else
        m->cent = calloc((size_t)m->n_terms * m->k_total, sizeof *m->cent);
    if (!m->idf || (!m->cent && !m->w))
        return err_set(ERR_NOMEM, "out of memory loading a model of %u terms", m->n_terms);
    return ERR_OK;
}

static enum err read_idf(struct reader *r, struct pagecls *m)
{
    for (uint32_t t = 0; t < m->n_terms; t++) {
        m->idf[t] = get_f64(r);
        SHORT(r);
        /* Real idf values are at most ln(pages + 1) + 1; the bound keeps weights finite. */
        if (!(m->idf[t] > 0 && m->idf[t] <= 1000))
            BAD("bad idf for term %u", t);
    }
    return ERR_OK;
}

static enum err read_centroids(struct reader *r, struct pagecls *m)
{
    for (uint32_t j = 0; j < m->k_total; j++) {
        uint32_t nnz = get_u32(r);
        SHORT(r);
        if (nnz > m->n_terms || nnz > r->left / 12)
            BAD("centroid %u has %u terms", j, nnz);
        int64_t prev = -1;
        for (uint32_t i = 0; i < nnz; i++) {
            uint32_t t = get_u32(r);
            double x = get_f64(r);
            SHORT(r);
            if ((int64_t)t <= prev || t >= m->n_terms)
                BAD("centroid %u: term id %u out of order or range", j, t);
            if (!(x >= 0 && x <= 1)) /* components of a unit vector of weights >= 0 */
                BAD("centroid %u: bad weight", j);
            m->cent[(size_t)t * m->k_total + j] = x;
            prev = t;
        }
    }
    return ERR_OK;
}

static enum err read_weights(struct reader *r, struct pagecls *m)
{
    for (uint32_t t = 0; t <= m->n_terms; t++) {
        double x = get_f64(r);
        SHORT(r);
        if (!(fabs(x) <= MAX_SVM_WEIGHT))
            BAD("bad svm weight %u", t);
        if (t < m->n_terms)
            m->w[t] = x;
        else
            m->b = x;
    }
    return ERR_OK;
}

static enum err read_cv(struct reader *r, struct pagecls_cv *cv, uint32_t version)
{
    cv->folds = get_u32(r);
    cv->sites = get_u32(r);
    cv->pages = get_u64(r);
    cv->correct = get_f64(r);
    cv->accuracy = get_f64(r);
    cv->p_err = get_f64(r);
    cv->calib = (struct calib){0};
    if (version >= 2) {
        cv->calib.a = get_f64(r);
        cv->calib.temper = get_f64(r);
        cv->calib.short_terms = get_f64(r);
    }
    if (version >= 3)
        cv->calib.offset = get_f64(r);
    SHORT(r);
    const struct calib *cb = &cv->calib;
    if (!(cb->a >= 0 && cb->a < 1e6) || !(cb->temper >= 0 && cb->temper <= 1e6) ||
        !(cb->short_terms >= 0 && cb->short_terms < 1e9) || !(fabs(cb->offset) < 1e6))
        BAD("bad calibration");
    if (!(cv->correct >= 0 && cv->correct <= (double)cv->pages) ||
        !(cv->accuracy >= 0 && cv->accuracy <= 1) || !(cv->p_err >= 0 && cv->p_err <= 1))
        BAD("bad cross-validation figures");
    return ERR_OK;
}

enum err pagecls_deserialize(const void *data, size_t len, struct pagecls **out)
{
    enum err e;
    struct reader r = {data, len, len, false};
    *out = NULL;
    struct pagecls *m = pagecls_new_empty();
    if (!m)
        return err_set(ERR_NOMEM, "out of memory loading a model");
    uint32_t version = 0;
    if ((e = read_params(&r, &m->params, &version)) || (e = read_classes(&r, m)) ||
        (e = read_terms(&r, m)) || (e = read_idf(&r, m)) ||
        (e = m->params.kind == PAGECLS_SVM ? read_weights(&r, m) : read_centroids(&r, m)) ||
        (e = read_cv(&r, &m->cv, version)))
        goto out;
    if (r.left) {
        e = err_set(ERR_PARSE, "classifier model: %zu trailing bytes", r.left);
        goto out;
    }
    *out = m;
    m = NULL;
out:
    pagecls_free(m);
    return e;
}

#undef BAD
#undef SHORT
