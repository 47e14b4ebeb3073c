/* Content negotiation and validators: Accept, entity tags, If-None-Match (httpneg.h). */
#include "server/httpneg.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/ascii.h"
#include "common/hash.h"

/* s[0..n) without the optional white space (RFC 9110 §5.6.3) around it. */
static const char *trim(const char *s, size_t *n)
{
    while (*n && (*s == ' ' || *s == '\t'))
        s++, (*n)--;
    while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t'))
        (*n)--;
    return s;
}

static int same_ci(const char *a, size_t an, const char *b, size_t bn)
{
    if (an != bn)
        return 0;
    for (size_t i = 0; i < an; i++)
        if (ascii_lower((unsigned char)a[i]) != ascii_lower((unsigned char)b[i]))
            return 0;
    return 1;
}

/* Do a media range's parameters p[0..n) (each after a ';') hold a weight of 0? */
static int weight_zero(const char *p, size_t n)
{
    while (n) {
        size_t k = 0;
        while (k < n && p[k] != ';')
            k++;
        size_t vn = k;
        const char *v = trim(p, &vn);
        if (vn >= 2 && (v[0] == 'q' || v[0] == 'Q') && v[1] == '=') {
            if (vn < 3 || v[2] != '0')
                return 0;
            for (size_t i = 3; i < vn; i++)
                if (v[i] != (i == 3 ? '.' : '0'))
                    return 0;
            return 1;
        }
        p += k < n ? k + 1 : k;
        n -= k < n ? k + 1 : k;
    }
    return 0;
}

/* How specifically range r[0..n) names type t[0..tn): 2 exactly, 1 its type, 0 any; -1 not. */
static int specificity(const char *r, size_t n, const char *t, size_t tn)
{
    if (n == 3 && memcmp(r, "*/*", 3) == 0)
        return 0;
    const char *slash = memchr(t, '/', tn);
    size_t main_len = slash ? (size_t)(slash - t) + 1 : tn; /* with the '/' */
    if (n == main_len + 1 && r[n - 1] == '*' && same_ci(r, main_len, t, main_len))
        return 1;
    return same_ci(r, n, t, tn) ? 2 : -1;
}

int httpneg_accepts(const char *accept, const char *type)
{
    size_t tn = strcspn(type, ";");
    type = trim(type, &tn);
    if (!accept || !accept[strspn(accept, " \t")])
        return 1;
    int best = -1, taken = 0;
    for (const char *p = accept; *p;) {
        size_t n = strcspn(p, ",");   /* a media range and its parameters: p[0..n) */
        size_t rn = strcspn(p, ";,"); /* the range alone */
        const char *params = p + rn;  /* ";name=value;..." up to p + n */
        size_t pn = n - rn;
        const char *r = trim(p, &rn);
        int s = rn ? specificity(r, rn, type, tn) : -1;
        if (s > best) {
            best = s;
            taken = !(pn && weight_zero(params + 1, pn - 1));
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return best >= 0 && taken;
}

void httpneg_etag(const void *body, size_t len, char out[HTTPNEG_ETAG_LEN])
{
    snprintf(out, HTTPNEG_ETAG_LEN, "\"%016" PRIx64 "-%zx\"", hash_bytes(body, len), len);
}

int httpneg_none_match(const char *if_none_match, const char *etag)
{
    size_t all = strlen(if_none_match);
    const char *v = trim(if_none_match, &all);
    if (all == 1 && *v == '*')
        return 1;
    size_t en = strlen(etag);
    for (const char *p = if_none_match; *p;) {
        size_t n = strcspn(p, ",");
        size_t tn = n;
        const char *t = trim(p, &tn);
        if (tn >= 2 && t[0] == 'W' && t[1] == '/')
            t += 2, tn -= 2;
        if (tn == en && memcmp(t, etag, en) == 0)
            return 1;
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

int httpneg_origin_ok(const char *origin)
{
    size_t n = strlen(origin);
    const char *p = origin;
    if (n > HTTPNEG_MAX_ORIGIN)
        return 0;
    if (strncmp(p, "http://", 7) == 0)
        p += 7;
    else if (strncmp(p, "https://", 8) == 0)
        p += 8;
    else
        return 0;
    size_t h = *p == '['   ? strspn(p + 1, "0123456789abcdefABCDEF:.") + 2
               : *p != '-' ? strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789.-")
                           : 0;
    if (h < 1 || (*p == '[' && (h < 4 || p[h - 1] != ']')))
        return 0;
    p += h;
    if (*p == ':') {
        size_t d = strspn(p + 1, "0123456789");
        if (d < 1 || d > 5)
            return 0;
        p += 1 + d;
    }
    return *p == '\0';
}

int httpneg_is_json(const char *ct)
{
    if (!ct)
        return 0;
    size_t n = strlen("application/json");
    return strncasecmp(ct, "application/json", n) == 0 &&
           (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}
