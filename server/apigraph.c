/* The API's graph of a job (apigraph.h). */
#include "server/apigraph.h"

#include "server/apireply.h"
#include "store/graphstore.h"

enum err apigraph_get(struct store *s, struct http_response *resp, int64_t job, int64_t max_nodes)
{
    char *json = NULL;
    enum err e = graphstore_graph(s, job, max_nodes, &json);
    if (e) {
        api_reply_err(resp, e, 400);
        return e;
    }
    api_set_body(resp, 200, json);
    return ERR_OK;
}
