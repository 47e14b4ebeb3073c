/* Stop, pause and resume through the API (apicontrol.h). */
#include "server/apicontrol.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "server/apireply.h"
#include "server/respcache.h"
#include "store/apistore.h"
#include "store/crawlstore.h"

/* The job as it is now, at status; or e's JSON error. */
static enum err reply(struct store *s, struct http_response *resp, int64_t id, int status,
                      enum err e)
{
    char *json = NULL;
    if (!e)
        e = apistore_job(s, id, &json);
    if (e) {
        api_reply_err(resp, e, 422);
        return e;
    }
    api_set_body(resp, status, json);
    return ERR_OK;
}

enum err apicontrol_job(struct store *s, struct http_response *resp, int64_t id, const char *what)
{
    struct crawlstore_job j;
    enum err e = crawlstore_job_get(s, id, &j);
    if (e)
        return reply(s, resp, id, 200, e);
    int running = strcmp(j.state, "training") == 0 || strcmp(j.state, "crawling") == 0 ||
                  strcmp(j.state, "stopping") == 0;
    int pausing = strcmp(j.stop_requested, "pause") == 0;
    char state[16];
    snprintf(state, sizeof state, "%s", j.state);
    crawlstore_job_release(&j);
    int status = 200;
    if (strcmp(what, "stop") == 0) {
        int ended = 0;
        e = apistore_job_end(s, id, &ended);
        if (!e && !ended) {
            if (running) {
                e = crawlstore_job_request(s, id, "stop");
                status = 202;
            } else {
                e = err_set(ERR_CONFLICT, "job %" PRId64 " is %s: nothing to stop", id, state);
            }
        }
    } else if (strcmp(what, "pause") == 0) {
        if (running) {
            e = crawlstore_job_request(s, id, "pause");
            status = 202;
        } else {
            e = err_set(ERR_CONFLICT, "job %" PRId64 " is %s: only a running job can pause", id,
                        state);
        }
    } else if (running && pausing) {
        e = crawlstore_job_request(s, id, NULL); /* not paused yet: just carry on */
    } else {
        e = apistore_job_resume(s, id);
    }
    respcache_drop_job(id); /* changed through the API: polls see it at once */
    return reply(s, resp, id, status, e);
}
