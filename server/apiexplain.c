/* A crawl model's verdict explained page by page (apiexplain.h). */
#include "server/apiexplain.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job/jobjudge.h"
#include "store/judgestore.h"
#include "store/store.h"

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
 * Each page of the answer's pages its view by jm (the page terms r, in the same order:
 * both are the website's pages by id); the website's score into *score (NaN: no page
 * counted).
 */
static enum err add_pages(json_t *pages, const struct jobjudge_model *jm,
                          const struct store_rows *r, double *score)
{
    double sum = 0, weight = 0;
    size_t i;
    json_t *page;
    json_array_foreach(pages, i, page)
    {
        double pr = NAN, w = 0;
        int counted = jm && (int)i < store_rows_count(r) &&
                      jobjudge_model_page(jm, store_rows_get(r, (int)i, 0), &pr, &w) && w > 0;
        if (json_object_set_new(page, "model_pr", counted ? number(pr) : json_null()) ||
            json_object_set_new(page, "model_weight", counted ? json_real(w) : json_null()))
            return err_set(ERR_NOMEM, "out of memory");
        if (counted) {
            sum += w * pr;
            weight += w;
        }
    }
    *score = weight > 0 ? sum / weight : NAN;
    return ERR_OK;
}

enum err apiexplain_crawl_model(struct store *s, int64_t job, const char *host, char **json)
{
    json_error_t jerr;
    json_t *o = json_loads(*json, 0, &jerr);
    json_t *pages = json_object_get(o, "pages");
    if (!o || !json_is_array(pages)) {
        json_decref(o);
        return err_set(ERR_PARSE, "a verdict's explanation: %s", o ? "no pages" : jerr.text);
    }
    int64_t id = judging_model(o);
    struct jobjudge_model *jm = NULL;
    struct store_rows *r = NULL;
    enum err e = ERR_OK;
    if (id > 0 && (e = jobjudge_model_load_id(s, job, id, &jm)) == ERR_NOTFOUND)
        e = ERR_OK; /* its model was deleted since: no view of it */
    if (!e && jm)
        e = judgestore_site_terms(s, job, host, id, &r);
    double score = NAN;
    if (!e)
        e = add_pages(pages, jm, r, &score);
    json_t *cm = json_null();
    if (!e && jm && isfinite(score)) {
        double t = jobjudge_model_threshold(jm);
        cm = json_pack("{s:I, s:o, s:f, s:o}", "model_id", (json_int_t)id, "score", number(score),
                       "threshold", t, "confidence", number(jobjudge_confidence(score, t)));
    }
    if (!e && (!cm || json_object_set_new(o, "crawl_model", cm)))
        e = err_set(ERR_NOMEM, "out of memory");
    char *text = e ? NULL : json_dumps(o, JSON_COMPACT);
    if (!e && !text)
        e = err_set(ERR_NOMEM, "out of memory");
    if (!e) {
        free(*json);
        *json = text;
    }
    jobjudge_model_free(jm);
    store_rows_free(r);
    json_decref(o);
    return e;
}
