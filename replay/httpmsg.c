/* HTTP/1.x heads: request parsing and re-framing of recorded responses for keep-alive. */
#include "replay/httpmsg.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define METHOD_MAX 32
#define LENGTH_MAX ((uint64_t)1 << 50)

size_t httpmsg_head_end(const char *data, size_t len)
{
    const char *p = data, *end = data + len;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        p++;
        if (p < end && *p == '\n')
            return (size_t)(p + 1 - data);
        if (p + 1 < end && p[0] == '\r' && p[1] == '\n')
            return (size_t)(p + 2 - data);
    }
    return 0;
}

/* One line of a head: [start, end) without its line ending; next is where the following starts. */
struct line {
    const char *start, *end, *next;
};

static int next_line(const char *p, const char *limit, struct line *l)
{
    const char *nl = memchr(p, '\n', (size_t)(limit - p));
    if (!nl)
        return 0;
    l->start = p;
    l->end = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
    l->next = nl + 1;
    return 1;
}

static int is_tchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Split "Name: value" with the value trimmed; 0 if the line is not a header field. */
static int split_field(const struct line *l, const char **name, size_t *nlen, const char **v,
                       const char **ve)
{
    const char *colon = memchr(l->start, ':', (size_t)(l->end - l->start));
    if (!colon || colon == l->start)
        return 0;
    *name = l->start;
    *nlen = (size_t)(colon - l->start);
    *v = colon + 1;
    *ve = l->end;
    while (*v < *ve && (**v == ' ' || **v == '\t'))
        (*v)++;
    while (*ve > *v && ((*ve)[-1] == ' ' || (*ve)[-1] == '\t'))
        (*ve)--;
    return 1;
}

static int name_is(const char *name, size_t len, const char *want)
{
    return strlen(want) == len && strncasecmp(name, want, len) == 0;
}

/* Whether a comma-separated header value lists token (case-insensitive). */
static int has_token(const char *v, const char *ve, const char *token)
{
    size_t tl = strlen(token);
    while (v < ve) {
        const char *comma = memchr(v, ',', (size_t)(ve - v));
        const char *e = comma ? comma : ve, *s = v;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        const char *t = e;
        while (t > s && (t[-1] == ' ' || t[-1] == '\t'))
            t--;
        if ((size_t)(t - s) == tl && strncasecmp(s, token, tl) == 0)
            return 1;
        v = comma ? comma + 1 : ve;
    }
    return 0;
}

/* The last element of a comma-separated list is token (for Transfer-Encoding). */
static int last_token_is(const char *v, const char *ve, const char *token)
{
    const char *s = ve;
    while (s > v && s[-1] != ',')
        s--;
    while (s < ve && (*s == ' ' || *s == '\t'))
        s++;
    size_t tl = strlen(token);
    return (size_t)(ve - s) >= tl && strncasecmp(s, token, tl) == 0 &&
           ((size_t)(ve - s) == tl || s[tl] == ';' || s[tl] == ' ');
}

static int parse_length(const char *v, const char *ve, uint64_t *out)
{
    uint64_t n = 0;
    if (v == ve)
        return 0;
    for (; v < ve; v++) {
        if (*v < '0' || *v > '9' || n > LENGTH_MAX)
            return 0;
        n = n * 10 + (uint64_t)(*v - '0');
    }
    if (n > LENGTH_MAX)
        return 0;
    *out = n;
    return 1;
}

enum err httpmsg_parse_request(const char *data, size_t head_len, struct httpmsg_request *req)
{
    memset(req, 0, sizeof *req);
    const char *end = data + head_len;
    struct line l;
    if (!next_line(data, end, &l))
        return err_set(ERR_PARSE, "no request line");

    /* METHOD SP target SP HTTP/1.x */
    const char *p = l.start;
    while (p < l.end && is_tchar(*p))
        p++;
    if (p == l.start || p >= l.end || *p != ' ' || p - l.start > METHOD_MAX)
        return err_set(ERR_PARSE, "bad request method");
    req->method = l.start;
    req->method_len = (size_t)(p - l.start);
    const char *t = ++p;
    while (p < l.end && (unsigned char)*p > ' ' && *p != 0x7f)
        p++;
    if (p == t || p >= l.end || *p != ' ')
        return err_set(ERR_PARSE, "bad request target");
    req->target = t;
    req->target_len = (size_t)(p - t);
    p++;
    if (l.end - p != 8 || memcmp(p, "HTTP/1.", 7) != 0 || p[7] < '0' || p[7] > '9')
        return err_set(ERR_PARSE, "not an HTTP/1.x request");
    req->minor = p[7] - '0';

    int conn_close = 0, conn_keep = 0, have_length = 0, nheaders = 0;
    for (p = l.next; next_line(p, end, &l); p = l.next) {
        if (l.start == l.end)
            break;
        if (++nheaders > HTTPMSG_HEADERS_MAX)
            return err_set(ERR_PARSE, "too many header lines");
        const char *name, *v, *ve;
        size_t nlen;
        if (*l.start == ' ' || *l.start == '\t' || !split_field(&l, &name, &nlen, &v, &ve))
            return err_set(ERR_PARSE, "bad header line");
        for (size_t i = 0; i < nlen; i++)
            if (!is_tchar(name[i]))
                return err_set(ERR_PARSE, "bad header name");
        if (name_is(name, nlen, "Host")) {
            if (req->host)
                return err_set(ERR_PARSE, "more than one Host header");
            req->host = v;
            req->host_len = (size_t)(ve - v);
        } else if (name_is(name, nlen, "Connection") || name_is(name, nlen, "Proxy-Connection")) {
            conn_close |= has_token(v, ve, "close");
            conn_keep |= has_token(v, ve, "keep-alive");
        } else if (name_is(name, nlen, "Content-Length")) {
            uint64_t n;
            if (!parse_length(v, ve, &n) || (have_length && n != req->content_length))
                return err_set(ERR_PARSE, "bad Content-Length");
            req->content_length = n;
            have_length = 1;
        } else if (name_is(name, nlen, "Transfer-Encoding")) {
            req->chunked = 1;
        }
    }
    req->keep_alive = !conn_close && (req->minor >= 1 || conn_keep);
    return ERR_OK;
}

enum err httpmsg_parse_response(const char *data, size_t len, struct httpmsg_response *resp)
{
    memset(resp, 0, sizeof *resp);
    size_t hl = httpmsg_head_end(data, len);
    if (!hl)
        return err_set(ERR_PARSE, "response head is incomplete or longer than %zu bytes", len);
    const char *end = data + hl;
    struct line l;
    if (!next_line(data, end, &l))
        return err_set(ERR_PARSE, "no status line");
    /* HTTP/d[.d] SP ddd [SP reason] */
    const char *p = l.start;
    if (l.end - p < 5 || memcmp(p, "HTTP/", 5) != 0)
        return err_set(ERR_PARSE, "status line does not start with HTTP/");
    p += 5;
    const char *d = p;
    while (p < l.end && ((*p >= '0' && *p <= '9') || *p == '.'))
        p++;
    if (p == d || l.end - p < 4 || *p != ' ')
        return err_set(ERR_PARSE, "bad status line");
    p++;
    for (int i = 0; i < 3; i++)
        if (p[i] < '0' || p[i] > '9')
            return err_set(ERR_PARSE, "bad status code");
    if (p + 3 < l.end && p[3] != ' ')
        return err_set(ERR_PARSE, "bad status code");
    resp->status = (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0');
    if (resp->status < 100)
        return err_set(ERR_PARSE, "bad status code");
    resp->head_len = hl;

    for (p = l.next; next_line(p, end, &l) && l.start != l.end; p = l.next) {
        const char *name, *v, *ve;
        size_t nlen;
        if (!split_field(&l, &name, &nlen, &v, &ve))
            continue; /* recorded junk stays verbatim; it does not frame anything */
        if (name_is(name, nlen, "Content-Length")) {
            uint64_t n;
            if (resp->has_length >= 0 && parse_length(v, ve, &n) &&
                (!resp->has_length || n == resp->content_length)) {
                resp->content_length = n;
                resp->has_length = 1;
            } else {
                resp->has_length = -1; /* invalid or conflicting: rewrite it */
            }
        } else if (name_is(name, nlen, "Transfer-Encoding")) {
            resp->chunked = last_token_is(v, ve, "chunked");
        }
    }
    if (resp->has_length < 0)
        resp->has_length = 0;
    return ERR_OK;
}

int httpmsg_bodyless(int status)
{
    return (status >= 100 && status < 200) || status == 204 || status == 304;
}

/* Append len bytes to out[outsz] at *n; 0 if they do not fit. */
static int put(char *out, size_t outsz, size_t *n, const char *s, size_t len)
{
    if (len > outsz - *n)
        return 0;
    memcpy(out + *n, s, len);
    *n += len;
    return 1;
}

enum err httpmsg_reframe(const char *head, const struct httpmsg_response *resp, uint64_t body_len,
                         int keep_alive, char *out, size_t outsz, size_t *outlen)
{
    const char *end = head + resp->head_len;
    int bodyless = httpmsg_bodyless(resp->status);
    int length_done = 0, dropping = 0;
    size_t n = 0;
    struct line l;
    if (!next_line(head, end, &l) || !put(out, outsz, &n, l.start, (size_t)(l.next - l.start)))
        goto toobig;
    const char *p;
    for (p = l.next; next_line(p, end, &l) && l.start != l.end; p = l.next) {
        const char *name, *v, *ve;
        size_t nlen;
        if (*l.start == ' ' || *l.start == '\t') { /* a folded line belongs to the one before */
            if (!dropping && !put(out, outsz, &n, l.start, (size_t)(l.next - l.start)))
                goto toobig;
            continue;
        }
        dropping = 0;
        if (split_field(&l, &name, &nlen, &v, &ve)) {
            if (name_is(name, nlen, "Connection") || name_is(name, nlen, "Keep-Alive") ||
                name_is(name, nlen, "Proxy-Connection")) {
                dropping = 1;
                continue;
            }
            if (name_is(name, nlen, "Content-Length") && !bodyless) {
                dropping = 1;
                if (resp->chunked || length_done)
                    continue;
                length_done = 1;
                if (resp->has_length && resp->content_length == body_len) {
                    dropping = 0; /* right as recorded: keep the line verbatim */
                } else {
                    char cl[64];
                    int k = snprintf(cl, sizeof cl, "Content-Length: %" PRIu64 "\r\n", body_len);
                    if (!put(out, outsz, &n, cl, (size_t)k))
                        goto toobig;
                    continue;
                }
            }
        }
        if (!put(out, outsz, &n, l.start, (size_t)(l.next - l.start)))
            goto toobig;
    }
    if (!length_done && !bodyless && !resp->chunked) {
        char cl[64];
        int k = snprintf(cl, sizeof cl, "Content-Length: %" PRIu64 "\r\n", body_len);
        if (!put(out, outsz, &n, cl, (size_t)k))
            goto toobig;
    }
    const char *c = keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
    if (!put(out, outsz, &n, c, strlen(c)))
        goto toobig;
    /* The empty line, with the recorded line ending. */
    if (!put(out, outsz, &n, p, (size_t)(end - p)))
        goto toobig;
    *outlen = n;
    return ERR_OK;
toobig:
    return err_set(ERR_TOOBIG, "re-framed response head does not fit in %zu bytes", outsz);
}
