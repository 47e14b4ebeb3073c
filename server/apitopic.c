/* The API's topic routes (apitopic.h). */
#include "server/apitopic.h"

#include <jansson.h>
#include <stdlib.h>

#include "job/jobtopic.h"
#include "server/apireply.h"
#include "server/httpneg.h"
#include "server/respcache.h"

enum err apitopic_seeds(struct store *s, const struct http_request *req, struct http_response *resp,
                        int64_t job)
{
    if (!httpneg_is_json(http_request_header(req, "Content-Type"))) {
        api_reply_error(resp, 415, "unsupported_media_type",
                        "seeds must be sent as Content-Type: application/json", NULL);
        return ERR_INVAL;
    }
    struct jobtopic_seed *seeds;
    size_t n;
    enum err e = jobtopic_add_seeds(s, job, req->body, req->body_len, &seeds, &n);
    respcache_drop_job(job);
    if (e) {
        api_reply_err(resp, e, 422);
        return e;
    }
    json_t *list = json_array();
    for (size_t i = 0; list && i < n; i++)
        if (json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "host", seeds[i].host, "role",
                                                  seeds[i].role, "state", seeds[i].state)) != 0) {
            json_decref(list);
            list = NULL;
        }
    free(seeds);
    json_t *top =
        list ? json_pack("{s:I, s:o}", "job_id", (json_int_t)job, "start_sites", list) : NULL;
    return api_reply_json(resp, top);
}

enum err apitopic_body(struct store *s, struct http_response *resp, int64_t job)
{
    struct buf out;
    buf_init(&out, 0);
    enum err e = jobtopic_body(s, job, &out);
    if (e) {
        buf_release(&out);
        api_reply_err(resp, e, 422);
        return e;
    }
    api_set_body(resp, 200, buf_detach(&out));
    return ERR_OK;
}
