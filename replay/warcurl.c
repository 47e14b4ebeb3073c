/* URL normalisation for archive keys: scheme and host case, default ports, percent escapes. */
#include "replay/warcurl.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int warcurl_is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Where the pieces of a URL lie: authority url[a0, a1), host [a0, h1),
 * path and query [a1, path1). */
struct warcurl_span {
    const char *scheme;
    unsigned long defport, port;
    size_t a0, h1, a1, path1;
};

/* Locate host and port in the authority url[sp->a0, sp->a1) and check them. */
static enum err warcurl_authority(const char *url, struct warcurl_span *sp)
{
    size_t a0 = sp->a0, a1 = sp->a1;
    for (size_t k = a1; k > a0; k--) {
        if (url[k - 1] == '@') { /* userinfo is never part of what an archive keys on */
            a0 = k;
            break;
        }
    }
    size_t h1 = a1, p0 = a1;
    if (a0 < a1 && url[a0] == '[') {
        const char *rb = memchr(url + a0, ']', a1 - a0);
        if (!rb)
            return err_set(ERR_INVAL, "unterminated IPv6 address in URL");
        h1 = (size_t)(rb - url) + 1;
        if (h1 < a1) {
            if (url[h1] != ':')
                return err_set(ERR_INVAL, "junk after IPv6 address in URL");
            p0 = h1 + 1;
        }
    } else {
        const char *colon = memchr(url + a0, ':', a1 - a0);
        if (colon) {
            h1 = (size_t)(colon - url);
            p0 = h1 + 1;
        }
    }
    if (h1 == a0)
        return err_set(ERR_INVAL, "URL has no host");
    for (size_t k = a0; k < h1; k++)
        if ((unsigned char)url[k] <= ' ' || url[k] == 0x7f)
            return err_set(ERR_INVAL, "bad character in URL host");
    unsigned long port = sp->defport;
    if (p0 < a1) {
        port = 0;
        for (size_t k = p0; k < a1; k++) {
            if (url[k] < '0' || url[k] > '9' || port > 65535)
                return err_set(ERR_INVAL, "bad port in URL");
            port = port * 10 + (unsigned long)(url[k] - '0');
        }
        if (port > 65535)
            return err_set(ERR_INVAL, "bad port in URL");
    }
    sp->a0 = a0;
    sp->h1 = h1;
    sp->port = port;
    return ERR_OK;
}

/* Split url[len] (already trimmed) into sp, refusing what cannot be an archive key. */
static enum err warcurl_split(const char *url, size_t len, struct warcurl_span *sp)
{
    size_t i;
    if (len >= 7 && strncasecmp(url, "http://", 7) == 0) {
        sp->scheme = "http://";
        sp->defport = 80;
        i = 7;
    } else if (len >= 8 && strncasecmp(url, "https://", 8) == 0) {
        sp->scheme = "https://";
        sp->defport = 443;
        i = 8;
    } else {
        return err_set(ERR_INVAL, "not an absolute http(s) URL");
    }
    sp->a0 = i;
    while (i < len && url[i] != '/' && url[i] != '?' && url[i] != '#')
        i++;
    sp->a1 = i;
    enum err e = warcurl_authority(url, sp);
    if (e)
        return e;
    size_t path1 = sp->a1;
    while (path1 < len && url[path1] != '#') {
        /* No request line can carry these, and the index keeps URLs as C strings. */
        if ((unsigned char)url[path1] <= ' ' || url[path1] == 0x7f)
            return err_set(ERR_INVAL, "control character or space in URL");
        path1++;
    }
    sp->path1 = path1;
    return ERR_OK;
}

enum err warcurl_normalize(const char *url, size_t len, char *out, size_t outsz, size_t *outlen,
                           size_t *host_off, size_t *host_len)
{
    while (len && warcurl_is_ws(url[0]))
        url++, len--;
    while (len && warcurl_is_ws(url[len - 1]))
        len--;
    struct warcurl_span sp = {0};
    enum err e = warcurl_split(url, len, &sp);
    if (e)
        return e;

    char portbuf[8] = "";
    if (sp.port != sp.defport)
        snprintf(portbuf, sizeof portbuf, ":%lu", sp.port);
    size_t path0 = sp.a1, plen_path = sp.path1 - path0;
    int slash = plen_path == 0 || url[path0] != '/';
    size_t slen = strlen(sp.scheme), hlen = sp.h1 - sp.a0, plen = strlen(portbuf);
    size_t need = slen + hlen + plen + (size_t)slash + plen_path;
    if (need + 1 > outsz)
        return err_set(ERR_TOOBIG, "URL longer than %zu bytes", outsz - 1);
    char *o = out;
    memcpy(o, sp.scheme, slen);
    o += slen;
    for (size_t k = sp.a0; k < sp.h1; k++) {
        char c = url[k];
        *o++ = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    memcpy(o, portbuf, plen);
    o += plen;
    if (slash)
        *o++ = '/';
    memcpy(o, url + path0, plen_path);
    /* Percent escapes compare in upper case (RFC 3986 §6.2.2.1): %2f is %2F. */
    for (size_t k = 0; k + 2 < plen_path; k++) {
        if (o[k] == '%' && isxdigit((unsigned char)o[k + 1]) && isxdigit((unsigned char)o[k + 2])) {
            o[k + 1] = (char)toupper((unsigned char)o[k + 1]);
            o[k + 2] = (char)toupper((unsigned char)o[k + 2]);
        }
    }
    o += plen_path;
    *o = '\0';
    *outlen = need;
    if (host_off)
        *host_off = slen;
    if (host_len)
        *host_len = hlen + plen;
    return ERR_OK;
}

/* The authority of a normalised URL: between "://" and the next '/'. */
const char *warcurl_host(const char *url, size_t *len)
{
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    const char *end = strchr(h, '/');
    *len = end ? (size_t)(end - h) : strlen(h);
    return h;
}
