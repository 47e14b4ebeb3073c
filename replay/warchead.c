/* WARC record headers: find the end, parse WARC-Type, WARC-Target-URI and Content-Length. */
#include "replay/warchead.h"

#include <string.h>
#include <strings.h>

#include "replay/httpmsg.h"

#define WARCHEAD_LENGTH_MAX ((uint64_t)1 << 50) /* a Content-Length above this is refused */

size_t warchead_end(const char *data, size_t len)
{
    return httpmsg_head_end(data, len); /* WARC headers end like HTTP's: a blank line */
}

static void warchead_trim(const char **s, const char **e)
{
    while (*s < *e && (**s == ' ' || **s == '\t'))
        (*s)++;
    while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
        (*e)--;
}

static int warchead_name_is(const char *name, size_t len, const char *want)
{
    return strlen(want) == len && strncasecmp(name, want, len) == 0;
}

enum err warchead_parse(const char *data, size_t head_len, struct warchead *h)
{
    memset(h, 0, sizeof *h);
    const char *p = data, *end = data + head_len;
    const char *nl = memchr(p, '\n', head_len);
    if (!nl || head_len < 6 || memcmp(p, "WARC/", 5) != 0 || p[5] < '0' || p[5] > '9')
        return err_set(ERR_PARSE, "no WARC/ version line");
    int have_length = 0;
    for (p = nl + 1; p < end; p = nl + 1) {
        nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return err_set(ERR_PARSE, "record header does not end with an empty line");
        const char *le = nl;
        if (le > p && le[-1] == '\r')
            le--;
        if (le == p)
            break; /* the empty line */
        if (*p == ' ' || *p == '\t')
            continue; /* a folded continuation; none of our fields needs one */
        const char *colon = memchr(p, ':', (size_t)(le - p));
        if (!colon || colon == p)
            return err_set(ERR_PARSE, "bad record header line");
        for (const char *c = p; c < colon; c++)
            if ((unsigned char)*c <= ' ' || *c == 0x7f)
                return err_set(ERR_PARSE, "bad record header field name");
        const char *v = colon + 1, *ve = le;
        warchead_trim(&v, &ve);
        size_t nlen = (size_t)(colon - p);
        if (warchead_name_is(p, nlen, "WARC-Type")) {
            h->is_response = (size_t)(ve - v) == 8 && strncasecmp(v, "response", 8) == 0;
        } else if (warchead_name_is(p, nlen, "WARC-Target-URI")) {
            if (ve - v >= 2 && *v == '<' && ve[-1] == '>')
                v++, ve--;
            h->uri = v;
            h->uri_len = (size_t)(ve - v);
        } else if (warchead_name_is(p, nlen, "Content-Length")) {
            uint64_t n = 0;
            if (v == ve)
                return err_set(ERR_PARSE, "empty Content-Length");
            for (const char *c = v; c < ve; c++) {
                if (*c < '0' || *c > '9' || n > WARCHEAD_LENGTH_MAX)
                    return err_set(ERR_PARSE, "bad Content-Length");
                n = n * 10 + (uint64_t)(*c - '0');
            }
            if (n > WARCHEAD_LENGTH_MAX || (have_length && n != h->content_length))
                return err_set(ERR_PARSE, "bad Content-Length");
            h->content_length = n;
            have_length = 1;
        }
    }
    if (!have_length)
        return err_set(ERR_PARSE, "record header has no Content-Length");
    return ERR_OK;
}
