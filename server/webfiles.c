/* The dashboard's files, embedded at build time, served by path (webfiles.h). */
#include "server/webfiles.h"

#include <stdlib.h>
#include <string.h>

#define WEB_FILE(sym)                                                                              \
    extern const char sym[];                                                                       \
    extern const size_t sym##_len;
WEB_FILE(web_index_html)
WEB_FILE(web_app_js)
WEB_FILE(web_app_css)
WEB_FILE(web_uplot_js)
WEB_FILE(web_uplot_css)
#undef WEB_FILE

#define CT_HTML "text/html; charset=utf-8"
#define CT_JS   "text/javascript; charset=utf-8"
#define CT_CSS  "text/css; charset=utf-8"
static const struct {
    const char *path, *content_type;
    const char *data;
    const size_t *len;
} web_files[] = {
    {"/", CT_HTML, web_index_html, &web_index_html_len},
    {"/index.html", CT_HTML, web_index_html, &web_index_html_len},
    {"/app.js", CT_JS, web_app_js, &web_app_js_len},
    {"/app.css", CT_CSS, web_app_css, &web_app_css_len},
    {"/vendor/uPlot.iife.min.js", CT_JS, web_uplot_js, &web_uplot_js_len},
    {"/vendor/uPlot.min.css", CT_CSS, web_uplot_css, &web_uplot_css_len},
};

int webfiles_answer(const struct http_request *req, struct http_response *resp)
{
    if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0)
        return 0;
    for (size_t i = 0; i < sizeof web_files / sizeof web_files[0]; i++) {
        if (strcmp(req->path, web_files[i].path) != 0)
            continue;
        size_t n = *web_files[i].len;
        char *body = malloc(n + 1);
        if (!body)
            return -1;
        memcpy(body, web_files[i].data, n);
        body[n] = '\0';
        free(resp->body);
        resp->status = 200;
        resp->body = body;
        resp->body_len = n;
        resp->content_type = web_files[i].content_type;
        http_response_header(resp, "Cache-Control", "no-cache");
        http_response_header(resp, "X-Content-Type-Options", "nosniff");
        return 1;
    }
    return 0;
}
