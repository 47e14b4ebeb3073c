/* A stored crawl model loaded to judge with (jobjudge.h, jobjudge_model_load). */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/sitejudge.h"
#include "common/grow.h"
#include "job/jobjudge.h"
#include "job/jobmodel.h"
#include "store/judgestore.h"
#include "store/models.h"
#include "store/store.h"

/* The vocabulary of a stored model's bytes into jm->v; *at, *left past it. */
static enum err vocab_read(struct jobjudge_model *jm, const unsigned char **at, size_t *left)
{
    uint32_t n;
    if (*left < sizeof n)
        return err_set(ERR_PARSE, "crawl model bytes: no vocabulary");
    memcpy(&n, *at, sizeof n);
    *at += sizeof n, *left -= sizeof n;
    for (uint32_t t = 0; t < n; t++) {
        size_t len = *left ? **at : 0;
        if (!*left || len + 1 > *left)
            return err_set(ERR_PARSE, "crawl model bytes: term %u of %u cut short", t, n);
        uint32_t id;
        bool added;
        enum err e = vocab_add(&jm->v, (const char *)*at + 1, len, &id, &added);
        if (e)
            return e;
        if (!added || id != t)
            return err_set(ERR_PARSE, "crawl model bytes: term %u twice", t);
        *at += 1 + len, *left -= 1 + len;
    }
    return ERR_OK;
}

/* A number member of a JSON object text, or def. */
static double json_member(const char *text, const char *key, double def)
{
    json_error_t jerr;
    json_t *o = text ? json_loads(text, 0, &jerr) : NULL;
    json_t *v = json_object_get(o, key);
    double x = json_is_number(v) ? json_number_value(v) : def;
    json_decref(o);
    return x;
}

/* A stored crawl model's record as a model (its vocabulary, bytes, threshold, cap). */
static enum err model_of_record(const struct models_record *rec, struct jobjudge_model **out)
{
    *out = NULL;
    struct jobjudge_model *jm = calloc(1, sizeof *jm);
    if (!jm)
        return err_set(ERR_NOMEM, "out of memory");
    vocab_init(&jm->v);
    struct jobjudge_params d;
    jobjudge_params_default(&d);
    jm->threshold = json_member(rec->cv, "threshold", d.threshold);
    jm->weight_cap = json_member(rec->params, "weight_cap", d.weight_cap);
    jm->exam_links = json_member(rec->params, "exam_links", INFINITY); /* none: it stood */
    const unsigned char *at = rec->data;
    size_t left = rec->len;
    enum err e = vocab_read(jm, &at, &left);
    if (!e)
        e = nbem_deserialize(at, left, &jm->m);
    if (!e && nbem_terms(jm->m) != jm->v.n)
        e = err_set(ERR_PARSE, "crawl model bytes: %u terms, a vocabulary of %u", nbem_terms(jm->m),
                    jm->v.n);
    if (!e && !(jm->threshold > 0 && jm->threshold < 1 && jm->weight_cap > 0))
        e = err_set(ERR_PARSE, "crawl model %lld: threshold %g, weight cap %g", (long long)rec->id,
                    jm->threshold, jm->weight_cap);
    if (e) {
        jobjudge_model_free(jm);
        return e;
    }
    *out = jm;
    return ERR_OK;
}

/* A new website of the rows r (row i its first) in the likeness rows' arrays. */
static enum err like_site(const struct store_rows *r, int i, size_t n, size_t at, size_t **ats,
                          uint32_t **label, char ***host, size_t *caps)
{
    if (grow_array((void **)ats, &caps[0], n + 2, sizeof **ats) ||
        grow_array((void **)label, &caps[1], n + 1, sizeof **label) ||
        grow_array((void **)host, &caps[2], n + 1, sizeof **host))
        return err_set(ERR_NOMEM, "out of memory");
    int rejected = strcmp(store_rows_get(r, i, 1), "rejected") == 0;
    (*ats)[n] = at;
    (*label)[n] = rejected ? SITEJUDGE_REJECTED : NBEM_TARGET;
    (*host)[n] = rejected ? strdup(store_rows_get(r, i, 0)) : NULL;
    return rejected && !(*host)[n] ? err_set(ERR_NOMEM, "out of memory") : ERR_OK;
}

/* The likeness rows of the job's labelled websites and relevant examples as they are now
 * (keep_rejected's, for a model loaded: a helper vetoes as the lead does); none without a
 * website labelled not relevant. */
static enum err load_like(struct store *s, int64_t job, struct jobjudge_model *jm)
{
    struct store_rows *r = NULL;
    enum err e = judgestore_labelled_pages(s, job, &r);
    int rows = e ? 0 : store_rows_count(r);
    struct site_ids ids = {0};
    struct page_ids *pi = rows ? malloc(sizeof *pi) : NULL;
    size_t *ats = NULL, n = 0, caps[3] = {0};
    uint32_t *label = NULL;
    char **host = NULL;
    if (rows && !pi)
        e = err_set(ERR_NOMEM, "out of memory");
    for (int i = 0; !e && i < rows; i++) {
        if (i == 0 || strcmp(store_rows_get(r, i, 0), store_rows_get(r, i - 1, 0)) != 0)
            e = like_site(r, i, n++, ids.n, &ats, &label, &host, caps);
        if (!e && jobmodel_page_ids(jm, pi, store_rows_get(r, i, 2)))
            jobmodel_site_ids_add(&ids, pi);
    }
    if (!e && ids.failed)
        e = err_set(ERR_NOMEM, "out of memory");
    if (!e && n) {
        ats[n] = ids.n;
        struct sitelike_sites w = {ids.term, ids.count, ats, label, n, nbem_terms(jm->m)};
        e = sitelike_rows_new(&w, SITEJUDGE_REJECTED, NBEM_TARGET, &jm->like);
    }
    if (!e && jm->like) {
        jm->rejected_host = host, jm->n_sites = n;
        host = NULL;
    }
    for (size_t k = 0; host && k < n; k++)
        free(host[k]);
    free(host);
    free(label);
    free(ats);
    free(ids.term);
    free(ids.count);
    free(pi);
    store_rows_free(r);
    return e;
}

enum err jobjudge_model_load(struct store *s, int64_t job, int64_t *id, struct jobjudge_model **out)
{
    *out = NULL;
    *id = 0;
    struct models_record *rec;
    enum err e = models_load_latest(s, job, MODELS_CRAWL, &rec);
    if (e)
        return e;
    e = model_of_record(rec, out);
    if (!e)
        *id = rec->id;
    models_record_free(rec);
    if (!e && (e = load_like(s, job, *out)) != ERR_OK) {
        jobjudge_model_free(*out);
        *out = NULL;
    }
    return e;
}

size_t jobjudge_model_rejected(const struct jobjudge_model *jm)
{
    size_t n = 0;
    for (size_t k = 0; jm->rejected_host && k < jm->n_sites; k++)
        n += jm->rejected_host[k] != NULL;
    return n;
}

enum err jobjudge_model_load_id(struct store *s, int64_t job, int64_t id,
                                struct jobjudge_model **out)
{
    *out = NULL;
    struct models_record *rec;
    enum err e = models_load(s, id, &rec);
    if (e)
        return e;
    if (rec->job_id != job || strcmp(rec->kind, MODELS_CRAWL) != 0)
        e = err_set(ERR_NOTFOUND, "job %lld has no crawl model %lld", (long long)job,
                    (long long)id);
    else
        e = model_of_record(rec, out);
    models_record_free(rec);
    return e;
}
