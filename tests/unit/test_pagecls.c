/* Unit tests for classifier/pagecls: confidence formula, training, site-split CV, model bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "classifier/rng.h"

#define TOL 1e-12

/* ---- the confidence formula (DESIGN §3.1), hand-computed ---- */

struct conf_case {
    double d[3];
    uint32_t n;
    double want[3];
};

static void test_confidence_formula(void **state)
{
    (void)state;
    static const struct conf_case cases[] = {
        /* ln 0.2 / (ln 0.2 + ln 0.5) */
        {{0.2, 0.5}, 2, {0.6989700043360189, 0.3010299956639812}},
        {{0.3, 0.6}, 2, {0.7021074807408172, 0.2978925192591828}},
        /* distance 0 clamps to eps = 1e-6: ln 1e-6 / (ln 1e-6 + ln 0.5) */
        {{0.0, 0.5}, 2, {0.9522252717617384, 0.0477747282382616}},
        {{-0.5, 0.5}, 2, {0.9522252717617384, 0.0477747282382616}},
        /* distance 1 clamps to 1 - eps: nearly no weight, but finite */
        {{1.0, 0.5}, 2, {1.4426936809103907e-06, 0.9999985573063191}},
        /* all equal (after clamping): 1/|C| each */
        {{1.0, 1.0}, 2, {0.5, 0.5}},
        {{0.3, 0.3}, 2, {0.5, 0.5}},
        {{0.0, 0.0}, 2, {0.5, 0.5}},
        {{1.0, 1.7}, 2, {0.5, 0.5}},
        {{0.4, 0.4, 0.4}, 3, {1.0 / 3, 1.0 / 3, 1.0 / 3}},
        /* three classes: ln d_k / sum ln d_j */
        {{0.1, 0.4, 0.8}, 3, {0.6689634314458373, 0.26620731371083256, 0.06482925484333014}},
        {{NAN, 0.5}, 2, {1.4426936809103907e-06, 0.9999985573063191}}, /* NaN = no closeness */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double pr[3];
        pagecls_confidence(cases[i].d, cases[i].n, 1e-6, pr);
        double sum = 0;
        for (uint32_t k = 0; k < cases[i].n; k++) {
            if (fabs(pr[k] - cases[i].want[k]) > 1e-12)
                fail_msg("case %zu class %u: %.17g, want %.17g", i, k, pr[k], cases[i].want[k]);
            sum += pr[k];
        }
        assert_float_equal(sum, 1.0, 1e-12);
    }
}

static void test_link_weight(void **state)
{
    (void)state;
    double a[2] = {0.8, 0.2}, b[2] = {0.5, 0.5}, c[2] = {0.0, 1.0}, d[3] = {0.6, 0.3, 0.1};
    assert_float_equal(pagecls_link_weight(a, 2), 0.09, TOL); /* (0.8 - 0.5)^2 */
    assert_float_equal(pagecls_link_weight(b, 2), 0.0, TOL);
    assert_float_equal(pagecls_link_weight(c, 2), 0.25, TOL);
    /* mean 1/3: ((0.6-1/3)^2 + (0.3-1/3)^2 + (0.1-1/3)^2) / 3 = 0.0422222... */
    assert_float_equal(pagecls_link_weight(d, 3), 0.042222222222222223, TOL);
}

/* ---- a toy web: space sites (target) against cooking and sport sites (other) ---- */

static const char *space[] = {"rocket", "orbit",   "launch", "satellite", "moon",
                              "planet", "shuttle", "nasa",   "telescope", "galaxy"};
static const char *cook[] = {"recipe", "bake",   "flour",   "sugar", "oven",
                             "butter", "dinner", "kitchen", "spice", "garlic"};
static const char *sport[] = {"football", "goal",    "match",  "league", "player",
                              "coach",    "stadium", "season", "team",   "score"};
static const char *generic[] = {"contact", "home", "about", "privacy", "links", "welcome"};

#define SITES    14 /* 0..5 space, 6..9 cooking, 10..13 sport */
#define PAGES    4
#define NDOCS    (SITES * PAGES)
#define TEXT_MAX 256

struct toy {
    char text[NDOCS][TEXT_MAX];
    struct pagecls_doc docs[NDOCS];
};

/* Each page: 6 topic words, 2 generic words and its site's own name word. */
static void toy_build(struct toy *t, bool topical)
{
    uint64_t r = 2024;
    memset(t, 0, sizeof *t);
    for (int s = 0; s < SITES; s++)
        for (int p = 0; p < PAGES; p++) {
            int i = s * PAGES + p;
            const char **pool = s < 6 ? space : s < 10 ? cook : sport;
            char *o = t->text[i];
            int n = snprintf(o, TEXT_MAX, "Sitename%c", 'a' + s);
            for (int w = 0; topical && w < 6; w++)
                n += snprintf(o + n, (size_t)(TEXT_MAX - n), " %s", pool[rng_below(&r, 10)]);
            for (int w = 0; topical && w < 2; w++)
                n += snprintf(o + n, (size_t)(TEXT_MAX - n), " %s", generic[rng_below(&r, 6)]);
            t->docs[i] = (struct pagecls_doc){o, (size_t)n, s < 6 ? PAGECLS_TARGET : PAGECLS_OTHER,
                                              (uint32_t)(1000 + s)};
        }
}

static void toy_params(struct pagecls_params *p)
{
    pagecls_params_default(p);
    p->centroids = 2;
    p->sites_per_centroid = 0; /* k = 2 for both classes whatever their websites */
}

static void classify(const struct pagecls *m, struct pagecls_scratch *s, const char *text,
                     struct pagecls_result *r)
{
    assert_int_equal(pagecls_classify(m, s, text, strlen(text), r), ERR_OK);
    assert_float_equal(r->pr[0] + r->pr[1], 1.0, 1e-12);
}

static void test_train_and_classify(void **state)
{
    (void)state;
    struct toy t;
    toy_build(&t, true);
    struct pagecls_params p;
    toy_params(&p);
    struct pagecls *m = NULL;
    assert_int_equal(pagecls_train(&p, t.docs, NDOCS, &m), ERR_OK);
    assert_int_equal(pagecls_classes(m), 2);
    assert_int_equal(pagecls_centroids(m, PAGECLS_TARGET), 2);
    assert_int_equal(pagecls_centroids(m, PAGECLS_OTHER), 2);
    assert_int_equal(pagecls_centroids(m, 7), 0);
    assert_true(pagecls_terms(m) >= 25 && pagecls_terms(m) <= 36);
    assert_float_equal(pagecls_p_err(m), 0, TOL); /* never cross-validated */

    struct pagecls_scratch *s = NULL;
    assert_int_equal(pagecls_scratch_new(m, &s), ERR_OK);
    struct pagecls_result r;
    classify(m, s, "The rocket launches into orbit around the Moon.", &r);
    assert_true(r.pr[PAGECLS_TARGET] > 0.7);
    assert_int_equal(r.known_terms, 4); /* rocket, launch (stemmed), orbit, moon */
    classify(m, s, "Bake the flour with sugar in the oven", &r);
    assert_true(r.pr[PAGECLS_TARGET] < 0.3);
    classify(m, s, "football league season", &r);
    assert_true(r.pr[PAGECLS_TARGET] < 0.3);
    /* No known term: every distance is 1, so 1/|C| each. */
    classify(m, s, "zyzzyva quokka", &r);
    assert_float_equal(r.pr[0], 0.5, 0);
    assert_int_equal(r.known_terms, 0);
    assert_float_equal(r.dmin[0], 1.0, TOL);
    classify(m, s, "", &r);
    assert_float_equal(r.pr[1], 0.5, 0);
    /* A word of one training site only is not in the model (min_sites = 2). */
    classify(m, s, "Sitenamea sitenamea", &r);
    assert_int_equal(r.known_terms, 0);

    /* A scratch belongs to its model. */
    struct pagecls *m2 = NULL;
    assert_int_equal(pagecls_train(&p, t.docs, NDOCS, &m2), ERR_OK);
    assert_int_equal(pagecls_classify(m2, s, "rocket", 6, &r), ERR_INVAL);
    pagecls_free(m2);
    pagecls_scratch_free(s);
    pagecls_free(m);
    pagecls_scratch_free(NULL);
    pagecls_free(NULL);
}

/* k per class from its websites: ceil(sites / sites_per_centroid) within [1, centroids]. */
static void test_class_centroids(void **state)
{
    (void)state;
    static const struct {
        uint32_t centroids, per, sites, want;
    } cases[] = {
        {4, 15, 30, 2}, {4, 15, 27, 2},  {4, 15, 22, 2},
        {4, 15, 16, 2}, {4, 15, 15, 1},  {4, 15, 31, 3},
        {4, 15, 90, 4}, {4, 15, 100, 4}, {4, 15, 0, 1},
        {4, 15, 1, 1},  {4, 0, 30, 4},   {4, 0, 0, 4},
        {8, 1, 5, 5},   {1, 15, 100, 1}, {256, 100000, 4000000000u, 256},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct pagecls_params p;
        pagecls_params_default(&p);
        p.centroids = cases[i].centroids;
        p.sites_per_centroid = cases[i].per;
        assert_int_equal(pagecls_class_centroids(&p, cases[i].sites), cases[i].want);
    }
    struct pagecls_params d;
    pagecls_params_default(&d);
    assert_int_equal(d.centroids, 4);
    assert_int_equal(d.sites_per_centroid, 15);
}

/* Training applies it per class: 6 target websites and 8 other ones, 3 per centroid. */
static void test_centroids_from_sites(void **state)
{
    (void)state;
    struct toy t;
    toy_build(&t, true);
    struct pagecls_params p;
    pagecls_params_default(&p);
    p.sites_per_centroid = 3;
    struct pagecls *m = NULL;
    assert_int_equal(pagecls_train(&p, t.docs, NDOCS, &m), ERR_OK);
    assert_int_equal(pagecls_centroids(m, PAGECLS_TARGET), 2);
    assert_int_equal(pagecls_centroids(m, PAGECLS_OTHER), 3);
    pagecls_free(m);
    p.sites_per_centroid = 0;
    assert_int_equal(pagecls_train(&p, t.docs, NDOCS, &m), ERR_OK);
    assert_int_equal(pagecls_centroids(m, PAGECLS_TARGET), 4);
    assert_int_equal(pagecls_centroids(m, PAGECLS_OTHER), 4);
    pagecls_free(m);
    p.sites_per_centroid = PAGECLS_MAX_SITES_PER_CENTROID + 1;
    assert_int_equal(pagecls_train(&p, t.docs, NDOCS, &m), ERR_INVAL);
    assert_null(m);
}

static void test_deterministic_training(void **state)
{
    (void)state;
    struct toy t;
    toy_build(&t, true);
    struct pagecls_params p;
    toy_params(&p);
    struct buf b[2];
    for (int i = 0; i < 2; i++) {
        struct pagecls *m = NULL;
        assert_int_equal(pagecls_train(&p, t.docs, NDOCS, &m), ERR_OK);
        buf_init(&b[i], 0);
        assert_int_equal(pagecls_serialize(m, &b[i]), ERR_OK);
        pagecls_free(m);
    }
    assert_int_equal(b[0].len, b[1].len);
    assert_memory_equal(b[0].data, b[1].data, b[0].len);
    buf_release(&b[0]);
    buf_release(&b[1]);
}

static void test_cross_validation(void **state)
{
    (void)state;
    struct toy t;
    toy_build(&t, true);
    struct pagecls_params p;
    toy_params(&p);
    struct pagecls_cv cv;
    double pr[NDOCS * 2];
    assert_int_equal(pagecls_cross_validate(&p, t.docs, NDOCS, 10, &cv, pr), ERR_OK);
    assert_int_equal(cv.folds, 10);
    assert_int_equal(cv.sites, SITES);
    assert_int_equal(cv.pages, NDOCS);
    assert_true(cv.accuracy > 0.9);
    assert_float_equal(cv.p_err, 1 - cv.accuracy, TOL);
    assert_float_equal(cv.correct, cv.accuracy * NDOCS, 1e-9);
    for (int i = 0; i < NDOCS; i++)
        assert_float_equal(pr[2 * i] + pr[2 * i + 1], 1.0, 1e-12);

    /* train_cv stores the same figures in the model. */
    struct pagecls *m = NULL;
    assert_int_equal(pagecls_train_cv(&p, t.docs, NDOCS, 10, &m, NULL), ERR_OK);
    assert_float_equal(pagecls_p_err(m), cv.p_err, TOL);
    assert_int_equal(pagecls_get_cv(m)->folds, 10);
    pagecls_free(m);

    /* More folds than sites: one site per fold. */
    assert_int_equal(pagecls_cross_validate(&p, t.docs, NDOCS, 50, &cv, NULL), ERR_OK);
    assert_int_equal(cv.folds, SITES);
}

static void test_cv_holds_out_whole_sites(void **state)
{
    (void)state;
    /* Pages carry only their site's name: a page split would learn it from sibling pages
     * (accuracy 1); a site split never sees it, so every held-out page is a 0.5/0.5 tie,
     * which counts half. */
    struct toy t;
    toy_build(&t, false);
    struct pagecls_params p;
    toy_params(&p);
    p.min_sites = 1;
    struct pagecls_cv cv;
    double pr[NDOCS * 2];
    assert_int_equal(pagecls_cross_validate(&p, t.docs, NDOCS, 10, &cv, pr), ERR_OK);
    assert_float_equal(cv.accuracy, 0.5, TOL);
    assert_float_equal(cv.p_err, 0.5, TOL);
    for (int i = 0; i < NDOCS * 2; i++)
        assert_float_equal(pr[i], 0.5, 0);
}

static void test_training_errors(void **state)
{
    (void)state;
    struct toy t;
    toy_build(&t, true);
    struct pagecls_params p;
    toy_params(&p);
    struct pagecls *m = (struct pagecls *)&t;
    struct pagecls_cv cv;
    assert_int_equal(pagecls_train(&p, t.docs, 0, &m), ERR_INVAL);
    assert_null(m);
    /* Only target pages (sites 0..5 = docs 0..23). */
    assert_int_equal(pagecls_train(&p, t.docs, 24, &m), ERR_INVAL);
    struct pagecls_params bad = p;
    bad.centroids = 0;
    assert_int_equal(pagecls_train(&bad, t.docs, NDOCS, &m), ERR_INVAL);
    bad = p;
    bad.eps = 0.5;
    assert_int_equal(pagecls_train(&bad, t.docs, NDOCS, &m), ERR_INVAL);
    struct pagecls_doc d[NDOCS];
    memcpy(d, t.docs, sizeof d);
    d[0].cls = PAGECLS_MAX_CLASSES;
    assert_int_equal(pagecls_train(&p, d, NDOCS, &m), ERR_INVAL);
    /* Class 2 without pages with kept terms. */
    memcpy(d, t.docs, sizeof d);
    d[NDOCS - 1].cls = 2;
    d[NDOCS - 1].text = "unique";
    d[NDOCS - 1].len = 6;
    assert_int_equal(pagecls_train(&p, d, NDOCS, &m), ERR_INVAL);
    /* Cross-validation: one fold, or one site of a class. */
    assert_int_equal(pagecls_cross_validate(&p, t.docs, NDOCS, 1, &cv, NULL), ERR_INVAL);
    assert_int_equal(pagecls_cross_validate(&p, t.docs, 6 * PAGES + PAGES, 10, &cv, NULL),
                     ERR_INVAL);
    assert_null(m);
}

/* ---- model bytes ---- */

static struct pagecls *toy_model(bool stem)
{
    static struct toy t;
    toy_build(&t, true);
    struct pagecls_params p;
    toy_params(&p);
    p.tok.stem = stem;
    struct pagecls *m = NULL;
    assert_int_equal(pagecls_train_cv(&p, t.docs, NDOCS, 5, &m, NULL), ERR_OK);
    return m;
}

static const char *probe[] = {"rocket launching orbit", "bake bread in the oven", "goal!",
                              "nothing known here",     "contact home about",     ""};

static void test_round_trip(void **state)
{
    (void)state;
    for (int stem = 0; stem < 2; stem++) {
        struct pagecls *m = toy_model(stem);
        struct buf b, b2;
        buf_init(&b, 0);
        buf_init(&b2, 0);
        assert_int_equal(pagecls_serialize(m, &b), ERR_OK);
        struct pagecls *m2 = NULL;
        assert_int_equal(pagecls_deserialize(b.data, b.len, &m2), ERR_OK);
        assert_int_equal(pagecls_serialize(m2, &b2), ERR_OK);
        assert_int_equal(b.len, b2.len);
        assert_memory_equal(b.data, b2.data, b.len);
        assert_int_equal(pagecls_get_params(m2)->tok.stem, stem);
        assert_float_equal(pagecls_p_err(m2), pagecls_p_err(m), 0);
        assert_int_equal(pagecls_get_cv(m2)->pages, NDOCS);
        /* The calibration fit in cross-validation is kept (classifier/calib.h). */
        assert_true(pagecls_get_cv(m)->calib.a > 0);
        assert_float_equal(pagecls_get_cv(m2)->calib.a, pagecls_get_cv(m)->calib.a, 0);
        assert_float_equal(pagecls_get_cv(m2)->calib.temper, CALIB_TEMPER, 0);

        struct pagecls_scratch *s = NULL, *s2 = NULL;
        assert_int_equal(pagecls_scratch_new(m, &s), ERR_OK);
        assert_int_equal(pagecls_scratch_new(m2, &s2), ERR_OK);
        for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
            struct pagecls_result r, r2;
            classify(m, s, probe[i], &r);
            classify(m2, s2, probe[i], &r2);
            assert_memory_equal(&r, &r2, sizeof r); /* bit-identical */
        }
        pagecls_scratch_free(s);
        pagecls_scratch_free(s2);
        pagecls_free(m);
        pagecls_free(m2);
        buf_release(&b);
        buf_release(&b2);
    }
}

static void expect_parse_error(const unsigned char *data, size_t len)
{
    struct pagecls *m = (struct pagecls *)&len;
    enum err e = pagecls_deserialize(data, len, &m);
    if (e != ERR_PARSE)
        fail_msg("deserialize of %zu bytes: %s, want ERR_PARSE", len, err_str(e));
    assert_null(m);
}

/*
 * A kNN model's bytes as format version 1 or 2 wrote them: without the kind (bytes
 * 8..11), svm_c (48..55) and the calibration's offset (the last 8 bytes) of version 3,
 * and for version 1 without the calibration (the 24 bytes before). out has room for
 * len bytes; returns the length.
 */
static size_t old_format(const unsigned char *v3, size_t len, uint32_t version, unsigned char *out)
{
    size_t tail = len - 56 - 8 - (version == 1 ? 24 : 0);
    memcpy(out, v3, 8);
    out[4] = (unsigned char)version;
    memcpy(out + 8, v3 + 12, 36); /* flags .. eps */
    memcpy(out + 44, v3 + 56, tail);
    return 44 + tail;
}

static void test_corrupt_models(void **state)
{
    (void)state;
    struct pagecls *m = toy_model(true);
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(pagecls_serialize(m, &b), ERR_OK);
    pagecls_free(m);
    unsigned char *d = malloc(b.len + 1);
    memcpy(d, b.data, b.len);

    /* Every truncation, and one trailing byte. */
    for (size_t n = 0; n < b.len; n++)
        expect_parse_error(d, n);
    d[b.len] = 0;
    expect_parse_error(d, b.len + 1);

    /* Targeted damage: magic, version, kind, flags, eps, svm_c, number of classes. */
    struct patch {
        size_t off;
        unsigned char byte;
    } patches[] = {
        {0, 'X'},   /* magic */
        {4, 4},     /* format version 4 */
        {4, 0},     /* format version 0 */
        {8, 2},     /* kind 2 */
        {12, 0x80}, /* unknown flag */
        {47, 0x7f}, /* eps (last byte of the f64 at 40): about 1e307 */
        {55, 0xff}, /* svm_c (the f64 at 48): NaN */
        {55, 0x41}, /* svm_c: 2^32, above PAGECLS_MAX_SVM_C */
        {56, 1},    /* one class */
        {56, 9},    /* nine classes */
        {60, 0},    /* class 0 with 0 centroids */
    };
    for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
        unsigned char saved = d[patches[i].off];
        d[patches[i].off] = patches[i].byte;
        expect_parse_error(d, b.len);
        d[patches[i].off] = saved;
    }

    /* Models of versions 1 (no calibration) and 2 (no kind) still load, as kNN models. */
    unsigned char *old = malloc(b.len);
    for (uint32_t version = 1; version <= 2; version++) {
        struct pagecls *v = NULL;
        size_t n = old_format(d, b.len, version, old);
        assert_int_equal(pagecls_deserialize(old, n, &v), ERR_OK);
        assert_int_equal(pagecls_kind(v), PAGECLS_KNN);
        assert_true(version == 1 ? pagecls_get_cv(v)->calib.a == 0
                                 : pagecls_get_cv(v)->calib.a > 0);
        assert_int_equal(pagecls_centroids(v, PAGECLS_TARGET), 2);
        pagecls_free(v);
    }
    free(old);

    /* Any single-byte change: ERR_OK or ERR_PARSE, and a loaded model classifies sanely. */
    for (size_t i = 0; i < b.len; i++)
        for (int bit = 0; bit < 8; bit += 3) {
            d[i] ^= (unsigned char)(1u << bit);
            struct pagecls *x = NULL;
            enum err e = pagecls_deserialize(d, b.len, &x);
            assert_true(e == ERR_OK || e == ERR_PARSE);
            if (e == ERR_OK) {
                struct pagecls_scratch *s = NULL;
                struct pagecls_result r;
                assert_int_equal(pagecls_scratch_new(x, &s), ERR_OK);
                assert_int_equal(pagecls_classify(x, s, probe[0], strlen(probe[0]), &r), ERR_OK);
                assert_true(isfinite(r.pr[0]) && r.pr[0] >= 0 && r.pr[0] <= 1);
                pagecls_scratch_free(s);
                pagecls_free(x);
            }
            d[i] ^= (unsigned char)(1u << bit);
        }
    free(d);
    buf_release(&b);
}

/* ---- the SVM page classifier (classifier/svm.h behind the same interface) ---- */

static void svm_params(struct pagecls_params *p)
{
    toy_params(p);
    p->kind = PAGECLS_SVM;
}

static void test_svm_train_and_classify(void **state)
{
    (void)state;
    struct toy t;
    toy_build(&t, true);
    struct pagecls_params p;
    svm_params(&p);
    struct pagecls *m = NULL;
    assert_int_equal(pagecls_train_cv(&p, t.docs, NDOCS, 5, &m, NULL), ERR_OK);
    assert_int_equal(pagecls_kind(m), PAGECLS_SVM);
    assert_int_equal(pagecls_classes(m), 2);
    assert_int_equal(pagecls_centroids(m, PAGECLS_TARGET), 0);
    assert_true(pagecls_get_cv(m)->accuracy > 0.9);
    assert_true(pagecls_get_cv(m)->calib.a > 0);

    struct pagecls_scratch *s = NULL;
    assert_int_equal(pagecls_scratch_new(m, &s), ERR_OK);
    struct pagecls_result r;
    classify(m, s, "The rocket launches into orbit around the Moon.", &r);
    assert_true(r.margin > 0 && r.pr[PAGECLS_TARGET] > 0.7);
    assert_int_equal(r.known_terms, 4);
    classify(m, s, "Bake the flour with sugar in the oven", &r);
    assert_true(r.margin < 0 && r.pr[PAGECLS_TARGET] < 0.3);
    classify(m, s, "football league season", &r);
    assert_true(r.margin < 0 && r.pr[PAGECLS_TARGET] < 0.3);
    /* No known term: the bias alone says nothing about the page. */
    classify(m, s, "zyzzyva quokka", &r);
    assert_float_equal(r.pr[PAGECLS_TARGET], 0.5, 0);
    assert_int_equal(r.known_terms, 0);
    pagecls_scratch_free(s);
    pagecls_free(m);

    /* Two classes only. */
    struct pagecls_doc d[NDOCS];
    memcpy(d, t.docs, sizeof d);
    for (int i = 10 * PAGES; i < NDOCS; i++)
        d[i].cls = 2; /* the sport sites */
    assert_int_equal(pagecls_train(&p, d, NDOCS, &m), ERR_INVAL);
    assert_null(m);
    p.svm_c = 0;
    assert_int_equal(pagecls_train(&p, t.docs, NDOCS, &m), ERR_INVAL);
}

static void test_svm_round_trip(void **state)
{
    (void)state;
    struct toy t;
    toy_build(&t, true);
    struct pagecls_params p;
    svm_params(&p);
    p.svm_c = 2.5;
    struct pagecls *m = NULL, *m2 = NULL;
    assert_int_equal(pagecls_train_cv(&p, t.docs, NDOCS, 5, &m, NULL), ERR_OK);
    struct buf b, b2;
    buf_init(&b, 0);
    buf_init(&b2, 0);
    assert_int_equal(pagecls_serialize(m, &b), ERR_OK);
    assert_int_equal(pagecls_deserialize(b.data, b.len, &m2), ERR_OK);
    assert_int_equal(pagecls_kind(m2), PAGECLS_SVM);
    assert_float_equal(pagecls_get_params(m2)->svm_c, 2.5, 0);
    assert_float_equal(pagecls_get_cv(m2)->calib.a, pagecls_get_cv(m)->calib.a, 0);
    assert_int_equal(pagecls_serialize(m2, &b2), ERR_OK);
    assert_int_equal(b.len, b2.len);
    assert_memory_equal(b.data, b2.data, b.len);
    struct pagecls_scratch *s = NULL, *s2 = NULL;
    assert_int_equal(pagecls_scratch_new(m, &s), ERR_OK);
    assert_int_equal(pagecls_scratch_new(m2, &s2), ERR_OK);
    for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
        struct pagecls_result r, r2;
        classify(m, s, probe[i], &r);
        classify(m2, s2, probe[i], &r2);
        assert_memory_equal(&r, &r2, sizeof r); /* bit-identical */
    }
    pagecls_scratch_free(s);
    pagecls_scratch_free(s2);
    pagecls_free(m2);

    /* Every truncation, a trailing byte, and a NaN weight or bias are refused. */
    unsigned char *d = malloc(b.len + 1);
    memcpy(d, b.data, b.len);
    for (size_t n = 0; n < b.len; n++)
        expect_parse_error(d, n);
    d[b.len] = 0;
    expect_parse_error(d, b.len + 1);
    /* The bias is the f64 before the 72 bytes of cross-validation figures. */
    size_t bias_msb = b.len - 72 - 1;
    d[bias_msb] = 0xff;
    d[bias_msb - 1] = 0xff;
    expect_parse_error(d, b.len);
    /* An SVM of three classes. */
    memcpy(d, b.data, b.len);
    d[56] = 3;
    expect_parse_error(d, b.len);
    free(d);
    pagecls_free(m);
    buf_release(&b);
    buf_release(&b2);
}

/* Little-endian writers for a model made by hand. */
static void put32(struct buf *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    assert_int_equal(buf_append(b, x, 4), ERR_OK);
}

static void put64(struct buf *b, uint64_t v)
{
    put32(b, (uint32_t)v);
    put32(b, (uint32_t)(v >> 32));
}

static void putf(struct buf *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put64(b, u);
}

/*
 * The decision on known vectors, through the model bytes: an SVM of two terms written
 * by hand (idf 1, w = (2, -1), b = 0.5, no calibration). "rocket" is the unit vector
 * e_rocket: margin 2 + 0.5; "rocket bake" is (1, 1) / sqrt 2: margin 0.5 + 1 / sqrt 2.
 */
static void test_svm_decision_known_vector(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(buf_append(&b, "SSPC", 4), ERR_OK);
    put32(&b, 3);           /* version */
    put32(&b, PAGECLS_SVM); /* kind */
    put32(&b, 4);           /* flags: sublinear tf, no stemming */
    put32(&b, 1);           /* min_df */
    put32(&b, 1);           /* min_sites */
    put32(&b, 4);           /* centroids */
    put32(&b, 30);          /* max_iter */
    put64(&b, 1);           /* seed */
    putf(&b, 1e-6);         /* eps */
    putf(&b, 1);            /* svm_c */
    put32(&b, 2);           /* classes */
    put32(&b, 2);           /* terms */
    assert_int_equal(buf_append(&b,
                                "\x06rocket\x04"
                                "bake",
                                12),
                     ERR_OK);
    putf(&b, 1); /* idf */
    putf(&b, 1);
    putf(&b, 2); /* w */
    putf(&b, -1);
    putf(&b, 0.5); /* b */
    put32(&b, 0);  /* folds, sites, pages, correct, accuracy, p_err, calibration */
    put32(&b, 0);
    put64(&b, 0);
    for (int i = 0; i < 7; i++)
        putf(&b, 0);
    struct pagecls *m = NULL;
    assert_int_equal(pagecls_deserialize(b.data, b.len, &m), ERR_OK);
    struct pagecls_scratch *s = NULL;
    assert_int_equal(pagecls_scratch_new(m, &s), ERR_OK);
    struct pagecls_result r;
    classify(m, s, "rocket", &r);
    assert_float_equal(r.margin, 2.5, 1e-15);
    assert_float_equal(r.pr[PAGECLS_TARGET], 1 / (1 + exp(-2.5)), 1e-15);
    classify(m, s, "rocket bake", &r);
    assert_float_equal(r.margin, 0.5 + 1 / sqrt(2), 1e-12);
    classify(m, s, "bake bake bake", &r); /* unit length whatever the count */
    assert_float_equal(r.margin, -0.5, 1e-12);
    assert_true(r.pr[PAGECLS_TARGET] < 0.5);
    classify(m, s, "moon", &r);
    assert_float_equal(r.pr[PAGECLS_TARGET], 0.5, 0);
    pagecls_scratch_free(s);
    pagecls_free(m);
    buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_confidence_formula),
        cmocka_unit_test(test_link_weight),
        cmocka_unit_test(test_train_and_classify),
        cmocka_unit_test(test_class_centroids),
        cmocka_unit_test(test_centroids_from_sites),
        cmocka_unit_test(test_deterministic_training),
        cmocka_unit_test(test_cross_validation),
        cmocka_unit_test(test_cv_holds_out_whole_sites),
        cmocka_unit_test(test_training_errors),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_corrupt_models),
        cmocka_unit_test(test_svm_train_and_classify),
        cmocka_unit_test(test_svm_round_trip),
        cmocka_unit_test(test_svm_decision_known_vector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
