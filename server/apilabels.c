/* The API's labels (apilabels.h). */
#include "server/apilabels.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "server/apireply.h"
#include "server/httpneg.h"
#include "job/joblabels.h"
#include "server/respcache.h"
#include "store/labelstore.h"
#include "store/store.h"

/* The answer to a label given or taken back. */
static enum err answer(struct http_response *resp, const char *host, int label,
                       const struct labelstore_result *r)
{
    json_t *o =
        json_pack("{s:s, s:o, s:s, s:o, s:b, s:I}", "host", host, "label",
                  label == LABELSTORE_CLEAR ? json_null() : json_boolean(label), "state", r->state,
                  "relevant", r->relevant < 0 ? json_null() : json_boolean(r->relevant), "changed",
                  r->changed, "relevant_found", (json_int_t)r->relevant_found);
    return api_reply_json(resp, o);
}

static enum err set(struct store *s, struct http_response *resp, int64_t job, const char *host,
                    int label)
{
    struct labelstore_result r;
    enum err e = joblabels_set(s, job, host, label, &r);
    respcache_drop_job(job); /* the job's lists change at once */
    if (e) {
        api_reply_err(resp, e, 422);
        return e;
    }
    return answer(resp, host, label, &r);
}

enum err apilabels_put(struct store *s, const struct http_request *req, struct http_response *resp,
                       int64_t job, const char *host)
{
    if (!httpneg_is_json(http_request_header(req, "Content-Type"))) {
        api_reply_error(resp, 415, "unsupported_media_type",
                        "a label must be sent as Content-Type: application/json", NULL);
        return ERR_INVAL;
    }
    json_error_t jerr;
    json_t *body = json_loadb(req->body, req->body_len, 0, &jerr);
    json_t *rel = json_is_object(body) ? json_object_get(body, "relevant") : NULL;
    int ok = json_is_boolean(rel) && json_object_size(body) == 1;
    int label = ok && json_is_true(rel) ? LABELSTORE_RELEVANT : LABELSTORE_NOT;
    json_decref(body);
    if (!ok) {
        api_reply_error(resp, 422, "invalid",
                        "relevant: a label's body is {\"relevant\": true} or {\"relevant\": false}",
                        "relevant");
        return ERR_INVAL;
    }
    return set(s, resp, job, host, label);
}

enum err apilabels_delete(struct store *s, struct http_response *resp, int64_t job,
                          const char *host)
{
    return set(s, resp, job, host, LABELSTORE_CLEAR);
}

enum err apilabels_list(struct store *s, struct http_response *resp, int64_t job)
{
    struct store_rows *r;
    enum err e = labelstore_list(s, job, &r);
    if (e) {
        api_reply_err(resp, e, 422);
        return e;
    }
    json_t *labels = json_array();
    for (int i = 0; labels && i < store_rows_count(r); i++) {
        double conf = store_rows_double(r, i, 4, -1);
        json_t *o = json_pack("{s:s, s:b, s:s, s:s, s:o}", "host", store_rows_get(r, i, 0),
                              "relevant", strcmp(store_rows_get(r, i, 1), "t") == 0, "labelled_at",
                              store_rows_get(r, i, 2), "state", store_rows_get(r, i, 3),
                              "confidence", conf < 0 ? json_null() : json_real(conf));
        if (!o || json_array_append_new(labels, o) != 0) {
            json_decref(labels);
            labels = NULL;
        }
    }
    store_rows_free(r);
    json_t *top =
        labels ? json_pack("{s:I, s:o}", "job_id", (json_int_t)job, "labels", labels) : NULL;
    return api_reply_json(resp, top);
}
