/* robots.txt (RFC 9309): rules for our product token, path matching, per-host fetch policy. */
#include "crawler/robots.h"

#include "common/ascii.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/grow.h"

/* Which groups a rule came from: kept at the end depending on what matched. */
#define FOR_US  1 /* a group naming our product token */
#define FOR_ALL 2 /* a "*" group */

struct rule {
    size_t off;  /* pattern in robots.text, without the anchoring '$' */
    size_t len;  /* its length in bytes */
    size_t prio; /* octets of the pattern as written after normalisation */
    unsigned allow : 1;
    unsigned anchored : 1; /* the pattern ended in '$' */
    unsigned who : 2;      /* FOR_US | FOR_ALL */
};

struct robots {
    struct rule *rules; /* by prio descending, Allow first on a tie */
    size_t n, cap;
    char *text; /* normalised patterns, back to back */
    size_t text_len, text_cap;
    int delay_ms;
};

static const char HEX[] = "0123456789ABCDEF";

static int is_unreserved(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~';
}

/*
 * Bytes that stand raw after normalisation: the same set url_normalize leaves
 * unencoded in paths and queries (RFC 3986 pchar, '/', '?'), minus '*' and '$',
 * which are special in patterns.
 */
static int is_plain(unsigned char c)
{
    if (is_unreserved(c))
        return 1;
    /* clang-format off */
    switch (c) {
    case '!': case '&': case '\'': case '(': case ')': case '+': case ',':
    case ';': case '=': case ':': case '@': case '/': case '?':
        return 1;
    default:
        return 0;
    }
    /* clang-format on */
}

/*
 * RFC 9309 §2.2.2: percent-encode bytes outside ASCII and the reserved set,
 * decode escapes of unreserved characters, upper-case the rest. Patterns and
 * paths get the same treatment, except that '*' is a wildcard in a pattern while
 * a literal '*' or '$' in a path is encoded, so that a pattern's "%2A" / "%24"
 * matches it (§2.2.3). Writes at most 3n bytes; returns the length, or
 * (size_t)-1 if cap is too small.
 */
static size_t normalise(const char *s, size_t n, char *out, size_t cap, int pattern)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int escape = 0;
        if (c == '%') {
            int hi = n - i >= 3 ? ascii_hex_value((unsigned char)s[i + 1]) : -1;
            int lo = hi >= 0 ? ascii_hex_value((unsigned char)s[i + 2]) : -1;
            if (lo >= 0) {
                c = (unsigned char)(hi * 16 + lo);
                i += 2;
                escape = !is_unreserved(c);
            } else {
                escape = 1; /* a stray '%' stands for itself, as in url.c */
            }
        } else {
            escape = !is_plain(c) && !(pattern && c == '*');
        }
        if (cap - w < 3)
            return (size_t)-1;
        if (escape) {
            out[w++] = '%';
            out[w++] = HEX[c >> 4];
            out[w++] = HEX[c & 15];
        } else {
            out[w++] = (char)c;
        }
    }
    return w;
}

/*
 * Does the pattern match a prefix of s (all of s if anchored)? With '*' the only
 * wildcard, matching each literal piece at its leftmost possible place is exact,
 * and memmem keeps this linear in len + n.
 */
static int match(const char *pat, size_t len, int anchored, const char *s, size_t n)
{
    const char *star = memchr(pat, '*', len);
    size_t piece = star ? (size_t)(star - pat) : len;
    if (piece > n || memcmp(pat, s, piece))
        return 0;
    if (!star)
        return !anchored || piece == n;
    size_t p = piece, pos = piece;
    for (;;) {
        while (p < len && pat[p] == '*')
            p++;
        if (p == len)
            return 1; /* a trailing '*' takes the rest */
        star = memchr(pat + p, '*', len - p);
        piece = star ? (size_t)(star - (pat + p)) : len - p;
        if (!star && anchored)
            return n - pos >= piece && !memcmp(s + n - piece, pat + p, piece);
        const char *at = memmem(s + pos, n - pos, pat + p, piece);
        if (!at)
            return 0;
        if (!star)
            return 1;
        pos = (size_t)(at - s) + piece;
        p += piece;
    }
}

static int by_priority(const void *a, const void *b)
{
    const struct rule *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio < y->prio ? 1 : -1;
    return (int)y->allow - (int)x->allow;
}

static enum err add_rule(struct robots *r, int allow, const char *v, size_t vn, unsigned who)
{
    int anchored = vn && v[vn - 1] == '$';
    size_t raw = vn - (size_t)anchored;
    /* Room for the normalised rule (up to 3 bytes a byte), and a text even for "". */
    if (grow_array((void **)&r->text, &r->text_cap, r->text_len + 3 * raw + 1, 1) != ERR_OK ||
        grow_array((void **)&r->rules, &r->cap, r->n + 1, sizeof *r->rules) != ERR_OK)
        return err_set(ERR_NOMEM, "out of memory parsing robots.txt");
    size_t len = normalise(v, raw, r->text + r->text_len, 3 * raw, 1);
    r->rules[r->n++] = (struct rule){.off = r->text_len,
                                     .len = len,
                                     .prio = len + (size_t)anchored,
                                     .allow = (unsigned)allow,
                                     .anchored = (unsigned)anchored,
                                     .who = who};
    r->text_len += len;
    return ERR_OK;
}

/* Crawl-delay: seconds, optionally with a fraction ("0.5"); anything else is ignored. */
static int parse_delay(const char *v, size_t n)
{
    long ms = 0;
    size_t i = 0, digits = 0;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++, digits++)
        if (ms < ROBOTS_DELAY_MAX_MS)
            ms = ms * 10 + (v[i] - '0') * 1000;
    if (i < n && v[i] == '.') {
        long unit = 100;
        for (i++; i < n && v[i] >= '0' && v[i] <= '9'; i++, digits++, unit /= 10)
            ms += (v[i] - '0') * unit;
    }
    if (i != n || digits == 0)
        return -1;
    return ms > ROBOTS_DELAY_MAX_MS ? ROBOTS_DELAY_MAX_MS : (int)ms;
}

static int key_is(const char *k, size_t n, const char *lit)
{
    return strlen(lit) == n && !strncasecmp(k, lit, n);
}

/* RFC 9309 §2.2.1: product tokens are letters, '_' and '-'. */
static int is_token_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
}

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* Parser state between lines (RFC 9309 §2.1: a group is user-agent lines, then rules). */
struct parse {
    const char *product;
    size_t product_len;
    int in_agents;  /* the previous record was a user-agent line */
    unsigned group; /* FOR_US | FOR_ALL of the current group */
    unsigned seen;  /* FOR_US | FOR_ALL groups seen anywhere */
    int delay[3];   /* by who: largest Crawl-delay in ms, -1 = none */
};

static enum err parse_line(struct robots *r, struct parse *st, const char *s, size_t n)
{
    const char *hash = memchr(s, '#', n);
    if (hash)
        n = (size_t)(hash - s);
    const char *colon = memchr(s, ':', n);
    if (!colon)
        return ERR_OK; /* blank, comment or junk */
    const char *k = s, *v = colon + 1;
    size_t kn = (size_t)(colon - s), vn = n - kn - 1;
    while (kn && is_ws(*k))
        k++, kn--;
    while (kn && is_ws(k[kn - 1]))
        kn--;
    while (vn && is_ws(*v))
        v++, vn--;
    while (vn && is_ws(v[vn - 1]))
        vn--;

    if (key_is(k, kn, "user-agent")) {
        if (!st->in_agents)
            st->group = 0;
        st->in_agents = 1;
        if (vn && v[0] == '*' && (vn == 1 || is_ws(v[1]))) {
            st->group |= FOR_ALL;
        } else {
            /* The product token is the leading [A-Za-z_-] run: "Foo/1.0" names "foo". */
            size_t t = 0;
            while (t < vn && is_token_char(v[t]))
                t++;
            if (t && t == st->product_len && !strncasecmp(v, st->product, t))
                st->group |= FOR_US;
        }
        st->seen |= st->group;
        return ERR_OK;
    }
    int allow = key_is(k, kn, "allow");
    if (allow || key_is(k, kn, "disallow")) {
        st->in_agents = 0;
        if (!st->group || vn == 0)
            return ERR_OK; /* outside a group, or "Disallow:" = nothing disallowed */
        return add_rule(r, allow, v, vn, st->group);
    }
    if (key_is(k, kn, "crawl-delay")) {
        st->in_agents = 0;
        int ms = parse_delay(v, vn);
        for (unsigned who = FOR_US; who <= FOR_ALL; who++)
            if ((st->group & who) && ms > st->delay[who])
                st->delay[who] = ms;
    }
    /* sitemap and unknown records belong to no group and do not end one. */
    return ERR_OK;
}

enum err robots_parse(const char *body, size_t len, const char *product, struct robots **out)
{
    struct parse st = {.product = product, .delay = {-1, -1, -1}};
    enum err e = ERR_OK;
    *out = NULL;
    st.product_len = strlen(product);
    size_t t = 0;
    while (is_token_char(product[t]))
        t++;
    if (t == 0 || product[t])
        return err_set(ERR_INVAL, "bad robots.txt product token \"%s\"", product);
    struct robots *r = calloc(1, sizeof *r);
    if (!r)
        return err_set(ERR_NOMEM, "out of memory parsing robots.txt");

    if (len > ROBOTS_PARSE_MAX) {
        /* Drop the line cut by the limit: half a Disallow could allow too much. */
        len = ROBOTS_PARSE_MAX;
        while (len && body[len - 1] != '\n' && body[len - 1] != '\r')
            len--;
    }
    const char *p = body, *end = len ? body + len : body; /* body may be NULL when empty */
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    while (p < end) {
        const char *eol = p;
        while (eol < end && *eol != '\n' && *eol != '\r')
            eol++;
        e = parse_line(r, &st, p, (size_t)(eol - p));
        if (e)
            goto out;
        if (eol == end)
            break;
        p = eol + 1;
        if (p < end && eol[0] == '\r' && p[0] == '\n')
            p++;
    }

    /* Keep our groups if any named us, else the "*" groups (§2.2.1). */
    unsigned keep = (st.seen & FOR_US) ? FOR_US : (st.seen & FOR_ALL) ? FOR_ALL : 0;
    size_t w = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->rules[i].who & keep)
            r->rules[w++] = r->rules[i];
    r->n = w;
    if (r->n > 1) /* rules is NULL when there are none */
        qsort(r->rules, r->n, sizeof *r->rules, by_priority);
    r->delay_ms = keep && st.delay[keep] > 0 ? st.delay[keep] : 0;
out:
    if (e) {
        robots_free(r);
        return e;
    }
    *out = r;
    return ERR_OK;
}

void robots_free(struct robots *r)
{
    if (!r)
        return;
    free(r->rules);
    free(r->text);
    free(r);
}

/* §2.2.2: "/robots.txt" is implicitly allowed, whatever its query. */
static int is_robots_txt(const char *path)
{
    return !strncmp(path, "/robots.txt", 11) && (path[11] == '\0' || path[11] == '?');
}

int robots_allowed(const struct robots *r, const char *path)
{
    if (is_robots_txt(path))
        return 1;
    if (!r || r->n == 0)
        return 1;
    char buf[ROBOTS_PATH_MAX];
    size_t n = strnlen(path, ROBOTS_PATH_MAX);
    size_t len = n < ROBOTS_PATH_MAX ? normalise(path, n, buf, sizeof buf, 0) : (size_t)-1;
    if (len == (size_t)-1)
        return 0; /* longer than any URL we fetch: refuse rather than guess */
    if (len == 0)
        buf[len++] = '/';
    for (size_t i = 0; i < r->n; i++) {
        const struct rule *u = &r->rules[i];
        if (match(r->text + u->off, u->len, u->anchored, buf, len))
            return u->allow;
    }
    return 1;
}

int robots_crawl_delay_ms(const struct robots *r)
{
    return r ? r->delay_ms : 0;
}

size_t robots_rule_count(const struct robots *r)
{
    return r ? r->n : 0;
}

void robots_host_init(struct robots_host *h)
{
    *h = (struct robots_host){.state = ROBOTS_UNKNOWN, .retry_ms = ROBOTS_RETRY_MS};
}

void robots_host_release(struct robots_host *h)
{
    if (!h)
        return;
    robots_free(h->rules);
    h->rules = NULL;
}

enum robots_verdict robots_host_check(struct robots_host *h, const char *path, int64_t now_ms,
                                      int64_t *retry_at_ms)
{
    switch (h->state) {
    case ROBOTS_KNOWN:
        return robots_allowed(h->rules, path) ? ROBOTS_ALLOW : ROBOTS_DISALLOW;
    case ROBOTS_GAVE_UP:
        return is_robots_txt(path) ? ROBOTS_ALLOW : ROBOTS_DISALLOW;
    case ROBOTS_FETCHING:
    case ROBOTS_BACKOFF:
        if (now_ms < h->until_ms) {
            if (retry_at_ms)
                *retry_at_ms = h->until_ms;
            return ROBOTS_WAIT;
        }
        break;
    case ROBOTS_UNKNOWN:
        break;
    }
    /* Unknown, back-off over, or the previous fetcher never reported: fetch (again). */
    h->state = ROBOTS_FETCHING;
    h->until_ms = now_ms + ROBOTS_LEASE_MS;
    return ROBOTS_FETCH;
}

/* Unreachable: wait 1, 4 ... times retry_ms, then give up for the job. */
static void host_failed(struct robots_host *h, int64_t now_ms)
{
    robots_free(h->rules);
    h->rules = NULL;
    if (++h->failures >= ROBOTS_MAX_ATTEMPTS) {
        h->state = ROBOTS_GAVE_UP;
        return;
    }
    h->state = ROBOTS_BACKOFF;
    h->until_ms = now_ms + (h->retry_ms << (2 * (h->failures - 1)));
}

enum err robots_host_report(struct robots_host *h, int status, const char *body, size_t len,
                            const char *product, int64_t now_ms)
{
    struct robots *rules = NULL;
    if (status >= 200 && status < 300) {
        enum err e = robots_parse(body, len, product, &rules);
        if (e) {
            host_failed(h, now_ms);
            return e;
        }
    } else if (!(status >= 300 && status < 500 && status != 429)) {
        host_failed(h, now_ms);
        return ERR_OK;
    }
    robots_free(h->rules);
    h->rules = rules;
    h->state = ROBOTS_KNOWN;
    h->failures = 0;
    return ERR_OK;
}

int robots_host_delay_ms(const struct robots_host *h)
{
    return h->state == ROBOTS_KNOWN ? robots_crawl_delay_ms(h->rules) : 0;
}
