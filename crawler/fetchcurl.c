/* The fetcher's libcurl side: easy handles on one multi handle, capped bodies, safe addresses. */
#include "crawler/fetchcurl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/monotime.h"
#include "crawler/addrcheck.h"
#include "crawler/robots.h"
#include "crawler/url.h"
#include "crawler/warcwrite.h"

#define WARC_HEAD_MAX   (64 * 1024) /* request or response head kept for the WARC record */
#define HEADER_MAX      8192        /* longest header value we keep */
#define BLOCKED_MSG_MAX 160         /* "destination ADDRESS is ..." */
#define ROBOTS_HOPS_MAX 5           /* robots.txt redirects followed (RFC 9309 §2.3.1.2) */

enum abort_reason { ABORT_NONE, ABORT_NOT_HTML, ABORT_TOO_BIG, ABORT_BLOCKED };

struct transfer {
    struct transfer *prev, *next; /* the running list */
    CURL *easy;
    void *host, *req; /* the caller's */
    const void *group;
    char *url;
    struct buf body;
    size_t body_max;
    char *content_type, *location, *proxy_error;
    enum abort_reason abort;
    struct addrcheck *guard; /* the fetchcurl's; NULL: connections are not checked */
    int hops;                /* robots.txt redirects followed */
    int64_t start_ms;
    char errbuf[CURL_ERROR_SIZE];
    char blocked[BLOCKED_MSG_MAX]; /* why, when abort == ABORT_BLOCKED */
    /* WARC capture (one reference held), or NULL: the request and response heads. */
    struct warcwrite *warc;
    struct buf warc_req, warc_head;
    int warc_head_lost; /* the head passed WARC_HEAD_MAX: not archived */
    time_t warc_when;
};

struct fetchcurl {
    CURLM *multi;
    struct transfer *running;
    char *proxy, *user_agent;
    char proxy_name[160]; /* the proxy's host:port as given, for messages */
    long connect_timeout_ms, timeout_ms, low_speed_bytes, low_speed_secs;
    size_t max_body;
    struct addrcheck *guard; /* NULL with allow_private */
    uint64_t warc_errors;    /* exchanges not archived for want of memory */
};

/* ---- addresses ---------------------------------------------------------- */

/* The address of sa as text ("?" for a family other than IPv4 and IPv6). */
static void sockaddr_text(const struct sockaddr *sa, char *out, size_t cap)
{
    const void *in = NULL;
    if (sa->sa_family == AF_INET)
        in = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
    else if (sa->sa_family == AF_INET6)
        in = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    if (!in || !inet_ntop(sa->sa_family, in, out, (socklen_t)cap))
        snprintf(out, cap, "?");
}

/*
 * Refuse to connect to private, reserved or this host's own addresses: checked on the
 * address actually used, for every connection curl opens (so for every redirect hop
 * and every address a name resolves to).
 */
static curl_socket_t open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
    struct transfer *t = clientp;
    if (purpose == CURLSOCKTYPE_IPCXN) {
        enum addrcheck_verdict v = addrcheck_sockaddr(t->guard, &a->addr, monotime_ms());
        if (v != ADDRCHECK_PUBLIC) {
            char text[INET6_ADDRSTRLEN];
            sockaddr_text(&a->addr, text, sizeof text);
            t->abort = ABORT_BLOCKED;
            snprintf(t->blocked, sizeof t->blocked, "destination %s %s", text,
                     addrcheck_verdict_text(v));
            return CURL_SOCKET_BAD;
        }
    }
    return socket(a->family, a->socktype, a->protocol);
}

int fetchcurl_url_refused(struct fetchcurl *fc, const char *url, char *why, size_t cap)
{
    if (!fc->guard)
        return 0;
    enum addrcheck_verdict v = addrcheck_url(fc->guard, url, monotime_ms());
    if (v == ADDRCHECK_PUBLIC)
        return 0;
    size_t n = 0;
    const char *host = url_host_ref(url, &n);
    snprintf(why, cap, "destination %.*s %s", host ? (int)n : 3, host ? host : "URL",
             addrcheck_verdict_text(v));
    return 1;
}

/* ---- headers and bodies -------------------------------------------------- */

/* The header slot of t that a header named data[0..name_len) with value v fills, or NULL. */
static char **header_slot(struct transfer *t, const char *data, size_t name_len, const char *v,
                          size_t vlen)
{
    if (name_len == 12 && strncasecmp(data, "Content-Type", 12) == 0)
        return &t->content_type;
    if (name_len == 8 && strncasecmp(data, "Location", 8) == 0)
        return &t->location;
    if ((name_len == 12 && strncasecmp(data, "Proxy-Status", 12) == 0 &&
         memmem(v, vlen, "error=", 6)) ||
        (name_len == 13 && strncasecmp(data, "X-Squid-Error", 13) == 0))
        return &t->proxy_error; /* RFC 9209 Proxy-Status with an error, or squid's header */
    return NULL;
}

static size_t on_header(char *data, size_t size, size_t n, void *userp)
{
    struct transfer *t = userp;
    size_t len = size * n;
    if (t->warc) {
        if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
            buf_reset(&t->warc_head); /* the last response is the one archived */
            t->warc_head_lost = 0;
        }
        if (!t->warc_head_lost && buf_append(&t->warc_head, data, len) != ERR_OK)
            t->warc_head_lost = 1;
    }
    if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        /* A new response (after a redirect followed by curl, or a 100): forget the last. */
        free(t->content_type);
        free(t->location);
        free(t->proxy_error);
        t->content_type = t->location = t->proxy_error = NULL;
        return len;
    }
    const char *colon = memchr(data, ':', len);
    if (!colon)
        return len;
    size_t name_len = (size_t)(colon - data);
    const char *v = colon + 1, *end = data + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t vlen = (size_t)(end - v);
    if (vlen > HEADER_MAX)
        return len;
    char **slot = header_slot(t, data, name_len, v, vlen);
    if (slot) {
        free(*slot);
        *slot = strndup(v, vlen);
    }
    return len;
}

static int is_html_type(const char *ct)
{
    if (!ct)
        return 1; /* no type: old servers; let the HTML parser judge */
    size_t n = strcspn(ct, "; \t");
    return (n == 9 && strncasecmp(ct, "text/html", 9) == 0) ||
           (n == 21 && strncasecmp(ct, "application/xhtml+xml", 21) == 0);
}

static size_t on_body(char *data, size_t size, size_t n, void *userp)
{
    struct transfer *t = userp;
    size_t len = size * n;
    if (t->req && t->body.len == 0) {
        long code = 0;
        curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
        if (code >= 200 && code < 300 && !is_html_type(t->content_type)) {
            t->abort = ABORT_NOT_HTML; /* don't download PDFs and images */
            return 0;
        }
    }
    size_t room = t->body_max - t->body.len;
    if (len > room) {
        if (buf_append(&t->body, data, room) != ERR_OK)
            return 0;
        t->abort = ABORT_TOO_BIG;
        return 0;
    }
    return buf_append(&t->body, data, len) == ERR_OK ? len : 0;
}

/* The request head as curl sent it, for the WARC request record. */
static int on_debug(CURL *e, curl_infotype type, char *data, size_t size, void *userp)
{
    (void)e;
    struct transfer *t = userp;
    if (type == CURLINFO_HEADER_OUT) { /* the whole head in one call; a CONNECT's comes first */
        buf_reset(&t->warc_req);
        if (buf_append(&t->warc_req, data, size) != ERR_OK)
            t->warc_req.len = 0;
    }
    return 0;
}

/* ---- WARC capture ---------------------------------------------------------- */

/*
 * Archive t's exchange, just ended with rc: the request if one went out, the response
 * if one came from the site (not from a proxy saying it could not get there, and not
 * one cut off before its head ended).
 */
static void warc_capture(struct fetchcurl *fc, struct transfer *t, CURLcode rc)
{
    if (!t->warc)
        return;
    long code = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
    const char *h = t->warc_head.data;
    size_t hl = t->warc_head.len;
    /* The head came whole: it ends with its empty line. */
    int have_head = (hl >= 4 && memcmp(h + hl - 4, "\r\n\r\n", 4) == 0) ||
                    (hl >= 2 && memcmp(h + hl - 2, "\n\n", 2) == 0);
    int response =
        code > 0 && have_head && !t->warc_head_lost && !t->proxy_error && t->abort != ABORT_BLOCKED;
    const char *truncated = NULL;
    if (t->abort == ABORT_TOO_BIG)
        truncated = "length";
    else if (t->abort == ABORT_NOT_HTML)
        truncated = "unspecified"; /* not read on: not HTML */
    else if (rc == CURLE_OPERATION_TIMEDOUT)
        truncated = "time";
    else if (rc != CURLE_OK)
        truncated = "disconnect";
    char *ip = NULL;
    if (!fc->proxy) /* behind a proxy curl knows only the proxy's address */
        curl_easy_getinfo(t->easy, CURLINFO_PRIMARY_IP, &ip);
    struct warcwrite_exchange x = {
        .url = t->url,
        .ip = ip && *ip ? ip : NULL,
        .when = t->warc_when,
        .request = t->warc_req.len ? t->warc_req.data : NULL,
        .request_len = t->warc_req.len,
        .head = response ? h : NULL,
        .head_len = hl,
        .body = t->body.data,
        .body_len = t->body.len,
        .truncated = truncated,
    };
    if (warcwrite_exchange(t->warc, &x) != ERR_OK && fc->warc_errors++ % 1000 == 0)
        log_error("WARC capture: %s (%" PRIu64 " exchanges lost so far)", err_msg(),
                  fc->warc_errors);
    buf_reset(&t->warc_req);
    buf_reset(&t->warc_head);
    t->warc_head_lost = 0;
}

/* ---- transfers ---------------------------------------------------------- */

static void transfer_free(struct transfer *t)
{
    if (!t)
        return;
    warcwrite_unref(t->warc);
    buf_release(&t->warc_req);
    buf_release(&t->warc_head);
    if (t->easy)
        curl_easy_cleanup(t->easy);
    buf_release(&t->body);
    free(t->url);
    free(t->content_type);
    free(t->location);
    free(t->proxy_error);
    free(t);
}

/* Take t off the running list (and out of curl's multi handle). */
static void running_remove(struct fetchcurl *fc, struct transfer *t)
{
    curl_multi_remove_handle(fc->multi, t->easy);
    if (t->prev)
        t->prev->next = t->next;
    else
        fc->running = t->next;
    if (t->next)
        t->next->prev = t->prev;
    t->prev = t->next = NULL;
}

static void easy_setup(const struct fetchcurl *fc, struct transfer *t)
{
    CURL *e = t->easy;
    curl_easy_setopt(e, CURLOPT_URL, t->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, fc->user_agent);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, ""); /* every encoding curl can decode */
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, fc->connect_timeout_ms);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, fc->timeout_ms);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, fc->low_speed_bytes);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, fc->low_speed_secs);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
    /*
     * curl follows no redirect: pages' are followed by fetch.c, robots.txt's by
     * robots_follow, each hop's URL checked first. No proxy but ours: an empty
     * CURLOPT_PROXY also keeps curl from taking one from http_proxy and the like,
     * behind which the connection check below would see only the proxy.
     */
    curl_easy_setopt(e, CURLOPT_PROXY, fc->proxy ? fc->proxy : "");
    if (!fc->proxy && t->guard) {
        curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_socket);
        curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, t);
    }
    if (t->warc) { /* the debug callback is how curl shows the request it sent */
        curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, on_debug);
        curl_easy_setopt(e, CURLOPT_DEBUGDATA, t);
        curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
    }
}

enum err fetchcurl_start(struct fetchcurl *fc, const char *url, void *host, void *req,
                         const void *group, struct warcwrite *warc)
{
    struct transfer *t = calloc(1, sizeof *t);
    if (!t || !(t->easy = curl_easy_init()) || !(t->url = strdup(url))) {
        transfer_free(t);
        return err_set(ERR_NOMEM, "out of memory starting a transfer");
    }
    t->host = host;
    t->req = req;
    t->group = group;
    t->guard = fc->guard;
    t->body_max = req ? fc->max_body : ROBOTS_PARSE_MAX;
    buf_init(&t->body, t->body_max + 1);
    t->start_ms = monotime_ms();
    buf_init(&t->warc_req, WARC_HEAD_MAX);
    buf_init(&t->warc_head, WARC_HEAD_MAX);
    if (warc) {
        warcwrite_ref(warc);
        t->warc = warc;
        t->warc_when = time(NULL);
    }
    easy_setup(fc, t);
    if (curl_multi_add_handle(fc->multi, t->easy) != CURLM_OK) {
        transfer_free(t);
        return err_set(ERR_NET, "curl refused a transfer");
    }
    t->next = fc->running;
    if (fc->running)
        fc->running->prev = t;
    fc->running = t;
    return ERR_OK;
}

/* ---- reading an ended transfer ------------------------------------------ */

/* Classify a curl failure. */
static enum fetch_status curl_failure(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return FETCH_DNS;
    case CURLE_COULDNT_CONNECT:
        return FETCH_CONNECT;
    case CURLE_OPERATION_TIMEDOUT:
        return FETCH_TIMEOUT;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
        return FETCH_BAD_URL;
    default:
        return FETCH_NETWORK;
    }
}

/*
 * The proxy could not reach the host. RFC 9209 error types (error=dns_error,
 * connection_refused, connection_timeout, ...) or squid's ERR_DNS_FAIL and kin.
 */
static enum fetch_status proxy_failure(const char *e)
{
    if (strstr(e, "dns_") || strstr(e, "ERR_DNS"))
        return FETCH_DNS;
    if (strstr(e, "timeout") || strstr(e, "TIMEOUT"))
        return FETCH_TIMEOUT;
    if (strstr(e, "connection_") || strstr(e, "destination_") || strstr(e, "ERR_CONNECT"))
        return FETCH_CONNECT;
    return FETCH_NETWORK;
}

/*
 * Why a transfer failed (rc not OK), in words a user can act on (issue 28): the proxy
 * named when the failure is reaching it, else the cause (DNS, refused, TLS, timeout)
 * and curl's own message.
 */
static void failure_text(const struct fetchcurl *fc, const struct transfer *t, CURLcode rc,
                         char *out, size_t cap)
{
    const char *detail = t->errbuf[0] ? t->errbuf : curl_easy_strerror(rc);
    long os_errno = 0;
    (void)curl_easy_getinfo(t->easy, CURLINFO_OS_ERRNO, &os_errno);
    long connected = 0; /* 0: no connection was made (to the proxy, with one) */
    (void)curl_easy_getinfo(t->easy, CURLINFO_NUM_CONNECTS, &connected);
    const char *via = fc->proxy ? "the proxy " : "";
    const char *name = fc->proxy ? fc->proxy_name : "";
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_PROXY:
        snprintf(out, cap, "the proxy's host does not resolve (DNS): %.160s", detail);
        return;
    case CURLE_COULDNT_RESOLVE_HOST:
        snprintf(out, cap, "the host does not resolve (DNS): %.160s", detail);
        return;
    case CURLE_COULDNT_CONNECT:
        if (fc->proxy && os_errno == ECONNREFUSED)
            snprintf(out, cap, "connection refused by the proxy %s", name);
        else if (os_errno == ECONNREFUSED)
            snprintf(out, cap, "connection refused: %.160s", detail);
        else
            snprintf(out, cap, "cannot connect to %s%.64s: %.120s", via,
                     fc->proxy ? name : "the host", detail);
        return;
    case CURLE_OPERATION_TIMEDOUT:
        if (fc->proxy && !connected)
            snprintf(out, cap, "timeout connecting to the proxy %.64s: %.120s", name, detail);
        else
            snprintf(out, cap, "timeout: %.160s", detail);
        return;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
        snprintf(out, cap, "TLS failed: %.160s", detail);
        return;
    default:
        snprintf(out, cap, "%.160s", detail);
        return;
    }
}

/* A robots.txt transfer: its status (0 if the host was not reached) and reachability. */
static void fetchcurl_robots_outcome(const struct fetchcurl *fc, struct transfer *t, CURLcode rc,
                                     struct fetchcurl_done *d)
{
    long code = 0;
    if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && t->abort == ABORT_TOO_BIG))
        curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
    if (t->proxy_error || t->abort == ABORT_BLOCKED)
        code = 0; /* the host was not reached (by the proxy, or by us): not the host's status */
    d->http_status = (int)code;
    d->down = FETCH_OK;
    if (t->abort == ABORT_BLOCKED)
        d->down = FETCH_BLOCKED; /* also a redirect to a refused destination */
    else if (t->proxy_error)
        d->down = proxy_failure(t->proxy_error);
    else if (rc != CURLE_OK)
        d->down = curl_failure(rc);
    char why[FETCHCURL_WHY_MAX];
    if (t->abort == ABORT_BLOCKED)
        d->error = strdup(t->blocked[0] ? t->blocked : "destination refused");
    else if (t->proxy_error)
        d->error = strdup(t->proxy_error);
    else if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && t->abort == ABORT_TOO_BIG)) {
        failure_text(fc, t, rc, why, sizeof why);
        d->error = strdup(why);
    }
    d->body_len = t->body.len;
    d->body = buf_detach(&t->body);
}

/* Set d's status and error (a copy of msg, or none). */
static void set_status(struct fetchcurl_done *d, enum fetch_status status, const char *msg)
{
    d->status = status;
    d->error = msg ? strdup(msg) : NULL;
}

/* A 3xx with a Location: where to, and whether it leaves the site. */
static void redirect_outcome(struct transfer *t, struct fetchcurl_done *d)
{
    char *target = NULL;
    if (url_resolve(t->url, t->location, &target) != ERR_OK) {
        set_status(d, FETCH_HTTP_ERROR, "redirect to an unusable Location");
        return;
    }
    d->status = FETCH_REDIRECT;
    d->location = target;
    d->same_site = url_same_site(t->url, target);
}

/* A page transfer: its outcome, in the order the causes are checked. */
static void page_outcome(const struct fetchcurl *fc, struct transfer *t, CURLcode rc,
                         struct fetchcurl_done *d)
{
    long code = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
    if (t->abort == ABORT_BLOCKED) {
        set_status(d, FETCH_BLOCKED, t->blocked[0] ? t->blocked : "destination refused");
    } else if (t->abort == ABORT_NOT_HTML ||
               (rc == CURLE_OK && code >= 200 && code < 300 && !is_html_type(t->content_type))) {
        /* the second test: an empty body of another type, which on_body never saw */
        set_status(d, FETCH_NOT_HTML, t->content_type ? t->content_type : "not HTML");
    } else if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && t->abort == ABORT_TOO_BIG)) {
        char why[FETCHCURL_WHY_MAX];
        failure_text(fc, t, rc, why, sizeof why);
        set_status(d, curl_failure(rc), why);
    } else if (t->proxy_error) {
        set_status(d, proxy_failure(t->proxy_error), t->proxy_error);
    } else if (code >= 300 && code < 400 && t->location) {
        redirect_outcome(t, d);
    } else if (code >= 200 && code < 300) {
        set_status(d, FETCH_OK, NULL);
    } else {
        char msg[64];
        snprintf(msg, sizeof msg, "HTTP status %ld", code);
        set_status(d, FETCH_HTTP_ERROR, msg);
    }
    d->http_status = (int)code;
    d->content_type = t->content_type;
    t->content_type = NULL;
    if (t->body.len || d->status == FETCH_OK) {
        d->body_len = t->body.len;
        d->body = buf_detach(&t->body);
    }
    d->truncated = t->abort == ABORT_TOO_BIG;
    curl_off_t after = 0;
    if (curl_easy_getinfo(t->easy, CURLINFO_RETRY_AFTER, &after) == CURLE_OK && after > 0)
        d->retry_after_s = after < 86400 ? (long)after : 86400;
}

/*
 * A robots.txt answered a redirect: go on to its target with the same transfer (1),
 * or end here (0): not a redirect, a refused target (then blocked), or more than
 * ROBOTS_HOPS_MAX hops (the 3xx is the outcome: robots.txt unavailable, RFC 9309
 * §2.3.1.2). Followed here rather than by curl so that each hop's host is checked
 * as a page's is, with a proxy too.
 */
static int robots_follow(struct fetchcurl *fc, struct transfer *t, CURLcode rc)
{
    long code = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
    char *target = NULL;
    if (rc != CURLE_OK || code < 300 || code > 399 || !t->location || t->proxy_error ||
        t->hops >= ROBOTS_HOPS_MAX || url_resolve(t->url, t->location, &target) != ERR_OK)
        return 0;
    if (fetchcurl_url_refused(fc, target, t->blocked, sizeof t->blocked)) {
        t->abort = ABORT_BLOCKED;
        free(target);
        return 0;
    }
    warc_capture(fc, t, rc); /* this hop's exchange, before the next one starts */
    t->warc_when = time(NULL);
    curl_multi_remove_handle(fc->multi, t->easy);
    free(t->url);
    t->url = target;
    t->hops++;
    buf_reset(&t->body);
    free(t->content_type);
    free(t->location);
    t->content_type = t->location = NULL;
    t->errbuf[0] = '\0';
    curl_easy_setopt(t->easy, CURLOPT_URL, t->url);
    /* Refused only short of memory: the 3xx stands as the outcome. */
    return curl_multi_add_handle(fc->multi, t->easy) == CURLM_OK;
}

int fetchcurl_take_done(struct fetchcurl *fc, struct fetchcurl_done *out)
{
    memset(out, 0, sizeof *out);
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(fc->multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        CURLcode rc = m->data.result;
        struct transfer *t = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&t);
        if (!t->req && robots_follow(fc, t, rc))
            continue;
        warc_capture(fc, t, rc);
        running_remove(fc, t);
        out->host = t->host;
        out->req = t->req;
        out->elapsed_ms = (double)(monotime_ms() - t->start_ms);
        if (t->req)
            page_outcome(fc, t, rc, out);
        else
            fetchcurl_robots_outcome(fc, t, rc, out);
        transfer_free(t);
        return 1;
    }
    return 0;
}

void fetchcurl_done_release(struct fetchcurl_done *d)
{
    free(d->content_type);
    free(d->body);
    free(d->error);
    free(d->location);
    memset(d, 0, sizeof *d);
}

int fetchcurl_cancel(struct fetchcurl *fc, const void *group, void **host, void **req)
{
    for (struct transfer *t = fc->running; t; t = t->next) {
        if (group && t->group != group)
            continue;
        running_remove(fc, t);
        *host = t->host;
        *req = t->req;
        transfer_free(t);
        return 1;
    }
    return 0;
}

/* ---- the multi handle ----------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_global(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

enum err fetchcurl_new(const struct fetch_config *c, struct fetchcurl **out)
{
    pthread_once(&curl_once, curl_global);
    struct fetchcurl *fc = calloc(1, sizeof *fc);
    *out = NULL;
    if (!fc)
        return err_set(ERR_NOMEM, "out of memory");
    char ua[256];
    snprintf(ua, sizeof ua, "sitescout/%s (+%s)", SITESCOUT_VERSION, FETCH_INFO_URL);
    fc->user_agent = strdup(c->user_agent ? c->user_agent : ua);
    fc->proxy = c->proxy && *c->proxy ? strdup(c->proxy) : NULL;
    if (fc->proxy) { /* "http://host:port/" -> "host:port" */
        const char *from = strstr(fc->proxy, "://");
        from = from ? from + 3 : fc->proxy;
        snprintf(fc->proxy_name, sizeof fc->proxy_name, "%.*s", (int)strcspn(from, "/"), from);
    }
    fc->connect_timeout_ms = c->connect_timeout_ms;
    fc->timeout_ms = c->timeout_ms;
    fc->low_speed_bytes = c->low_speed_bytes;
    fc->low_speed_secs = c->low_speed_secs;
    fc->max_body = c->max_body;
    fc->multi = curl_multi_init();
    if (!fc->user_agent || !fc->multi || (c->proxy && *c->proxy && !fc->proxy)) {
        fetchcurl_free(fc);
        return err_set(ERR_NOMEM, "out of memory");
    }
    enum err e = c->allow_private ? ERR_OK : addrcheck_new(&fc->guard);
    if (e) {
        fetchcurl_free(fc);
        return e;
    }
    curl_multi_setopt(fc->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)c->max_in_flight);
    curl_multi_setopt(fc->multi, CURLMOPT_MAXCONNECTS, (long)c->max_in_flight * 2);
    *out = fc;
    return ERR_OK;
}

void fetchcurl_free(struct fetchcurl *fc)
{
    if (!fc)
        return;
    for (struct transfer *t = fc->running, *next; t; t = next) {
        next = t->next;
        curl_multi_remove_handle(fc->multi, t->easy);
        transfer_free(t);
    }
    if (fc->multi)
        curl_multi_cleanup(fc->multi);
    addrcheck_free(fc->guard);
    free(fc->proxy);
    free(fc->user_agent);
    free(fc);
}

void fetchcurl_perform(struct fetchcurl *fc)
{
    int running;
    curl_multi_perform(fc->multi, &running);
}

long fetchcurl_timeout(struct fetchcurl *fc)
{
    long ms = -1;
    curl_multi_timeout(fc->multi, &ms);
    return ms;
}

void fetchcurl_wait(struct fetchcurl *fc, long max_ms)
{
    curl_multi_poll(fc->multi, NULL, 0, (int)max_ms, NULL);
}

void fetchcurl_wakeup(struct fetchcurl *fc)
{
    curl_multi_wakeup(fc->multi);
}
