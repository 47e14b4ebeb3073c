/* Building the replay server's responses: generated pages, archived records, synthetic hosts. */
#include "replay/response.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/log.h"
#include "replay/synth.h"

/* ---- the pool ------------------------------------------------------------------------ */

struct response *response_get(struct response_pool *p)
{
    struct response *r = p->free;
    if (r) {
        p->free = r->next_free;
        p->nfree--;
    } else if (!(r = malloc(sizeof *r))) {
        return NULL;
    }
    /* Everything but the two big buffers starts from zero. */
    memset(r, 0, offsetof(struct response, out));
    r->reset_at = UINT64_MAX;
    r->stall_at = UINT64_MAX;
    return r;
}

static void response_reader_put(struct response_pool *p, struct warcreader *rd)
{
    if (!rd)
        return;
    if (p->nreaders < RESPONSE_POOL_MAX)
        p->readers[p->nreaders++] = rd;
    else
        warcreader_free(rd);
}

void response_put(struct response_pool *p, struct response *r)
{
    response_reader_put(p, r->reader);
    r->reader = NULL;
    if (p->nfree < RESPONSE_POOL_MAX) {
        r->next_free = p->free;
        p->free = r;
        p->nfree++;
    } else {
        free(r);
    }
}

static struct warcreader *response_reader_get(struct response_pool *p)
{
    if (p->nreaders)
        return p->readers[--p->nreaders];
    return warcreader_new();
}

void response_pool_release(struct response_pool *p)
{
    while (p->free) {
        struct response *r = p->free;
        p->free = r->next_free;
        free(r);
    }
    for (size_t i = 0; i < p->nreaders; i++)
        warcreader_free(p->readers[i]);
    p->nfree = p->nreaders = 0;
}

/* ---- heads and generated pages ------------------------------------------------------- */

static const char *response_reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 301:
        return "Moved Permanently";
    case 302:
        return "Found";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Content Too Large";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    }
    return "Error";
}

/* Escape text for HTML into dst[cap] (always NUL-terminated). */
static void response_html_escape(const char *src, char *dst, size_t cap)
{
    size_t n = 0;
    for (; *src && n + 7 < cap; src++) {
        const char *rep = NULL;
        switch (*src) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        }
        if (rep) {
            memcpy(dst + n, rep, strlen(rep));
            n += strlen(rep);
        } else {
            dst[n++] = *src;
        }
    }
    dst[n] = '\0';
}

/* Head for a generated body of body_len bytes; the body itself goes to the stash. */
static void response_head(struct response *r, int status, const char *ctype, uint64_t body_len,
                          const char *extra)
{
    int n = snprintf(r->out, RESPONSE_OUT_CAP,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %" PRIu64
                     "\r\n%sConnection: %s\r\n\r\n",
                     status, response_reason(status), ctype, body_len, extra ? extra : "",
                     r->keep_alive ? "keep-alive" : "close");
    r->out_len = (size_t)n;
    r->head_len = (uint64_t)n;
    r->status = status;
}

/* A small generated HTML page (errors, 404, 502). */
void response_page(struct response *r, int status, const char *extra, const char *msg,
                   int head_only)
{
    char url[1024];
    response_html_escape(r->url, url, sizeof url);
    int n = snprintf(r->stash, sizeof r->stash,
                     "<!DOCTYPE html>\n<html><head><title>%d %s</title></head>\n<body>\n"
                     "<h1>%s</h1>\n<p>%s</p>\n<p><code>%s</code></p>\n</body></html>\n",
                     status, response_reason(status), response_reason(status), msg, url);
    size_t len = n < 0 ? 0 : (size_t)n >= sizeof r->stash ? sizeof r->stash - 1 : (size_t)n;
    response_head(r, status, "text/html; charset=utf-8", len, extra);
    r->kind = RESPONSE_BODY_MEM;
    r->stash_off = 0;
    r->stash_len = len;
    r->body_len = head_only ? 0 : len;
}

void response_error_fault(struct response *r, int status, int head_only)
{
    r->faults |= RESPONSE_FAULT_ERROR;
    response_page(r, status, status == 503 ? "Retry-After: 1\r\n" : NULL,
                  "The replay web injected this error (--error-rate).", head_only);
}

void response_loop_fault(struct response *r, int status, const char *location, int head_only)
{
    char extra[WARCURL_MAX + 16];
    snprintf(extra, sizeof extra, "Location: %s\r\n", location);
    r->faults |= RESPONSE_FAULT_LOOP;
    response_page(r, status, extra,
                  "The replay web injected this redirect loop (--redirect-loop-rate).", head_only);
}

/* The recorded response; nonzero if the record cannot be served. */
int response_record(struct response_pool *p, struct response *r, const struct warc_record *rec,
                    int head_only)
{
    struct warcreader *rd = response_reader_get(p);
    if (!rd || warcreader_start(rd, p->arc, rec) != ERR_OK) {
        log_warn("%s: %s", r->url, rd ? err_msg() : "out of memory");
        response_reader_put(p, rd);
        return -1;
    }
    size_t want = rec->length < sizeof r->stash ? (size_t)rec->length : sizeof r->stash, got = 0;
    enum err e = ERR_OK;
    while (got < want) {
        size_t n;
        if ((e = warcreader_read(rd, r->stash + got, want - got, &n)) != ERR_OK || !n)
            break;
        got += n;
    }
    if (got < want) {
        log_warn("%s: cannot read the record: %s", r->url, e ? err_msg() : "the block ends early");
        response_reader_put(p, rd);
        return -1;
    }
    struct httpmsg_response h;
    if (httpmsg_parse_response(r->stash, got, &h) != ERR_OK) {
        log_warn("%s: the recorded response is not HTTP: %s", r->url, err_msg());
        response_reader_put(p, rd);
        return -1;
    }
    uint64_t body_len = rec->length - h.head_len;
    if (h.chunked)
        r->keep_alive = 0; /* recorded chunks are sent as they are: trust no framing after them */
    size_t hl;
    if (httpmsg_reframe(r->stash, &h, body_len, r->keep_alive, r->out, RESPONSE_OUT_CAP, &hl) !=
        ERR_OK) {
        log_warn("%s: %s", r->url, err_msg());
        response_reader_put(p, rd);
        return -1;
    }
    r->out_len = hl;
    r->head_len = hl;
    r->status = h.status;
    if (head_only || httpmsg_bodyless(h.status)) {
        response_reader_put(p, rd);
        return 0;
    }
    r->kind = RESPONSE_BODY_RECORD;
    r->reader = rd;
    r->stash_off = h.head_len;
    r->stash_len = got;
    r->body_len = body_len;
    return 0;
}

void response_synth(struct response *r, enum response_synth kind, const char *path, size_t path_len,
                    uint64_t seed, int head_only)
{
    if (kind == RESPONSE_SYNTH_TRAP) {
        struct buf b;
        buf_init(&b, sizeof r->stash - 1);
        if (synth_trap_page(path, path_len, &b) != ERR_OK) {
            buf_release(&b);
            response_page(r, 500, NULL, "The calendar page did not fit.", head_only);
            return;
        }
        memcpy(r->stash, b.data, b.len);
        r->stash_off = 0;
        r->stash_len = b.len;
        r->kind = RESPONSE_BODY_MEM;
        response_head(r, 200, "text/html; charset=utf-8", b.len, NULL);
        r->body_len = head_only ? 0 : b.len;
        buf_release(&b);
    } else if (kind == RESPONSE_SYNTH_HUGE) {
        r->kind = RESPONSE_BODY_HUGE;
        response_head(r, 200, "text/html", SYNTH_HUGE_BYTES, NULL);
        r->body_len = head_only ? 0 : SYNTH_HUGE_BYTES;
    } else {
        r->kind = RESPONSE_BODY_JUNK;
        r->junk_seed = synth_mix64(seed ^ synth_hash64(r->url, strlen(r->url)));
        uint64_t len = synth_junk_length(r->junk_seed);
        response_head(r, 200, "text/html", len, NULL);
        r->body_len = head_only ? 0 : len;
    }
}

/* Next body bytes into dst[n]: how many, or -1 if the source failed. */
ssize_t response_produce(struct response *r, char *dst, size_t n)
{
    if (r->stash_off < r->stash_len) {
        size_t k = r->stash_len - r->stash_off;
        if (k > n)
            k = n;
        memcpy(dst, r->stash + r->stash_off, k);
        r->stash_off += k;
        return (ssize_t)k;
    }
    switch (r->kind) {
    case RESPONSE_BODY_MEM:
        return 0;
    case RESPONSE_BODY_RECORD: {
        size_t got;
        if (warcreader_read(r->reader, dst, n, &got) != ERR_OK) {
            log_warn("%s: %s", r->url, err_msg());
            return -1;
        }
        return (ssize_t)got;
    }
    case RESPONSE_BODY_HUGE:
        synth_huge_fill(r->produced, dst, n);
        return (ssize_t)n;
    case RESPONSE_BODY_JUNK:
        synth_junk_fill(r->junk_seed, r->produced, dst, n);
        return (ssize_t)n;
    }
    return -1;
}

void response_fault_names(unsigned bits, char *out, size_t cap)
{
    static const char *const names[] = {"error", "reset", "slow", "stall", "loop", "hangup"};
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
        if (!(bits & (1u << i)))
            continue;
        int k = snprintf(out + n, cap - n, "%s%s", n ? "+" : "", names[i]);
        if (k < 0 || (size_t)k >= cap - n)
            return; /* cut short: RESPONSE_FAULT_NAMES_MAX holds them all */
        n += (size_t)k;
    }
}
