/* Checks of the raw parts of an HTTP request: NUL escapes, the Bearer scheme, lengths. */
#include "server/httpcheck.h"

#include <stddef.h>
#include <string.h>

#include "common/ascii.h"

int httpcheck_has_nul(const char *target)
{
    for (const char *p = strchr(target, '%'); p; p = strchr(p + 1, '%'))
        if (p[1] == '0' && p[2] == '0')
            return 1;
    return 0;
}

const char *httpcheck_bearer(const char *value)
{
    size_t n = strlen(value);
    if (!ascii_starts_with_ci(value, n, "bearer") || value[6] != ' ')
        return NULL;
    const char *t = value + 6;
    while (*t == ' ')
        t++;
    return t;
}

int httpcheck_content_length(const char *value, uint64_t *n)
{
    if (!*value)
        return 0;
    uint64_t x = 0;
    for (const char *p = value; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        unsigned d = (unsigned)(*p - '0');
        x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
    }
    *n = x;
    return 1;
}

int httpcheck_utf8(const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        unsigned c = *p, n, min;
        if (c < 0x80) {
            p++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            n = 1, min = 0x80, c &= 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
            n = 2, min = 0x800, c &= 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
            n = 3, min = 0x10000, c &= 0x07;
        else
            return 0;
        for (unsigned i = 1; i <= n; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return 0; /* also the end of the text */
            c = c << 6 | (p[i] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
            return 0; /* overlong, beyond Unicode, or a surrogate */
        p += n + 1;
    }
    return 1;
}

/* RFC 9110 §5.6.2: tchar. */
static int is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* A field value's byte (RFC 9110 §5.5): visible, space, tab, or obs-text. */
static int is_value_byte(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* The checker's cursor: the bytes and where it stands. */
struct scan {
    const unsigned char *p;
    size_t n, i;
};

/*
 * At a line end? 1: yes (the cursor moved past it); 0: no; -1: the bytes end first
 * (a CR as the last byte); -2: a CR not followed by LF.
 */
static int line_end(struct scan *s)
{
    if (s->i < s->n && s->p[s->i] == '\n') {
        s->i++;
        return 1;
    }
    if (s->i < s->n && s->p[s->i] == '\r') {
        if (s->i + 1 == s->n)
            return -1;
        if (s->p[s->i + 1] != '\n')
            return -2;
        s->i += 2;
        return 1;
    }
    return 0;
}

#define HEAD_FAULT(code, text)                                                                     \
    do {                                                                                           \
        *why = (text);                                                                             \
        return (code);                                                                             \
    } while (0)

/* The request line; HTTPCHECK_HEAD_OK once it has ended, the cursor past it. */
static enum httpcheck_head request_line(struct scan *s, const char **why)
{
    size_t start = s->i;
    while (s->i < s->n && is_tchar(s->p[s->i]))
        s->i++;
    if (s->i == s->n)
        return HTTPCHECK_HEAD_MORE;
    if (s->i == start || s->p[s->i] != ' ')
        HEAD_FAULT(HTTPCHECK_HEAD_BAD, "malformed request line (the method is not a token)");
    size_t target = ++s->i;
    for (; s->i < s->n && s->p[s->i] != ' '; s->i++) {
        unsigned char c = s->p[s->i];
        if (c == 0)
            HEAD_FAULT(HTTPCHECK_HEAD_NUL,
                       "the path or the query holds a NUL (%00 or a raw byte), which none may "
                       "hold");
        if (c <= 0x20 || c >= 0x7f)
            HEAD_FAULT(HTTPCHECK_HEAD_BAD,
                       "malformed request line (the target holds a control, space or "
                       "non-ASCII byte)");
        if (s->i - start > HTTPCHECK_MAX_LINE)
            HEAD_FAULT(HTTPCHECK_HEAD_URI_TOO_LONG, "request line too long");
    }
    if (s->i == s->n)
        return HTTPCHECK_HEAD_MORE;
    if (s->i == target)
        HEAD_FAULT(HTTPCHECK_HEAD_BAD, "malformed request line (no target)");
    s->i++;
    static const char proto[] = "HTTP/d.d";
    for (size_t k = 0; k < sizeof proto - 1; k++, s->i++) {
        if (s->i == s->n)
            return HTTPCHECK_HEAD_MORE;
        unsigned char c = s->p[s->i];
        if (proto[k] == 'd' ? !(c >= '0' && c <= '9') : c != (unsigned char)proto[k])
            HEAD_FAULT(HTTPCHECK_HEAD_BAD, "malformed request line (no HTTP version)");
    }
    int end = line_end(s);
    if (end == -1)
        return HTTPCHECK_HEAD_MORE;
    if (end != 1)
        HEAD_FAULT(HTTPCHECK_HEAD_BAD, "malformed request line (junk after the version)");
    const unsigned char *v = s->p + s->i - (s->p[s->i - 2] == '\r' ? 5 : 4);
    if (v[0] != '1' || (v[2] != '0' && v[2] != '1'))
        HEAD_FAULT(HTTPCHECK_HEAD_VERSION, "only HTTP/1.0 and HTTP/1.1 are served");
    if (s->i - start > HTTPCHECK_MAX_LINE)
        HEAD_FAULT(HTTPCHECK_HEAD_URI_TOO_LONG, "request line too long");
    return HTTPCHECK_HEAD_OK;
}

/* What the header fields said about the body's framing. */
struct framing {
    int has_length, has_te;
    uint64_t length;
    int has_host, has_auth; /* fields that may come once: whose copy would decide? */
};

/* Is the field name (name_len bytes) this lower-case word, in any case? */
static int is_name(const unsigned char *name, size_t name_len, const char *word)
{
    size_t n = strlen(word);
    return name_len == n && ascii_starts_with_ci((const char *)name, n, word);
}

/* A field's name and value (value without surrounding spaces): its framing part. */
static enum httpcheck_head field_framing(struct framing *f, const unsigned char *name,
                                         size_t name_len, const unsigned char *value,
                                         size_t value_len, const char **why)
{
    while (value_len && (value[0] == ' ' || value[0] == '\t'))
        value++, value_len--;
    while (value_len && (value[value_len - 1] == ' ' || value[value_len - 1] == '\t'))
        value_len--;
    if (is_name(name, name_len, "transfer-encoding"))
        f->has_te = 1;
    /* RFC 9112 §3.2: a second Host is 400. A second Authorization would be checked or
       ignored depending on which copy a reader takes: refused alike. */
    if (is_name(name, name_len, "host") && f->has_host++)
        HEAD_FAULT(HTTPCHECK_HEAD_BAD, "two Host fields");
    if (is_name(name, name_len, "authorization") && f->has_auth++)
        HEAD_FAULT(HTTPCHECK_HEAD_BAD, "two Authorization fields");
    if (is_name(name, name_len, "content-length")) {
        char text[24];
        uint64_t len;
        if (value_len >= sizeof text)
            HEAD_FAULT(HTTPCHECK_HEAD_BAD, "Content-Length is not a number");
        memcpy(text, value, value_len);
        text[value_len] = '\0';
        if (!httpcheck_content_length(text, &len))
            HEAD_FAULT(HTTPCHECK_HEAD_BAD, "Content-Length is not a number");
        if (f->has_length && f->length != len)
            HEAD_FAULT(HTTPCHECK_HEAD_BAD, "two Content-Length fields that differ");
        f->has_length = 1;
        f->length = len;
    }
    if (f->has_length && f->has_te)
        HEAD_FAULT(HTTPCHECK_HEAD_BAD, "both Content-Length and Transfer-Encoding");
    return HTTPCHECK_HEAD_OK;
}

/* One header field line; OK once it has ended, the cursor past it. */
static enum httpcheck_head field_line(struct scan *s, struct framing *f, const char **why)
{
    if (s->p[s->i] == ' ' || s->p[s->i] == '\t')
        HEAD_FAULT(HTTPCHECK_HEAD_BAD, "malformed header line (obsolete line folding)");
    size_t name = s->i;
    while (s->i < s->n && is_tchar(s->p[s->i]))
        s->i++;
    if (s->i == s->n)
        return HTTPCHECK_HEAD_MORE;
    if (s->i == name || s->p[s->i] != ':')
        HEAD_FAULT(HTTPCHECK_HEAD_BAD, "malformed header line (no 'name:')");
    size_t name_len = s->i - name, value = ++s->i;
    for (;;) {
        if (s->i == s->n)
            return HTTPCHECK_HEAD_MORE;
        size_t value_end = s->i;
        int end = line_end(s);
        if (end == -1)
            return HTTPCHECK_HEAD_MORE;
        if (end == -2)
            HEAD_FAULT(HTTPCHECK_HEAD_BAD, "malformed header line (a bare CR)");
        if (end == 1)
            return field_framing(f, s->p + name, name_len, s->p + value, value_end - value, why);
        if (!is_value_byte(s->p[s->i]))
            HEAD_FAULT(HTTPCHECK_HEAD_BAD, "malformed header line (a control byte in a value)");
        s->i++;
    }
}

enum httpcheck_head httpcheck_head(const char *p, size_t n, size_t *head_len, const char **why)
{
    struct scan s = {(const unsigned char *)p, n, 0};
    struct framing f = {0, 0, 0, 0, 0};
    *why = "";
    /* RFC 9112 §2.2: empty lines before the request line are ignored. */
    for (int end; (end = line_end(&s)) != 0;) {
        if (end == -1)
            return HTTPCHECK_HEAD_MORE;
        if (end == -2)
            HEAD_FAULT(HTTPCHECK_HEAD_BAD, "malformed request line (a bare CR)");
        if (s.i > HTTPCHECK_MAX_HEAD)
            HEAD_FAULT(HTTPCHECK_HEAD_TOO_BIG, "request head too long");
    }
    size_t line_start = s.i;
    enum httpcheck_head r = request_line(&s, why);
    if (r == HTTPCHECK_HEAD_MORE && n - line_start > HTTPCHECK_MAX_LINE + 2)
        HEAD_FAULT(HTTPCHECK_HEAD_URI_TOO_LONG, "request line too long");
    if (r == HTTPCHECK_HEAD_MORE && n > HTTPCHECK_MAX_HEAD)
        HEAD_FAULT(HTTPCHECK_HEAD_TOO_BIG, "request head too long");
    if (r != HTTPCHECK_HEAD_OK)
        return r;
    for (int fields = 0;; fields++) {
        if (s.i == s.n)
            r = HTTPCHECK_HEAD_MORE;
        else {
            int end = line_end(&s);
            if (end == 1) {
                if (s.i > HTTPCHECK_MAX_HEAD)
                    HEAD_FAULT(HTTPCHECK_HEAD_TOO_BIG, "request head too long");
                *head_len = s.i;
                return HTTPCHECK_HEAD_OK;
            }
            if (end == -2)
                HEAD_FAULT(HTTPCHECK_HEAD_BAD, "malformed header line (a bare CR)");
            if (end == -1)
                r = HTTPCHECK_HEAD_MORE; /* a CR: the head's end, or a fault, to come */
            else if (fields == HTTPCHECK_MAX_FIELDS)
                HEAD_FAULT(HTTPCHECK_HEAD_TOO_BIG, "too many header fields");
            else
                r = field_line(&s, &f, why);
        }
        if (r == HTTPCHECK_HEAD_MORE && s.n > HTTPCHECK_MAX_HEAD)
            HEAD_FAULT(HTTPCHECK_HEAD_TOO_BIG, "request head too long");
        if (r != HTTPCHECK_HEAD_OK)
            return r;
    }
}
