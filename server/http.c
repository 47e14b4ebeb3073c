/* The HTTP server: libmicrohttpd behind one request/response callback. */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "server/httpcheck.h"

struct http {
    struct MHD_Daemon *d;
    http_handler_fn fn;
    void *ctx;
};

/* Per request: the body collected so far. */
struct pending {
    struct buf body;
    int started; /* the handler has seen the headers */
    int too_big;
    int nul; /* the request target holds %00 */
};

const char *http_request_header(const struct http_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *http_request_arg(const struct http_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

struct arg_check {
    const char *const *allowed;
    const char *unknown;
};

static enum MHD_Result check_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    struct arg_check *a = cls;
    (void)kind, (void)value;
    for (size_t i = 0; a->allowed[i]; i++)
        if (strcmp(key, a->allowed[i]) == 0)
            return MHD_YES;
    a->unknown = key;
    return MHD_NO; /* stop at the first */
}

const char *http_request_unknown_arg(const struct http_request *r, const char *const *allowed)
{
    struct arg_check a = {allowed, NULL};
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, check_arg, &a);
    return a.unknown;
}

void http_response_header(struct http_response *resp, const char *name, const char *value)
{
    if (resp->n_headers == HTTP_MAX_HEADERS)
        return;
    resp->header_names[resp->n_headers] = name;
    snprintf(resp->header_values[resp->n_headers], sizeof resp->header_values[0], "%s", value);
    resp->n_headers++;
}

/* Called once the request line is in: *con_cls is this request's struct pending. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls, (void)conn;
    struct pending *p = calloc(1, sizeof *p);
    if (!p)
        return NULL; /* on_request makes one; only the %00 check is lost */
    buf_init(&p->body, HTTP_MAX_BODY);
    p->nul = httpcheck_has_nul(uri); /* before libmicrohttpd decodes it */
    return p;
}

/* What is wrong with the request whatever its route, seen from its headers alone. */
static enum http_fault head_fault(struct MHD_Connection *conn, const char *version,
                                  const struct pending *p)
{
    if (p->nul)
        return HTTP_FAULT_NUL;
    if (strcmp(version, MHD_HTTP_VERSION_1_1) == 0 &&
        !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST))
        return HTTP_FAULT_NO_HOST;
    const char *cl =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    uint64_t n;
    if (cl &&
        !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) &&
        httpcheck_content_length(cl, &n) && n > HTTP_MAX_BODY)
        return HTTP_FAULT_TOO_BIG;
    return HTTP_FAULT_NONE;
}

/* Hand the request to the handler and queue its answer. */
static enum MHD_Result respond(struct http *h, struct MHD_Connection *conn,
                               const struct http_request *req)
{
    struct http_response resp;
    memset(&resp, 0, sizeof resp);
    resp.status = 500;
    h->fn(h->ctx, req, &resp);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(resp.body_len, resp.body ? resp.body : (void *)"",
                                        resp.body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(resp.body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            resp.content_type ? resp.content_type : "application/json");
    for (int i = 0; i < resp.n_headers; i++)
        MHD_add_response_header(r, resp.header_names[i], resp.header_values[i]);
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)resp.status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct http *h = cls;
    struct pending *p = *con_cls;
    if (!p) {
        if (!(p = calloc(1, sizeof *p)))
            return MHD_NO;
        buf_init(&p->body, HTTP_MAX_BODY);
        *con_cls = p;
    }
    struct http_request req = {.method = method, .path = url, .body = "", .conn = conn};
    if (!p->started) { /* the headers are in, the body (if any) is not */
        p->started = 1;
        req.fault = head_fault(conn, version, p);
        if (req.fault == HTTP_FAULT_NONE)
            return MHD_YES;
        /* Answered now, body unread: libmicrohttpd closes the connection after it. */
        return respond(h, conn, &req);
    }
    if (*upload_data_size) {
        if (!p->too_big && buf_append(&p->body, upload_data, *upload_data_size) != ERR_OK)
            p->too_big = 1; /* keep reading (and dropping) so that we can answer 413 */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (p->too_big) {
        buf_release(&p->body);
        req.fault = HTTP_FAULT_TOO_BIG;
    }
    req.body = buf_str(&p->body);
    req.body_len = p->body.len;
    return respond(h, conn, &req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct pending *p = *con_cls;
    if (!p)
        return;
    buf_release(&p->body);
    free(p);
    *con_cls = NULL;
}

PRINTF_LIKE(2, 0) static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n')
        msg[--n] = '\0';
    log_warn("http: %s", msg);
}

/*
 * The listening socket is ours, not libmicrohttpd's, so that a failure names the
 * address and the system's reason (libmicrohttpd's own message said "port 0").
 */
static enum err listen_on(const char *host, int port, int *fd_out)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return err_set(ERR_INVAL, "--listen: '%s' is not an IPv4 address", host);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int on = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, SOMAXCONN) != 0) {
        enum err e = err_set(ERR_IO, "cannot listen on %s:%d: %s", host, port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return e;
    }
    *fd_out = fd;
    return ERR_OK;
}

static int bound_port_of(int fd)
{
    struct sockaddr_in sa;
    socklen_t n = sizeof sa;
    if (getsockname(fd, (struct sockaddr *)&sa, &n) != 0)
        return -1;
    return ntohs(sa.sin_port);
}

enum err http_start(const char *host, int port, int threads, http_handler_fn fn, void *ctx,
                    struct http **out, int *bound_port)
{
    *out = NULL;
    int fd = -1;
    enum err e = listen_on(host, port, &fd);
    if (e)
        return e;
    struct http *h = calloc(1, sizeof *h);
    if (!h) {
        close(fd);
        return err_set(ERR_NOMEM, "out of memory");
    }
    h->fn = fn;
    h->ctx = ctx;
    *bound_port = bound_port_of(fd);
    /* libmicrohttpd owns fd from here (if it fails to start, serve exits anyway). */
    h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0,
                            NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h,
                            MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_THREAD_POOL_SIZE,
                            (unsigned)(threads > 0 ? threads : 4), MHD_OPTION_URI_LOG_CALLBACK,
                            on_uri, h, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60, MHD_OPTION_END);
    if (!h->d) {
        free(h);
        return err_set(ERR_IO, "cannot serve on %s:%d (libmicrohttpd did not start)", host, port);
    }
    *out = h;
    return ERR_OK;
}

void http_stop(struct http *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->d);
    free(h);
}
