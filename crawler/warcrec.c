/* WARC/1.1 record headers and the HTTP head archived with a response. */
#include "crawler/warcrec.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include <openssl/evp.h>

void warcrec_new_id(char out[WARCREC_ID_LEN])
{
    unsigned char r[16];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = getrandom(r + got, sizeof r - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got < sizeof r) { /* no entropy to be had: still unique enough within a file */
        static unsigned counter;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t v[2] = {(uint64_t)ts.tv_sec ^ (uint64_t)ts.tv_nsec << 20, ++counter};
        memcpy(r, v, sizeof r);
    }
    r[6] = (unsigned char)((r[6] & 0x0f) | 0x40); /* version 4 */
    r[8] = (unsigned char)((r[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, WARCREC_ID_LEN,
             "<urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x>",
             r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13],
             r[14], r[15]);
}

void warcrec_date(time_t t, char out[WARCREC_DATE_LEN])
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, WARCREC_DATE_LEN, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

enum err warcrec_header(struct buf *out, const struct warcrec_fields *f)
{
    static const char *const names[] = {
        "WARC-Type",         "WARC-Record-ID",      "WARC-Date",       "WARC-Target-URI",
        "WARC-Filename",     "WARC-Concurrent-To",  "WARC-IP-Address", "Content-Type",
        "WARC-Block-Digest", "WARC-Payload-Digest", "WARC-Truncated",
    };
    const char *values[] = {
        f->type, f->id,           f->date,         f->target_uri,     f->filename, f->concurrent_to,
        f->ip,   f->content_type, f->block_digest, f->payload_digest, f->truncated};
    enum err e = buf_append_str(out, "WARC/1.1\r\n");
    for (size_t i = 0; !e && i < sizeof names / sizeof names[0]; i++)
        if (values[i])
            e = buf_appendf(out, "%s: %s\r\n", names[i], values[i]);
    if (!e)
        e = buf_appendf(out, "Content-Length: %" PRIu64 "\r\n\r\n", f->content_length);
    return e;
}

/* The length of the line at p (through its LF, or to end). */
static size_t line_len(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);
}

/* Does the line at p[n] name the header `name`? */
static int line_names(const char *p, size_t n, const char *name)
{
    size_t k = strlen(name);
    return n > k && p[k] == ':' && strncasecmp(p, name, k) == 0;
}

/* Is the line at p[n] empty (just its line end)? */
static int line_empty(const char *p, size_t n)
{
    return n == 0 || (n == 1 && p[0] == '\n') || (n == 2 && p[0] == '\r' && p[1] == '\n');
}

/* Whether head names a Content-Encoding other than identity, or any Transfer-Encoding. */
static int head_encoded(const char *head, const char *end)
{
    for (const char *p = head; p < end;) {
        size_t n = line_len(p, end);
        if (line_names(p, n, "Transfer-Encoding"))
            return 1;
        if (line_names(p, n, "Content-Encoding")) {
            const char *v = p + 17, *ve = p + n;
            while (v < ve && (*v == ' ' || *v == '\t'))
                v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == '\n' || ve[-1] == ' ' || ve[-1] == '\t'))
                ve--;
            if (ve > v && !((size_t)(ve - v) == 8 && strncasecmp(v, "identity", 8) == 0))
                return 1;
        }
        p += n;
    }
    return 0;
}

enum err warcrec_http_head(const char *head, size_t len, uint64_t body_len, struct buf *out,
                           int *decoded)
{
    const char *end = head + len;
    *decoded = head_encoded(head, end);
    enum err e = ERR_OK;
    int renaming = 0;
    for (const char *p = head; !e && p < end;) {
        size_t n = line_len(p, end);
        if (line_empty(p, n))
            break;
        if (*p != ' ' && *p != '\t') /* a folded line goes with the one it continues */
            renaming = *decoded && (line_names(p, n, "Content-Encoding") ||
                                    line_names(p, n, "Transfer-Encoding") ||
                                    line_names(p, n, "Content-Length"));
        if (renaming && *p != ' ' && *p != '\t')
            e = buf_append_str(out, WARCREC_DECODED_PREFIX);
        if (!e)
            e = buf_append(out, p, n);
        if (!e && (n == 0 || p[n - 1] != '\n'))
            e = buf_append_str(out, "\r\n"); /* a last line cut short */
        p += n;
    }
    if (!e && *decoded)
        e = buf_appendf(out, "Content-Length: %" PRIu64 "\r\n", body_len);
    if (!e)
        e = buf_append_str(out, "\r\n");
    return e;
}

enum err warcrec_digest(const void *a, size_t alen, const void *b, size_t blen,
                        char out[WARCREC_DIGEST_LEN])
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    unsigned char d[20];
    unsigned int dlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) &&
             (!alen || EVP_DigestUpdate(ctx, a, alen)) &&
             (!blen || EVP_DigestUpdate(ctx, b, blen)) && EVP_DigestFinal_ex(ctx, d, &dlen) &&
             dlen == sizeof d;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return err_set(ERR_NOMEM, "cannot compute a SHA-1 digest (libcrypto)");
    memcpy(out, "sha1:", 5);
    /* 160 bits = 32 groups of 5, read most significant first. */
    for (int i = 0; i < 32; i++) {
        int bit = i * 5, v = 0;
        for (int j = 0; j < 5; j++, bit++)
            v = v << 1 | ((d[bit / 8] >> (7 - bit % 8)) & 1);
        out[5 + i] = alphabet[v];
    }
    out[5 + 32] = '\0';
    return ERR_OK;
}
