/*
 * A crawl model's verdict explained page by page (apiexplain.h). jansson: json_pack's "o"
 * and json_object_set_new steal the reference they are given; every other value here is
 * a borrowed one (json_object_get) or the answer's, json_decref'd once.
 */
#include "server/apiexplain.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "job/jobjudge.h"
#include "server/modelcache.h"
#include "store/judgestore.h"
#include "store/store.h"

/* modelcache_load for jobjudge's crawl models. */
static enum err load_model(void *ctx, int64_t job, int64_t id, void **out)
{
    struct jobjudge_model *jm;
    enum err e = jobjudge_model_load_id(ctx, job, id, &jm);
    *out = e ? NULL : jm;
    return e;
}

static void free_model(void *m)
{
    jobjudge_model_free(m);
}

/* A number, or null when it is not finite. */
static json_t *number(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* The model id of a crawl model's verdict in the answer o, or 0. */
static int64_t judging_model(json_t *o)
{
    json_t *judged = json_object_get(o, "judged");
    const char *by = json_string_value(json_object_get(judged, "by"));
    json_t *id = json_object_get(judged, "model_id");
    return by && strcmp(by, "crawl_model") == 0 && json_is_integer(id)
               ? (int64_t)json_integer_value(id)
               : 0;
}

/*
 * Each page of the answer's pages its view by jm. r is the verdict's pages (url, terms),
 * by id as the answer's: read in a later statement, it may have pages the answer has not
 * (read deeper since), so the two are walked together by url. The website's score into
 * *score (NaN: no page counted).
 */
static enum err add_pages(json_t *pages, const struct jobjudge_model *jm,
                          const struct store_rows *r, double *score)
{
    size_t n = json_array_size(pages);
    const char **terms = calloc(n ? n : 1, sizeof *terms);
    double *pr = malloc((n ? n : 1) * sizeof *pr), *w = malloc((n ? n : 1) * sizeof *w);
    enum err e = terms && pr && w ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    int row = 0, rows = r ? store_rows_count(r) : 0;
    for (size_t i = 0; !e && i < n; i++) {
        const char *url = json_string_value(json_object_get(json_array_get(pages, i), "url"));
        if (url && row < rows && strcmp(url, store_rows_get(r, row, 0)) == 0)
            terms[i] = store_rows_get(r, row++, 1);
    }
    *score = !e && jm ? jobjudge_model_pages(jm, terms, n, pr, w) : NAN;
    for (size_t i = 0; !e && i < n; i++) {
        int counted = jm && w[i] > 0;
        json_t *page = json_array_get(pages, i);
        if (json_object_set_new(page, "model_pr", counted ? number(pr[i]) : json_null()) ||
            json_object_set_new(page, "model_weight", counted ? json_real(w[i]) : json_null()))
            e = err_set(ERR_NOMEM, "out of memory");
    }
    free(terms);
    free(pr);
    free(w);
    return e;
}

/*
 * The answer's crawl_model member: the model's figures, the website's score and its
 * text's evidence, logit(score) - logit(threshold); its links' evidence as the judging
 * stored it (judged.links, classifier/linkjudge.h; none: 0 and null); the confidence
 * from both; vetoed: both say relevant but the examination said not and its links did not
 * overrule it (by more than the model's exam_links), or the judging found it more like a
 * website the user rejected than like any relevant one (judged.like_rejected).
 */
static json_t *model_view(const struct jobjudge_model *jm, int64_t id, double score, json_t *o)
{
    double t = jobjudge_model_threshold(jm), text = jobjudge_evidence(score, t);
    json_t *links = json_object_get(json_object_get(o, "judged"), "links");
    json_t *lev = json_object_get(links, "evidence");
    double ev = json_is_number(lev) ? json_number_value(lev) : 0;
    json_t *like = json_object_get(json_object_get(o, "judged"), "like_rejected");
    /* The examination's "not relevant" stands unless the judging weighed the links and they
     * say relevant by more than its exam_links (classifier/linkjudge.h). */
    int exam_stands = json_is_false(json_object_get(o, "examined_relevant")) &&
                      !(json_is_number(lev) && ev > jobjudge_model_exam_links(jm));
    int vetoed = text + ev > 0 && (exam_stands || json_is_string(like));
    double conf = jobjudge_link_confidence(text, ev, vetoed);
    return json_pack("{s:I, s:o, s:f, s:o, s:o, s:o, s:f, s:b}", "model_id", (json_int_t)id,
                     "score", number(score), "threshold", t, "text_evidence", number(text),
                     "link_evidence", json_is_number(lev) ? number(ev) : json_null(), "confidence",
                     number(conf), "weight_cap", jobjudge_model_weight_cap(jm), "vetoed", vetoed);
}

enum err apiexplain_crawl_model(struct store *s, int64_t job, const char *host, char **json)
{
    json_error_t jerr;
    json_t *o = json_loads(*json, 0, &jerr);
    json_t *pages = json_object_get(o, "pages");
    struct jobjudge_model *jm = NULL;
    struct store_rows *r = NULL;
    enum err e = ERR_OK;
    if (!o || !json_is_array(pages)) {
        e = err_set(ERR_IO, "a verdict's explanation: the store's answer %s",
                    o ? "has no pages" : "is not JSON");
        goto out;
    }
    int64_t id = judging_model(o);
    void *kept = NULL;
    if (id > 0 && (e = modelcache_get(job, id, load_model, s, free_model, &kept)) != ERR_OK &&
        e != ERR_DB) {
        /* Deleted since, or stored before models kept their bytes: no view of it. */
        log_warn("job %lld: %s: crawl model %lld not read: %s", (long long)job, host, (long long)id,
                 err_msg());
        e = ERR_OK;
    }
    jm = kept;
    if (!e && jm)
        e = judgestore_site_terms(s, job, host, id, &r);
    double score = NAN;
    if (!e)
        e = add_pages(pages, jm, r, &score);
    json_t *cm = !e && jm && isfinite(score) ? model_view(jm, id, score, o) : json_null();
    if (!e && (!cm || json_object_set_new(o, "crawl_model", cm)))
        e = err_set(ERR_NOMEM, "out of memory");
    char *text = e ? NULL : json_dumps(o, JSON_COMPACT);
    if (!e && !text)
        e = err_set(ERR_NOMEM, "out of memory");
    if (!e) {
        free(*json);
        *json = text;
    }
out:
    modelcache_done(jm);
    store_rows_free(r);
    json_decref(o);
    return e;
}
