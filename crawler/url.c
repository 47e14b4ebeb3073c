/* URL normalisation, RFC 3986 reference resolution and site identity for http(s) links. */
#include "crawler/url.h"

#include "common/ascii.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Everything is done in one pass into a stack buffer, with one malloc for the
 * result: the crawler normalises every link it extracts, so no per-component
 * allocations and nothing worse than linear in the input.
 */

/* Work buffer for a URL being built: the path may shrink afterwards (dot segments). */
#define WORK_MAX (2 * URL_INPUT_MAX)

/* Hosts longer than this are not DNS names (RFC 1035 §2.3.4, without a trailing dot). */
#define HOST_MAX  253
#define LABEL_MAX 63

static const char HEX[] = "0123456789ABCDEF";

/* A piece of a string, not NUL-terminated. */
struct span {
    const char *p;
    size_t n;
};

/* A reference split as in RFC 3986 Appendix B; the fragment is dropped. */
struct ref {
    struct span scheme; /* n == 0: no scheme */
    struct span auth;
    struct span path;
    struct span query;
    int has_auth;
    int has_query;
};

/* Bounded output: bytes past cap are dropped and overflow is set. */
struct out {
    char *p;
    size_t n;
    size_t cap;
    int overflow;
};

static inline void put(struct out *o, char c)
{
    if (o->n < o->cap)
        o->p[o->n++] = c;
    else
        o->overflow = 1;
}

static void put_n(struct out *o, const char *s, size_t n)
{
    if (n > o->cap - o->n) {
        o->overflow = 1;
        return;
    }
    memcpy(o->p + o->n, s, n);
    o->n += n;
}

static inline void put_pct(struct out *o, unsigned char c)
{
    put(o, '%');
    put(o, HEX[c >> 4]);
    put(o, HEX[c & 15]);
}

static inline int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static inline char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

/* RFC 3986 §2.3. */
static inline int is_unreserved(unsigned char c)
{
    return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* Bytes that may stand unencoded in a path (pchar / "/") or, with query set, a query. */
static inline int is_path_char(unsigned char c, int query)
{
    if (is_unreserved(c))
        return 1;
    /* clang-format off */
    switch (c) {
    case '!': case '$': case '&': case '\'': case '(': case ')': /* sub-delims */
    case '*': case '+': case ',': case ';': case '=':
    case ':': case '@': case '/':
        return 1;
    case '?':
        return query;
    default:
        return 0;
    }
    /* clang-format on */
}

/* RFC 3986 §2.2: the reserved characters; with the unreserved ones and '%', a URL's set. */
static inline int is_reserved(unsigned char c)
{
    return c && strchr(":/?#[]@!$&'()*+,;=", c) != NULL;
}

const char *url_find_invalid(const char *s)
{
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '%') {
            if (ascii_hex_value((unsigned char)p[1]) < 0 ||
                ascii_hex_value((unsigned char)p[2]) < 0)
                return p;
        } else if (!is_unreserved(c) && !is_reserved(c)) {
            return p;
        }
    }
    return NULL;
}

static int span_ieq(struct span s, const char *lit)
{
    size_t n = strlen(lit);
    if (s.n != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower(s.p[i]) != lit[i])
            return 0;
    return 1;
}

/*
 * Copy `in` to buf as a browser reads an href: strip leading and trailing C0
 * controls and spaces, drop tabs and newlines anywhere, and read '\' as '/'
 * before the query or fragment (WHATWG URL, for the http(s) schemes).
 */
static enum err clean(const char *in, char *buf, size_t *len)
{
    size_t n = strnlen(in, URL_INPUT_MAX + 1);
    if (n > URL_INPUT_MAX)
        return err_set(ERR_TOOBIG, "URL longer than %d bytes", URL_INPUT_MAX);
    while (n && (unsigned char)in[0] <= ' ')
        in++, n--;
    while (n && (unsigned char)in[n - 1] <= ' ')
        n--;
    size_t w = 0;
    int in_path = 1;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        if (c == '\t' || c == '\n' || c == '\r')
            continue;
        if (c == '?' || c == '#')
            in_path = 0;
        else if (c == '\\' && in_path)
            c = '/';
        buf[w++] = c;
    }
    buf[w] = '\0';
    *len = w;
    return ERR_OK;
}

static void split(const char *s, size_t n, struct ref *r)
{
    memset(r, 0, sizeof *r);
    size_t i = 0, j;
    /* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
    if (n && is_alpha((unsigned char)s[0])) {
        for (j = 1; j < n; j++) {
            unsigned char c = (unsigned char)s[j];
            if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.')
                break;
        }
        if (j < n && s[j] == ':') {
            r->scheme = (struct span){s, j};
            i = j + 1;
        }
    }
    if (n - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
        i += 2;
        for (j = i; j < n && s[j] != '/' && s[j] != '?' && s[j] != '#'; j++)
            ;
        r->has_auth = 1;
        r->auth = (struct span){s + i, j - i};
        i = j;
    }
    for (j = i; j < n && s[j] != '?' && s[j] != '#'; j++)
        ;
    r->path = (struct span){s + i, j - i};
    i = j;
    if (i < n && s[i] == '?') {
        for (j = ++i; j < n && s[j] != '#'; j++)
            ;
        r->has_query = 1;
        r->query = (struct span){s + i, j - i};
    }
}

/*
 * WHATWG "ends in a number": a host whose last label is numeric is an IPv4
 * address in one of inet_aton's forms (1.2.3.4, 0x7f.1, 017700000001, ...).
 * Returns 0 if the host is not numeric, 1 with *addr set, -1 if it is numeric
 * but not a valid address. h is lower-case, without a trailing dot.
 */
static int parse_ipv4(const char *h, size_t n, uint32_t *addr)
{
    size_t last = n;
    while (last > 0 && h[last - 1] != '.')
        last--;
    const char *l = h + last;
    size_t ln = n - last;
    int hex = ln >= 2 && l[0] == '0' && l[1] == 'x';
    int numeric = ln > 0;
    for (size_t k = hex ? 2 : 0; k < ln && numeric; k++)
        numeric = hex ? ascii_hex_value((unsigned char)l[k]) >= 0 : is_digit((unsigned char)l[k]);
    if (!numeric)
        return 0;

    uint64_t part[4];
    size_t count = 0, i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && h[j] != '.')
            j++;
        if (j == i || count == 4)
            return -1;
        int base = 10;
        size_t k2 = i;
        if (j - i >= 2 && h[i] == '0' && h[i + 1] == 'x')
            base = 16, k2 += 2;
        else if (j - i >= 2 && h[i] == '0')
            base = 8, k2 += 1;
        uint64_t v = 0;
        for (; k2 < j; k2++) {
            int d = ascii_hex_value((unsigned char)h[k2]);
            if (d < 0 || d >= base)
                return -1;
            v = v * (uint64_t)base + (uint64_t)d;
            if (v > 0xffffffffu)
                return -1;
        }
        part[count++] = v;
        i = j + 1;
    }
    uint64_t a = 0;
    for (size_t p = 0; p + 1 < count; p++) {
        if (part[p] > 255)
            return -1;
        a |= part[p] << (8 * (3 - p));
    }
    if (part[count - 1] >= ((uint64_t)1 << (8 * (5 - count))))
        return -1;
    *addr = (uint32_t)(a | part[count - 1]);
    return 1;
}

static void put_ipv4(struct out *o, uint32_t a)
{
    for (int shift = 24; shift >= 0; shift -= 8) {
        unsigned v = (a >> shift) & 255;
        if (v >= 100)
            put(o, (char)('0' + v / 100));
        if (v >= 10)
            put(o, (char)('0' + v / 10 % 10));
        put(o, (char)('0' + v % 10));
        if (shift)
            put(o, '.');
    }
}

/* "[...]" contents: kept, in the canonical text form of RFC 5952 (via inet_ntop). */
static enum err put_ipv6(struct out *o, struct span h)
{
    char text[INET6_ADDRSTRLEN];
    unsigned char bin[16];
    if (h.n == 0 || h.n >= sizeof text)
        return err_set(ERR_INVAL, "bad IPv6 address");
    memcpy(text, h.p, h.n);
    text[h.n] = '\0';
    /* Rejects IPvFuture and zone identifiers ("%25eth0"): meaningless across hosts. */
    if (inet_pton(AF_INET6, text, bin) != 1 || !inet_ntop(AF_INET6, bin, text, sizeof text))
        return err_set(ERR_INVAL, "bad IPv6 address \"%.*s\"", (int)h.n, h.p);
    put(o, '[');
    put_n(o, text, strlen(text));
    put(o, ']');
    return ERR_OK;
}

static enum err put_reg_host(struct out *o, struct span h)
{
    char name[HOST_MAX + 1]; /* room for a trailing dot */
    size_t n = 0;
    for (size_t i = 0; i < h.n; i++) {
        char c = h.p[i];
        if (c == '%') {
            int hi = h.n - i >= 3 ? ascii_hex_value((unsigned char)h.p[i + 1]) : -1;
            int lo = hi >= 0 ? ascii_hex_value((unsigned char)h.p[i + 2]) : -1;
            if (lo < 0)
                return err_set(ERR_INVAL, "bad percent-escape in host");
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (n == sizeof name)
            return err_set(ERR_INVAL, "host longer than %d bytes", HOST_MAX);
        name[n++] = lower(c);
    }
    if (n > 1 && name[n - 1] == '.')
        n--;
    if (n > HOST_MAX)
        return err_set(ERR_INVAL, "host longer than %d bytes", HOST_MAX);
    if (n == 0)
        return err_set(ERR_INVAL, "empty host");

    uint32_t addr;
    int ip = parse_ipv4(name, n, &addr);
    if (ip < 0)
        return err_set(ERR_INVAL, "bad IPv4 address \"%.*s\"", (int)n, name);
    if (ip > 0) {
        put_ipv4(o, addr);
        return ERR_OK;
    }

    /* No IDNA: a host must already be ASCII (punycode), as DNS sees it. */
    size_t label = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == '.') {
            if (label == 0)
                return err_set(ERR_INVAL, "empty label in host");
            label = 0;
            continue;
        }
        if (!(c >= 'a' && c <= 'z') && !is_digit(c) && c != '-' && c != '_')
            return err_set(ERR_INVAL, "invalid character in host");
        if (++label > LABEL_MAX)
            return err_set(ERR_INVAL, "host label longer than %d bytes", LABEL_MAX);
    }
    if (label == 0)
        return err_set(ERR_INVAL, "empty label in host");
    put_n(o, name, n);
    return ERR_OK;
}

/* [userinfo@]host[:port] -> host[:port], the port only when not the default. */
static enum err put_authority(struct out *o, struct span a, int https)
{
    /* The last '@' ends the userinfo, as in browsers. */
    for (size_t i = a.n; i > 0; i--) {
        if (a.p[i - 1] == '@') {
            a.p += i;
            a.n -= i;
            break;
        }
    }
    struct span host = a, port = {NULL, 0};
    enum err e;
    if (a.n && a.p[0] == '[') {
        const char *close = memchr(a.p, ']', a.n);
        if (!close)
            return err_set(ERR_INVAL, "unterminated IPv6 address");
        host = (struct span){a.p + 1, (size_t)(close - a.p) - 1};
        size_t rest = a.n - (size_t)(close + 1 - a.p);
        if (rest && close[1] != ':')
            return err_set(ERR_INVAL, "junk after IPv6 address");
        if (rest)
            port = (struct span){close + 2, rest - 1};
        e = put_ipv6(o, host);
    } else {
        const char *colon = memchr(a.p, ':', a.n);
        if (colon) {
            host.n = (size_t)(colon - a.p);
            port = (struct span){colon + 1, a.n - host.n - 1};
        }
        e = put_reg_host(o, host);
    }
    if (e)
        return e;

    /* An empty port means the default (RFC 3986 §6.2.3). */
    unsigned long v = 0;
    size_t digits = 0;
    for (size_t i = 0; i < port.n; i++) {
        if (!is_digit((unsigned char)port.p[i]))
            return err_set(ERR_INVAL, "bad port \"%.*s\"", (int)(port.n > 16 ? 16 : port.n),
                           port.p);
        if (v || port.p[i] != '0')
            digits++;
        if (digits > 5)
            return err_set(ERR_INVAL, "port out of range");
        v = v * 10 + (unsigned long)(port.p[i] - '0');
    }
    if (port.n && (v == 0 || v > 65535))
        return err_set(ERR_INVAL, "port %lu out of range 1..65535", v);
    if (port.n && v != (https ? 443u : 80u)) {
        char num[8];
        size_t k = sizeof num;
        for (; v; v /= 10)
            num[--k] = (char)('0' + v % 10);
        put(o, ':');
        put_n(o, num + k, sizeof num - k);
    }
    return ERR_OK;
}

/*
 * Path or query bytes with RFC 3986 §6.2.2.2 escapes: decode escaped unreserved
 * characters, upper-case other escapes, encode what may not stand raw.
 */
static void put_component(struct out *o, struct span s, int query)
{
    for (size_t i = 0; i < s.n; i++) {
        unsigned char c = (unsigned char)s.p[i];
        if (c == '%') {
            int hi = s.n - i >= 3 ? ascii_hex_value((unsigned char)s.p[i + 1]) : -1;
            int lo = hi >= 0 ? ascii_hex_value((unsigned char)s.p[i + 2]) : -1;
            if (lo < 0) {
                put_n(o, "%25", 3); /* a stray '%' stands for itself */
                continue;
            }
            c = (unsigned char)(hi * 16 + lo);
            i += 2;
            if (is_unreserved(c))
                put(o, (char)c);
            else
                put_pct(o, c);
        } else if (is_path_char(c, query)) {
            put(o, (char)c);
        } else {
            put_pct(o, c);
        }
    }
}

/*
 * RFC 3986 §5.2.4 on an absolute path, in place, in linear time: a ".." pops
 * the last output segment, whose bytes are never scanned again.
 */
static size_t remove_dots(char *s, size_t n)
{
    size_t r = 0, w = 0;
    while (r < n) {
        size_t b = r + 1, e = b; /* s[r] == '/' */
        while (e < n && s[e] != '/')
            e++;
        if (e - b == 1 && s[b] == '.') {
            if (e == n)
                s[w++] = '/';
        } else if (e - b == 2 && s[b] == '.' && s[b + 1] == '.') {
            while (w > 0 && s[--w] != '/')
                ;
            if (e == n)
                s[w++] = '/';
        } else {
            memmove(s + w, s + r, e - r);
            w += e - r;
        }
        r = e;
    }
    if (w == 0)
        s[w++] = '/';
    return w;
}

/* A target URL: the path is path1 followed by path2 (a merge, RFC 3986 §5.2.3). */
struct target {
    struct span scheme;
    struct span auth;
    struct span path1;
    struct span path2;
    struct span query;
    int has_auth;
    int has_query;
};

static enum err build(const struct target *t, char **out)
{
    char work[WORK_MAX];
    struct out o = {work, 0, sizeof work, 0};
    int https;
    if (span_ieq(t->scheme, "http"))
        https = 0;
    else if (span_ieq(t->scheme, "https"))
        https = 1;
    else
        return err_set(ERR_INVAL, "unsupported scheme \"%.*s\"",
                       (int)(t->scheme.n > 16 ? 16 : t->scheme.n), t->scheme.p);
    if (!t->has_auth)
        return err_set(ERR_INVAL, "URL has no host");
    put_n(&o, https ? "https://" : "http://", https ? 8 : 7);
    enum err e = put_authority(&o, t->auth, https);
    if (e)
        return e;

    size_t path_at = o.n;
    const struct span *first = t->path1.n ? &t->path1 : &t->path2;
    if (first->n && first->p[0] != '/')
        put(&o, '/'); /* cannot happen after an authority; keeps remove_dots' premise */
    put_component(&o, t->path1, 0);
    put_component(&o, t->path2, 0);
    if (o.overflow)
        return err_set(ERR_TOOBIG, "URL longer than %d bytes", URL_MAX);
    if (o.n == path_at)
        put(&o, '/');
    else
        o.n = path_at + remove_dots(work + path_at, o.n - path_at);
    if (t->has_query) {
        put(&o, '?');
        put_component(&o, t->query, 1);
    }
    if (o.overflow || o.n > URL_MAX)
        return err_set(ERR_TOOBIG, "URL longer than %d bytes", URL_MAX);

    char *s = malloc(o.n + 1);
    if (!s)
        return err_set(ERR_NOMEM, "out of memory");
    memcpy(s, work, o.n);
    s[o.n] = '\0';
    *out = s;
    return ERR_OK;
}

static void target_from_ref(struct target *t, const struct ref *r)
{
    *t = (struct target){.scheme = r->scheme,
                         .auth = r->auth,
                         .path2 = r->path,
                         .query = r->query,
                         .has_auth = r->has_auth,
                         .has_query = r->has_query};
}

enum err url_normalize(const char *in, char **out)
{
    char buf[URL_INPUT_MAX + 1];
    size_t n = 0;
    struct ref r;
    struct target t;
    *out = NULL;
    enum err e = clean(in, buf, &n);
    if (e)
        return e;
    split(buf, n, &r);
    if (!r.scheme.n)
        return err_set(ERR_INVAL, "not an absolute URL");
    target_from_ref(&t, &r);
    return build(&t, out);
}

enum err url_resolve(const char *base, const char *ref, char **out)
{
    char buf[URL_INPUT_MAX + 1];
    size_t n = 0;
    struct ref r, b;
    struct target t;
    *out = NULL;
    enum err e = clean(ref, buf, &n);
    if (e)
        return e;
    split(buf, n, &r);
    /* Absolute, or not http(s) at all: the base does not matter. */
    if (r.scheme.n &&
        (r.has_auth || !(span_ieq(r.scheme, "http") || span_ieq(r.scheme, "https")))) {
        target_from_ref(&t, &r);
        return build(&t, out);
    }

    size_t bn = strnlen(base, URL_INPUT_MAX + 1);
    if (bn > URL_INPUT_MAX)
        return err_set(ERR_TOOBIG, "base URL longer than %d bytes", URL_INPUT_MAX);
    split(base, bn, &b);
    if (!b.has_auth || !(span_ieq(b.scheme, "http") || span_ieq(b.scheme, "https")))
        return err_set(ERR_INVAL, "base is not an absolute http(s) URL");
    if (r.scheme.n && span_ieq(r.scheme, "https") != span_ieq(b.scheme, "https")) {
        /* "https:g" against an http base: a URL without a host. */
        target_from_ref(&t, &r);
        return build(&t, out);
    }

    /* RFC 3986 §5.2.2, with "http:g" read as "g" (§5.4.2, for backward compatibility). */
    t = (struct target){.scheme = b.scheme, .has_auth = 1};
    if (r.has_auth) {
        t.auth = r.auth;
        t.path2 = r.path;
        t.query = r.query;
        t.has_query = r.has_query;
        return build(&t, out);
    }
    t.auth = b.auth;
    if (r.path.n == 0) {
        t.path2 = b.path;
        t.has_query = r.has_query || b.has_query;
        t.query = r.has_query ? r.query : b.query;
    } else {
        if (r.path.p[0] == '/') {
            t.path2 = r.path;
        } else {
            size_t dir = b.path.n;
            while (dir > 0 && b.path.p[dir - 1] != '/')
                dir--;
            t.path1 = dir ? (struct span){b.path.p, dir} : (struct span){"/", 1};
            t.path2 = r.path;
        }
        t.query = r.query;
        t.has_query = r.has_query;
    }
    return build(&t, out);
}

const char *url_host_ref(const char *url, size_t *len)
{
    const char *p;
    if (!strncmp(url, "http://", 7))
        p = url + 7;
    else if (!strncmp(url, "https://", 8))
        p = url + 8;
    else
        return NULL;
    size_t n = strcspn(p, "/?#");
    if (n == 0)
        return NULL;
    *len = n;
    return p;
}

enum err url_host(const char *url, char **out)
{
    size_t n = 0;
    const char *h = url_host_ref(url, &n);
    *out = NULL;
    if (!h)
        return err_set(ERR_INVAL, "not a normalised http(s) URL");
    char *s = malloc(n + 1);
    if (!s)
        return err_set(ERR_NOMEM, "out of memory");
    memcpy(s, h, n);
    s[n] = '\0';
    *out = s;
    return ERR_OK;
}

enum err url_homepage(const char *url, char **out)
{
    size_t n = 0;
    const char *h = url_host_ref(url, &n);
    *out = NULL;
    if (!h)
        return err_set(ERR_INVAL, "not a normalised http(s) URL");
    size_t len = (size_t)(h - url) + n;
    char *s = malloc(len + 2);
    if (!s)
        return err_set(ERR_NOMEM, "out of memory");
    memcpy(s, url, len);
    s[len] = '/';
    s[len + 1] = '\0';
    *out = s;
    return ERR_OK;
}

int url_same_site(const char *a, const char *b)
{
    size_t an = 0, bn = 0;
    const char *ha = url_host_ref(a, &an);
    const char *hb = url_host_ref(b, &bn);
    return ha && hb && an == bn && !memcmp(ha, hb, an);
}

const char *url_path_and_query(const char *url)
{
    size_t n = 0;
    const char *h = url_host_ref(url, &n);
    return h && h[n] == '/' ? h + n : NULL;
}
