/* The HTTP server: libmicrohttpd behind one request/response callback, with limits. */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/monotime.h"
#include "common/strmap.h"
#include "server/httpcheck.h"
#include "server/httpgate.h"

#define REAP_EVERY_MS 250
#define NO_DEADLINE   INT64_MAX
#define LOG_PER_SEC   10 /* libmicrohttpd lines logged per second; a flood says more */
#define REFUSALS      16 /* the gate's different answers kept (one per kind of fault) */

/*
 * A connection and the time by which it must have sent what it owes (a request's head,
 * then its body). libmicrohttpd's own timeout is an idle timeout, which every byte
 * resets: a client sending one byte every few seconds would hold its connection for
 * ever. So the reaper thread shuts down the socket of every connection past its
 * deadline; libmicrohttpd then reads end-of-file and closes it as usual. The socket
 * stays open until libmicrohttpd has told us it closed (NOTIFY_CONNECTION, under
 * h->lock), so the reaper never touches a descriptor that was closed and reused.
 */
struct conn {
    struct conn *prev, *next;
    int fd;
    int cut; /* shut down by the reaper */
    int64_t deadline_ms;
    char ip[HTTPGATE_ADDR_LEN]; /* whose slot it holds (struct http's per_ip) */
};

struct http {
    struct MHD_Daemon *d;
    http_handler_fn fn;
    void *ctx;
    int64_t header_ms;
    pthread_mutex_t lock; /* conns, stopping, per_ip, open */
    pthread_cond_t wake;
    struct conn *conns;
    int stopping;
    struct httpgate *gate;
    struct strmap per_ip; /* client address -> open connections (uintptr_t), gate's and MHD's */
    struct {
        enum httpcheck_head what;
        const char *why;
        char *text;
        size_t len;
    } refusals[REFUSALS]; /* the gate's answers (refuse_head), rendered once each */
    unsigned open, max_open, max_per_ip;
    pthread_t reaper;
    int reaping;
    pthread_mutex_t log_lock; /* the log budget */
    int64_t log_second;
    int log_lines, log_dropped;
};

/* Per request: the body collected so far. */
struct pending {
    struct buf body;
    int started; /* the handler has seen the headers */
    int too_big;
    int nul;              /* the request target holds %00 */
    uintptr_t target_end; /* where the target seemed to end when its line came in */
    char *target;         /* the target as sent, capped (recheck_head); NULL: none kept */
};

const char *http_request_header(const struct http_request *r, const char *name)
{
    for (const char *const *h = r->conn ? NULL : r->headers; h && h[0]; h += 2)
        if (strcasecmp(h[0], name) == 0)
            return h[1];
    if (!r->conn)
        return NULL; /* made in the process, or refused by the gate: no parsed request */
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *http_request_arg(const struct http_request *r, const char *name)
{
    for (const char *const *a = r->conn ? NULL : r->args; a && a[0]; a += 2)
        if (strcmp(a[0], name) == 0)
            return a[1];
    if (!r->conn)
        return NULL;
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
    for (const char *const *q = r->conn ? NULL : r->args; q && q[0] && !a.unknown; q += 2)
        check_arg(&a, MHD_GET_ARGUMENT_KIND, q[0], q[1]);
    if (!r->conn)
        return a.unknown;
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

/* ---- connection slots: per client address and in all, held by the gate or by MHD ---- */

static int slot_take(void *cls, const char *ip)
{
    struct http *h = cls;
    int ok = HTTPGATE_REFUSED;
    pthread_mutex_lock(&h->lock);
    uintptr_t n = (uintptr_t)strmap_get(&h->per_ip, ip, strlen(ip));
    if (n < h->max_per_ip && h->open >= h->max_open)
        ok = HTTPGATE_FULL;
    else if (n < h->max_per_ip &&
             strmap_put(&h->per_ip, ip, strlen(ip), (void *)(n + 1)) == ERR_OK) {
        h->open++;
        ok = HTTPGATE_TAKEN;
    }
    pthread_mutex_unlock(&h->lock);
    return ok;
}

static unsigned slots_of(void *cls, const char *ip)
{
    struct http *h = cls;
    pthread_mutex_lock(&h->lock);
    uintptr_t n = (uintptr_t)strmap_get(&h->per_ip, ip, strlen(ip));
    pthread_mutex_unlock(&h->lock);
    return (unsigned)n;
}

static void slot_give(void *cls, const char *ip)
{
    struct http *h = cls;
    pthread_mutex_lock(&h->lock);
    uintptr_t n = (uintptr_t)strmap_get(&h->per_ip, ip, strlen(ip));
    if (n > 1) {
        enum err e = strmap_put(&h->per_ip, ip, strlen(ip), (void *)(n - 1));
        (void)e; /* the key exists: replacing it allocates nothing */
    } else if (n == 1) {
        strmap_remove(&h->per_ip, ip, strlen(ip));
    }
    if (n && h->open)
        h->open--;
    pthread_mutex_unlock(&h->lock);
}

/* ---- deadlines ---- */

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct http *h = cls;
    struct conn *k = *socket_context;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ca =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        char ip[HTTPGATE_ADDR_LEN] = "?";
        if (ca && ca->client_addr)
            httpgate_addr_text(ca->client_addr, ip);
        if (!ci || !(k = calloc(1, sizeof *k))) {
            slot_give(h, ip); /* not watched: the idle timeout still applies */
            return;
        }
        k->fd = ci->connect_fd;
        memcpy(k->ip, ip, sizeof ip);
        k->deadline_ms = monotime_ms() + h->header_ms;
        pthread_mutex_lock(&h->lock);
        k->next = h->conns;
        if (h->conns)
            h->conns->prev = k;
        h->conns = k;
        pthread_mutex_unlock(&h->lock);
        *socket_context = k;
        return;
    }
    if (!k)
        return;
    pthread_mutex_lock(&h->lock);
    if (k->prev)
        k->prev->next = k->next;
    else
        h->conns = k->next;
    if (k->next)
        k->next->prev = k->prev;
    pthread_mutex_unlock(&h->lock);
    slot_give(h, k->ip);
    free(k);
    *socket_context = NULL;
}

/* The connection must have sent what it owes by monotime_ms() + ms (NO_DEADLINE: never). */
static void set_deadline(struct http *h, struct MHD_Connection *conn, int64_t ms)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn *k = ci ? ci->socket_context : NULL;
    if (!k)
        return;
    int64_t at = ms == NO_DEADLINE ? NO_DEADLINE : monotime_ms() + ms;
    pthread_mutex_lock(&h->lock);
    k->deadline_ms = at;
    pthread_mutex_unlock(&h->lock);
}

static void *reaper(void *arg)
{
    struct http *h = arg;
    pthread_mutex_lock(&h->lock);
    while (!h->stopping) {
        int64_t now = monotime_ms();
        int cut = 0;
        for (struct conn *k = h->conns; k; k = k->next) {
            if (k->cut || k->deadline_ms > now)
                continue;
            shutdown(k->fd, SHUT_RDWR);
            k->cut = 1;
            cut++;
        }
        if (cut)
            log_info("http: closed %d connection%s too slow to send a request", cut,
                     cut == 1 ? "" : "s");
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += REAP_EVERY_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&h->wake, &h->lock, &until);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* ---- requests ---- */

/* Called once the request line is in: *con_cls is this request's struct pending. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls, (void)conn;
    struct pending *p = calloc(1, sizeof *p);
    if (!p)
        return NULL; /* on_request makes one; only the %00 check is lost */
    buf_init(&p->body, HTTP_MAX_BODY);
    p->nul = httpcheck_has_nul(uri); /* before libmicrohttpd decodes it */
    p->target_end = (uintptr_t)uri + strlen(uri);
    p->target = strndup(uri, HTTPCHECK_MAX_LINE + 1); /* longer is too long already */
    return p;
}

/*
 * A raw NUL byte in the request target (not %00): libmicrohttpd hands on C strings,
 * which end at it, so "/index.html<NUL>.css" would read as /index.html. It parses the
 * request line in place: the target, one space (made a NUL), the version. on_uri saw
 * the target up to its first NUL; if that is not where the version begins, the target
 * held one. Checked only when the version lies just past the target (the layout of
 * libmicrohttpd 0.9.75), so that another layout cannot make every request fail.
 */
static int raw_nul(const struct pending *p, const char *url, const char *version)
{
    uintptr_t t = (uintptr_t)url, v = (uintptr_t)version;
    return p->target_end && v > t && v - t <= 65536 && p->target_end + 1 != v;
}

/* The fault answering what httpcheck_head found. */
static enum http_fault fault_of(enum httpcheck_head what)
{
    switch (what) {
    case HTTPCHECK_HEAD_OK:
        return HTTP_FAULT_NONE;
    case HTTPCHECK_HEAD_NUL:
        return HTTP_FAULT_NUL;
    case HTTPCHECK_HEAD_URI_TOO_LONG:
        return HTTP_FAULT_URI_TOO_LONG;
    case HTTPCHECK_HEAD_TOO_BIG:
        return HTTP_FAULT_HEAD_TOO_BIG;
    case HTTPCHECK_HEAD_VERSION:
        return HTTP_FAULT_VERSION;
    case HTTPCHECK_HEAD_MORE:
        return HTTP_FAULT_HEAD_TIMEOUT;
    default:
        return HTTP_FAULT_MALFORMED;
    }
}

struct head_copy {
    struct buf text;
    int cut; /* over the cap */
};

static enum MHD_Result copy_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value)
{
    struct head_copy *c = cls;
    (void)kind;
    if (buf_appendf(&c->text, "%s: %s\r\n", key, value ? value : "") == ERR_OK)
        return MHD_YES;
    c->cut = 1;
    return MHD_NO;
}

/*
 * The gate checks a connection's first head only; libmicrohttpd reads the later ones
 * itself, and would take the first of two Content-Length fields that differ (the rest
 * of the body then read as another request), or a target with spaces. So every head is
 * written out again from what libmicrohttpd parsed (the target as sent, the fields in
 * order, repeats included) and checked as the gate checks it: the same faults.
 */
static enum httpcheck_head recheck_head(struct MHD_Connection *conn, const char *method,
                                        const char *version, const struct pending *p,
                                        const char **why)
{
    *why = "";
    if (!p->target)
        return HTTPCHECK_HEAD_OK; /* out of memory at on_uri: the gate's check only */
    struct head_copy c = {.cut = 0};
    buf_init(&c.text, HTTPCHECK_PEEK_ENOUGH);
    size_t len;
    enum httpcheck_head r = HTTPCHECK_HEAD_TOO_BIG;
    *why = "request head too long";
    if (buf_appendf(&c.text, "%s %s %s\r\n", method, p->target, version) == ERR_OK) {
        MHD_get_connection_values(conn, MHD_HEADER_KIND, copy_field, &c);
        if (!c.cut && buf_append_str(&c.text, "\r\n") == ERR_OK)
            r = httpcheck_head(c.text.data, c.text.len, &len, why);
    }
    buf_release(&c.text);
    return r == HTTPCHECK_HEAD_MORE ? HTTPCHECK_HEAD_OK : r; /* MORE: it ends, cannot be */
}

/* What is wrong with the request whatever its route, seen from its headers alone. */
static enum http_fault head_fault(struct MHD_Connection *conn, const char *method, const char *url,
                                  const char *version, const struct pending *p, const char **why)
{
    *why = NULL;
    if (p->nul || raw_nul(p, url, version))
        return HTTP_FAULT_NUL;
    enum http_fault f = fault_of(recheck_head(conn, method, version, p, why));
    if (f != HTTP_FAULT_NONE)
        return f;
    *why = NULL;
    if (strcmp(version, MHD_HTTP_VERSION_1_1) == 0 &&
        !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST))
        return HTTP_FAULT_NO_HOST;
    /* Bodies come with a length: none is parsed in chunks (whose framing errors would
       get libmicrohttpd's HTML), as RFC 9110 §15.5.12 lets a server ask. */
    if (MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
        return HTTP_FAULT_LENGTH_REQUIRED;
    const char *cl =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    uint64_t n;
    if (cl && httpcheck_content_length(cl, &n) && n > HTTP_MAX_BODY)
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
    if (req->fault_detail) /* a framing fault: what follows on the connection is unsure */
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
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
        req.fault = head_fault(conn, method, url, version, p, &req.fault_detail);
        if (req.fault == HTTP_FAULT_NONE) {
            set_deadline(h, conn, HTTP_BODY_SECONDS * 1000);
            return MHD_YES;
        }
        /* Answered now, body unread: libmicrohttpd closes the connection after it. */
        set_deadline(h, conn, NO_DEADLINE);
        return respond(h, conn, &req);
    }
    if (*upload_data_size) {
        if (!p->too_big && buf_append(&p->body, upload_data, *upload_data_size) != ERR_OK)
            p->too_big = 1; /* keep reading (and dropping) so that we can answer 413 */
        *upload_data_size = 0;
        return MHD_YES;
    }
    set_deadline(h, conn, NO_DEADLINE); /* the whole request is in */
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
    struct http *h = cls;
    struct pending *p = *con_cls;
    (void)toe;
    set_deadline(h, conn, h->header_ms); /* for the next request on this connection */
    if (!p)
        return;
    buf_release(&p->body);
    free(p->target);
    free(p);
    *con_cls = NULL;
}

/*
 * libmicrohttpd's messages, at most LOG_PER_SEC a second: a flood of refused or
 * broken connections gets a line each, which would bury everything else.
 */
PRINTF_LIKE(2, 0) static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct http *h = cls;
    int64_t second = monotime_ms() / 1000;
    int dropped = 0;
    pthread_mutex_lock(&h->log_lock);
    if (second != h->log_second) {
        dropped = h->log_dropped;
        h->log_second = second;
        h->log_lines = h->log_dropped = 0;
    }
    int quiet = h->log_lines++ >= LOG_PER_SEC;
    h->log_dropped += quiet;
    pthread_mutex_unlock(&h->log_lock);
    if (dropped)
        log_warn("http: %d more messages left out (at most %d a second)", dropped, LOG_PER_SEC);
    if (quiet)
        return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n')
        msg[--n] = '\0';
    log_warn("http: %s", msg);
}

/* ---- the gate's callbacks ---- */

/* A head the gate found good: libmicrohttpd reads it from the socket as usual. */
static void hand_on(void *cls, int fd, const struct sockaddr *addr, socklen_t len)
{
    struct http *h = cls;
    char ip[HTTPGATE_ADDR_LEN];
    httpgate_addr_text(addr, ip);
    /* On failure libmicrohttpd has closed fd without NOTIFY_CONNECTION: give the slot back. */
    if (MHD_add_connection(h->d, fd, addr, len) != MHD_YES)
        slot_give(h, ip);
}

static const char *reason_phrase(int status)
{
    switch (status) {
    case 400:
        return "Bad Request";
    case 408:
        return "Request Timeout";
    case 414:
        return "URI Too Long";
    case 431:
        return "Request Header Fields Too Large";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Error";
    }
}

static char *render_refusal(struct http *h, enum httpcheck_head what, const char *why, size_t *len);

/*
 * A head the gate refused: the handler words the answer, as for every other fault. The
 * answers are kept by (what, why), both fixed (why is a static string): a slow flood cut
 * at its deadline gets thousands of the same 408, rendered once. The gate's thread
 * alone calls this.
 */
static char *refuse_head(void *cls, enum httpcheck_head what, const char *why, size_t *len)
{
    struct http *h = cls;
    size_t i = 0;
    for (; i < REFUSALS && h->refusals[i].text; i++)
        if (h->refusals[i].what == what && h->refusals[i].why == why)
            break;
    if (i == REFUSALS || !h->refusals[i].text) {
        size_t n = 0;
        char *text = render_refusal(h, what, why, &n);
        if (!text || i == REFUSALS) {
            *len = n;
            return text; /* not kept: every slot taken (or out of memory) */
        }
        h->refusals[i].what = what;
        h->refusals[i].why = why;
        h->refusals[i].text = text;
        h->refusals[i].len = n;
    }
    char *copy = malloc(h->refusals[i].len);
    if (copy)
        memcpy(copy, h->refusals[i].text, h->refusals[i].len);
    *len = h->refusals[i].len;
    return copy;
}

static char *render_refusal(struct http *h, enum httpcheck_head what, const char *why, size_t *len)
{
    struct http_request req = {
        .method = "", .path = "", .body = "", .fault = fault_of(what), .fault_detail = why};
    struct http_response resp;
    memset(&resp, 0, sizeof resp);
    resp.status = 500;
    h->fn(h->ctx, &req, &resp);
    struct buf out;
    buf_init(&out, 0);
    enum err e =
        buf_appendf(&out,
                    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                    "Connection: close\r\n\r\n",
                    resp.status, reason_phrase(resp.status),
                    resp.content_type ? resp.content_type : "application/json", resp.body_len);
    if (!e && resp.body_len)
        e = buf_append(&out, resp.body, resp.body_len);
    free(resp.body);
    if (e) {
        buf_release(&out);
        return NULL;
    }
    *len = out.len;
    return buf_detach(&out);
}

/* ---- the server ---- */

/* All connections at once: HTTP_MAX_CONNECTIONS, within half of the descriptors allowed. */
static unsigned connection_limit(void)
{
    struct rlimit rl;
    rlim_t lim = HTTP_MAX_CONNECTIONS;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 2 < lim)
        lim = rl.rlim_cur / 2;
    return lim < 16 ? 16 : (unsigned)lim;
}

/*
 * The listening socket is ours, not libmicrohttpd's, so that a failure names the
 * address and the system's reason (libmicrohttpd's own message said "port 0").
 */
static enum err listen_on(const char *host, int port, int *fd_out, int *v6)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    socklen_t len;
    if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)port);
        len = sizeof *in4;
    } else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        len = sizeof *in6;
    } else {
        return err_set(ERR_INVAL, "--listen: '%s' is not an IPv4 or IPv6 address", host);
    }
    *v6 = ss.ss_family == AF_INET6;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int on = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        (*v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on) != 0) ||
        bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, SOMAXCONN) != 0) {
        enum err e = err_set(ERR_IO, "cannot listen on %s%s%s:%d: %s", *v6 ? "[" : "", host,
                             *v6 ? "]" : "", port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return e;
    }
    *fd_out = fd;
    return ERR_OK;
}

static int bound_port_of(int fd)
{
    struct sockaddr_storage ss;
    socklen_t n = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &n) != 0)
        return -1;
    return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                          : ((struct sockaddr_in *)&ss)->sin_port);
}

static void http_free(struct http *h)
{
    strmap_release(&h->per_ip);
    for (size_t i = 0; i < REFUSALS; i++)
        free(h->refusals[i].text);
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->lock);
    pthread_mutex_destroy(&h->log_lock);
    free(h);
}

static struct http *http_new(const struct http_config *c)
{
    struct http *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->fn = c->fn;
    h->ctx = c->ctx;
    h->header_ms =
        1000LL * (c->header_seconds > 0 ? c->header_seconds : HTTP_DEFAULT_HEADER_SECONDS);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->wake, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&h->lock, NULL);
    pthread_mutex_init(&h->log_lock, NULL);
    strmap_init(&h->per_ip);
    return h;
}

enum err http_start(const struct http_config *c, struct http **out, int *bound_port)
{
    *out = NULL;
    int fd = -1, v6 = 0;
    enum err e = listen_on(c->host, c->port, &fd, &v6);
    if (e)
        return e;
    struct http *h = http_new(c);
    if (!h) {
        close(fd);
        return err_set(ERR_NOMEM, "out of memory");
    }
    h->max_per_ip = (unsigned)(c->conns_per_ip > 0 ? c->conns_per_ip : HTTP_DEFAULT_CONNS_PER_IP);
    h->max_open = connection_limit();
    *bound_port = bound_port_of(fd);
    /*
     * libmicrohttpd listens on nothing: the gate accepts, checks each first head and
     * hands good connections on (MHD_add_connection, which needs MHD_USE_ITC to wake
     * the polling threads). Its own limit is a backstop; the slots above are the limits.
     */
    h->d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_USE_ITC |
            MHD_USE_NO_LISTEN_SOCKET,
        0, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(c->threads > 0 ? c->threads : 4),
        MHD_OPTION_CONNECTION_LIMIT, h->max_open + 16, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
        h, MHD_OPTION_URI_LOG_CALLBACK, on_uri, h, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60, MHD_OPTION_END);
    if (!h->d) {
        close(fd);
        http_free(h);
        return err_set(ERR_IO, "cannot serve on %s:%d (libmicrohttpd did not start)", c->host,
                       c->port);
    }
    if (pthread_create(&h->reaper, NULL, reaper, h) != 0) {
        close(fd);
        http_stop(h);
        return err_set(ERR_NOMEM, "cannot start a thread");
    }
    h->reaping = 1;
    struct httpgate_ops ops = {h, slot_take, slots_of, slot_give, hand_on, refuse_head};
    e = httpgate_start(fd, h->header_ms, &ops, &h->gate);
    if (e) {
        http_stop(h);
        return e;
    }
    log_info("http: at most %u connections, %u from one address; a request's head within %lld s",
             h->max_open, h->max_per_ip, (long long)(h->header_ms / 1000));
    *out = h;
    return ERR_OK;
}

void http_stop(struct http *h)
{
    if (!h)
        return;
    httpgate_stop(h->gate); /* no new connections from here */
    if (h->reaping) {
        pthread_mutex_lock(&h->lock);
        h->stopping = 1;
        pthread_cond_signal(&h->wake);
        pthread_mutex_unlock(&h->lock);
        pthread_join(h->reaper, NULL);
    }
    MHD_stop_daemon(h->d); /* its connections' NOTIFY_CONNECTION still take h->lock */
    http_free(h);
}
