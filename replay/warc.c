/* WARC reader: scan plain or gzip WARC files once into a URL index, read blocks on demand. */
#include "replay/warc.h"

#include "replay/httpmsg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "common/grow.h"
#include "common/log.h"

#define SCAN_IN            (256 * 1024)          /* file bytes per read() while indexing */
#define SCAN_WIN           (2 * WARC_HEADER_MAX) /* uncompressed window: fits any header */
#define READER_IN          (16 * 1024)           /* compressed bytes per pread() when serving */
#define POOL_MAX           ((size_t)UINT32_MAX)  /* URLs are addressed by 32-bit pool offsets */
#define RECORDS_MAX        ((size_t)1 << 30)
#define CONTENT_LENGTH_MAX ((uint64_t)1 << 50)

struct warc_file {
    char *path;
    int fd;
    int gz;
};

/* A host of the index: a substring of some record's URL in the pool. */
struct host_slot {
    uint32_t off;
    uint32_t len; /* 0 = empty slot */
    uint32_t hash;
};

struct warc_archive {
    struct warc_file *files;
    uint32_t nfiles;
    struct warc_record *recs;
    size_t nrecs, caprecs;
    char *pool; /* NUL-terminated normalised URLs */
    size_t pool_len, pool_cap;
    uint32_t *url_slots; /* open addressing, record index + 1, 0 = empty */
    size_t url_cap;      /* a power of two */
    struct host_slot *host_slots;
    size_t host_cap, nhosts;
    size_t duplicates;
};

/* ---- hashing and the two tables ------------------------------------------------------ */

static uint32_t hash32(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* The authority of a normalised URL: between "://" and the next '/'. */
static const char *url_host(const char *url, size_t *len)
{
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    const char *end = strchr(h, '/');
    *len = end ? (size_t)(end - h) : strlen(h);
    return h;
}

/* The slot that holds url, or the empty slot where it would go. */
static size_t url_probe(const struct warc_archive *a, const char *url, size_t len, uint32_t hash)
{
    size_t mask = a->url_cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        uint32_t v = a->url_slots[i];
        if (!v)
            return i;
        const struct warc_record *r = &a->recs[v - 1];
        const char *s = a->pool + r->url;
        if (r->hash == hash && memcmp(s, url, len) == 0 && s[len] == '\0')
            return i;
    }
}

static size_t host_probe(const struct warc_archive *a, const char *host, size_t len, uint32_t hash)
{
    size_t mask = a->host_cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const struct host_slot *h = &a->host_slots[i];
        if (!h->len ||
            (h->hash == hash && h->len == len && memcmp(a->pool + h->off, host, len) == 0))
            return i;
    }
}

/* Make the URL table fit `need` entries at a load of at most 1/2, rehashing if it grows. */
static enum err url_reserve(struct warc_archive *a, size_t need)
{
    if (a->url_cap && need * 2 <= a->url_cap)
        return ERR_OK;
    size_t cap = a->url_cap ? a->url_cap : 1024;
    while (need * 2 > cap)
        cap *= 2;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return err_set(ERR_NOMEM, "out of memory for the URL index");
    free(a->url_slots);
    a->url_slots = slots;
    a->url_cap = cap;
    for (size_t i = 0; i < a->nrecs; i++) {
        const struct warc_record *r = &a->recs[i];
        const char *s = a->pool + r->url;
        a->url_slots[url_probe(a, s, strlen(s), r->hash)] = (uint32_t)(i + 1);
    }
    return ERR_OK;
}

static enum err host_insert(struct warc_archive *a, uint32_t off, uint32_t len)
{
    if (!a->host_cap || (a->nhosts + 1) * 2 > a->host_cap) {
        size_t cap = a->host_cap ? a->host_cap * 2 : 256;
        struct host_slot *old = a->host_slots, *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return err_set(ERR_NOMEM, "out of memory for the host index");
        size_t oldcap = a->host_cap;
        a->host_slots = slots;
        a->host_cap = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].len)
                a->host_slots[host_probe(a, a->pool + old[i].off, old[i].len, old[i].hash)] =
                    old[i];
        free(old);
    }
    uint32_t hash = hash32(a->pool + off, len);
    size_t i = host_probe(a, a->pool + off, len, hash);
    if (!a->host_slots[i].len) {
        a->host_slots[i] = (struct host_slot){off, len, hash};
        a->nhosts++;
    }
    return ERR_OK;
}

/* Rebuild both tables from the records, after the records of a failed file were dropped. */
static void tables_rebuild(struct warc_archive *a)
{
    if (a->url_cap)
        memset(a->url_slots, 0, a->url_cap * sizeof *a->url_slots);
    for (size_t i = 0; i < a->nrecs; i++) {
        const struct warc_record *r = &a->recs[i];
        const char *s = a->pool + r->url;
        a->url_slots[url_probe(a, s, strlen(s), r->hash)] = (uint32_t)(i + 1);
    }
    if (a->host_cap)
        memset(a->host_slots, 0, a->host_cap * sizeof *a->host_slots);
    a->nhosts = 0;
    for (size_t i = 0; i < a->nrecs; i++) {
        size_t len;
        const char *h = url_host(a->pool + a->recs[i].url, &len);
        /* Cannot fail: the table already held at least these hosts. */
        (void)!host_insert(a, (uint32_t)(h - a->pool), (uint32_t)len);
    }
}

/* ---- public index API ------------------------------------------------------------------ */

struct warc_archive *warc_archive_new(void)
{
    return calloc(1, sizeof(struct warc_archive));
}

void warc_archive_free(struct warc_archive *a)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->nfiles; i++) {
        if (a->files[i].fd >= 0)
            close(a->files[i].fd);
        free(a->files[i].path);
    }
    free(a->files);
    free(a->recs);
    free(a->pool);
    free(a->url_slots);
    free(a->host_slots);
    free(a);
}

size_t warc_archive_count(const struct warc_archive *a)
{
    return a->nrecs;
}

size_t warc_archive_hosts(const struct warc_archive *a)
{
    return a->nhosts;
}

size_t warc_archive_duplicates(const struct warc_archive *a)
{
    return a->duplicates;
}

const struct warc_record *warc_archive_find(const struct warc_archive *a, const char *url,
                                            size_t len)
{
    if (!a->nrecs)
        return NULL;
    uint32_t v = a->url_slots[url_probe(a, url, len, hash32(url, len))];
    return v ? &a->recs[v - 1] : NULL;
}

const struct warc_record *warc_archive_record(const struct warc_archive *a, size_t i)
{
    return i < a->nrecs ? &a->recs[i] : NULL;
}

const char *warc_record_url(const struct warc_archive *a, const struct warc_record *r)
{
    return a->pool + r->url;
}

int warc_archive_has_host(const struct warc_archive *a, const char *host, size_t len)
{
    if (!a->nhosts || !len)
        return 0;
    return a->host_slots[host_probe(a, host, len, hash32(host, len))].len != 0;
}

const char *warc_archive_path(const struct warc_archive *a, uint32_t file)
{
    return file < a->nfiles ? a->files[file].path : "?";
}

/* ---- URL normalisation --------------------------------------------------------------- */

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

enum err warc_url_normalize(const char *url, size_t len, char *out, size_t outsz, size_t *outlen,
                            size_t *host_off, size_t *host_len)
{
    while (len && is_ws(url[0]))
        url++, len--;
    while (len && is_ws(url[len - 1]))
        len--;
    const char *scheme;
    unsigned long defport;
    size_t i;
    if (len >= 7 && strncasecmp(url, "http://", 7) == 0) {
        scheme = "http://";
        defport = 80;
        i = 7;
    } else if (len >= 8 && strncasecmp(url, "https://", 8) == 0) {
        scheme = "https://";
        defport = 443;
        i = 8;
    } else {
        return err_set(ERR_INVAL, "not an absolute http(s) URL");
    }

    size_t a0 = i;
    while (i < len && url[i] != '/' && url[i] != '?' && url[i] != '#')
        i++;
    size_t a1 = i; /* authority is url[a0, a1) */
    for (size_t k = a1; k > a0; k--) {
        if (url[k - 1] == '@') { /* userinfo is never part of what an archive keys on */
            a0 = k;
            break;
        }
    }
    size_t h1 = a1, p0 = a1; /* host is url[a0, h1), port digits url[p0, a1) */
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
    unsigned long port = defport;
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
    size_t path0 = a1, path1 = a1;
    while (path1 < len && url[path1] != '#') {
        /* No request line can carry these, and the index keeps URLs as C strings. */
        if ((unsigned char)url[path1] <= ' ' || url[path1] == 0x7f)
            return err_set(ERR_INVAL, "control character or space in URL");
        path1++;
    }

    char portbuf[8] = "";
    if (port != defport)
        snprintf(portbuf, sizeof portbuf, ":%lu", port);
    int slash = path0 == path1 || url[path0] != '/';
    size_t slen = strlen(scheme), hlen = h1 - a0, plen = strlen(portbuf);
    size_t need = slen + hlen + plen + (size_t)slash + (path1 - path0);
    if (need + 1 > outsz)
        return err_set(ERR_TOOBIG, "URL longer than %zu bytes", outsz - 1);
    char *o = out;
    memcpy(o, scheme, slen);
    o += slen;
    for (size_t k = a0; k < h1; k++) {
        char c = url[k];
        *o++ = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    memcpy(o, portbuf, plen);
    o += plen;
    if (slash)
        *o++ = '/';
    memcpy(o, url + path0, path1 - path0);
    /* Percent escapes compare in upper case (RFC 3986 §6.2.2.1): %2f is %2F. */
    for (size_t k = 0; k + 2 < path1 - path0; k++) {
        if (o[k] == '%' && isxdigit((unsigned char)o[k + 1]) && isxdigit((unsigned char)o[k + 2])) {
            o[k + 1] = (char)toupper((unsigned char)o[k + 1]);
            o[k + 2] = (char)toupper((unsigned char)o[k + 2]);
        }
    }
    o += path1 - path0;
    *o = '\0';
    *outlen = need;
    if (host_off)
        *host_off = slen;
    if (host_len)
        *host_len = hlen + plen;
    return ERR_OK;
}

/* ---- WARC record headers ---------------------------------------------------------------- */

size_t warc_header_end(const char *data, size_t len)
{
    return httpmsg_head_end(data, len); /* WARC headers end like HTTP's: a blank line */
}

static void trim(const char **s, const char **e)
{
    while (*s < *e && (**s == ' ' || **s == '\t'))
        (*s)++;
    while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
        (*e)--;
}

static int name_is(const char *name, size_t len, const char *want)
{
    return strlen(want) == len && strncasecmp(name, want, len) == 0;
}

enum err warc_header_parse(const char *data, size_t head_len, struct warc_header *h)
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
        trim(&v, &ve);
        size_t nlen = (size_t)(colon - p);
        if (name_is(p, nlen, "WARC-Type")) {
            h->is_response = (size_t)(ve - v) == 8 && strncasecmp(v, "response", 8) == 0;
        } else if (name_is(p, nlen, "WARC-Target-URI")) {
            if (ve - v >= 2 && *v == '<' && ve[-1] == '>')
                v++, ve--;
            h->uri = v;
            h->uri_len = (size_t)(ve - v);
        } else if (name_is(p, nlen, "Content-Length")) {
            uint64_t n = 0;
            if (v == ve)
                return err_set(ERR_PARSE, "empty Content-Length");
            for (const char *c = v; c < ve; c++) {
                if (*c < '0' || *c > '9' || n > CONTENT_LENGTH_MAX)
                    return err_set(ERR_PARSE, "bad Content-Length");
                n = n * 10 + (uint64_t)(*c - '0');
            }
            if (n > CONTENT_LENGTH_MAX || (have_length && n != h->content_length))
                return err_set(ERR_PARSE, "bad Content-Length");
            h->content_length = n;
            have_length = 1;
        }
    }
    if (!have_length)
        return err_set(ERR_PARSE, "record header has no Content-Length");
    return ERR_OK;
}

/* ---- indexing a file -------------------------------------------------------------------- */

/* A gzip member: where it starts (compressed, uncompressed) and, once seen, where it ends. */
struct member {
    uint64_t coff;
    uint64_t ustart;
    uint64_t cend; /* 0 until the member's end is seen */
    uint64_t uend;
};

/* The state of one sequential pass over a file: an uncompressed byte window. */
struct scan {
    struct warc_archive *a;
    const char *path;
    uint32_t file;
    int fd, gz;
    z_stream z;
    int z_live;    /* inflateInit2 done */
    int in_member; /* inside a gzip member whose end is not seen yet */
    unsigned char *in;
    uint64_t in_off; /* file offset of the byte after those read so far */
    int in_eof;
    unsigned char *win;
    size_t win_len, win_pos;
    uint64_t win_upos; /* uncompressed stream offset of win[0] */
    int eof;           /* no more uncompressed bytes */
    struct member *members;
    size_t nmembers, capmembers;
    size_t pending; /* first record whose clen still holds its block end */
};

static uint64_t scan_coff(const struct scan *s)
{
    return s->in_off - s->z.avail_in;
}

/* The member that holds uncompressed offset upos (the last one starting at or before it). */
static const struct member *member_for(const struct scan *s, uint64_t upos)
{
    for (size_t i = s->nmembers; i > 0; i--)
        if (s->members[i - 1].ustart <= upos)
            return &s->members[i - 1];
    return s->nmembers ? &s->members[0] : NULL;
}

/* Forget members before the one holding upos: no later record can start in them. */
static void members_trim(struct scan *s, uint64_t upos)
{
    const struct member *m = member_for(s, upos);
    size_t k = m ? (size_t)(m - s->members) : 0;
    if (k) {
        memmove(s->members, s->members + k, (s->nmembers - k) * sizeof *s->members);
        s->nmembers -= k;
    }
}

static enum err member_push(struct scan *s, uint64_t coff, uint64_t ustart)
{
    enum err e = grow_array((void **)&s->members, &s->capmembers, s->nmembers + 1,
                            sizeof *s->members);
    if (e)
        return e;
    s->members[s->nmembers++] = (struct member){coff, ustart, 0, 0};
    return ERR_OK;
}

/* A member ended at compressed offset cend: records whose block ends by uend now know clen. */
static void member_ended(struct scan *s, uint64_t cend, uint64_t uend)
{
    struct warc_archive *a = s->a;
    s->members[s->nmembers - 1].cend = cend;
    s->members[s->nmembers - 1].uend = uend;
    while (s->pending < a->nrecs && a->recs[s->pending].clen <= uend) {
        struct warc_record *r = &a->recs[s->pending++];
        r->clen = cend - r->offset;
    }
}

static enum err scan_read(struct scan *s, void *dst, size_t cap, size_t *got)
{
    ssize_t n;
    do
        n = read(s->fd, dst, cap);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return err_set(ERR_IO, "%s: read failed at offset %" PRIu64 ": %s", s->path, s->in_off,
                       strerror(errno));
    s->in_off += (uint64_t)n;
    *got = (size_t)n;
    return ERR_OK;
}

/* Inflate more bytes into win[win_len, SCAN_WIN); sets s->eof when the input is done. */
static enum err scan_inflate(struct scan *s)
{
    size_t space = SCAN_WIN - s->win_len;
    for (;;) {
        if (s->z.avail_in == 0 && !s->in_eof) {
            size_t n = 0;
            enum err e = scan_read(s, s->in, SCAN_IN, &n);
            if (e)
                return e;
            s->z.next_in = s->in;
            s->z.avail_in = (uInt)n;
            s->in_eof = n == 0;
        }
        if (!s->in_member) {
            if (s->z.avail_in == 0) {
                s->eof = 1;
                return ERR_OK;
            }
            if (inflateReset(&s->z) != Z_OK)
                return err_set(ERR_PARSE, "%s: zlib reset failed", s->path);
            enum err e = member_push(s, scan_coff(s), s->win_upos + s->win_len);
            if (e)
                return e;
            s->in_member = 1;
        }
        if (s->z.avail_in == 0) { /* the file ends inside a member */
            s->eof = 1;
            return ERR_OK;
        }
        s->z.next_out = s->win + s->win_len;
        s->z.avail_out = (uInt)space;
        int ret = inflate(&s->z, Z_NO_FLUSH);
        size_t made = space - s->z.avail_out;
        s->win_len += made;
        if (ret == Z_STREAM_END) {
            s->in_member = 0;
            member_ended(s, scan_coff(s), s->win_upos + s->win_len);
        } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
            const struct member *m = &s->members[s->nmembers - 1];
            return err_set(ERR_PARSE, "%s: offset %" PRIu64 " (gzip member): corrupt gzip data: %s",
                           s->path, m->coff, s->z.msg ? s->z.msg : "inflate failed");
        }
        if (made)
            return ERR_OK;
    }
}

/* Append more uncompressed bytes to the window (compacting it first). */
static enum err scan_fill(struct scan *s)
{
    if (s->win_pos) {
        memmove(s->win, s->win + s->win_pos, s->win_len - s->win_pos);
        s->win_upos += s->win_pos;
        s->win_len -= s->win_pos;
        s->win_pos = 0;
    }
    if (s->win_len == SCAN_WIN || s->eof)
        return ERR_OK;
    if (s->gz)
        return scan_inflate(s);
    size_t n = 0;
    enum err e = scan_read(s, s->win + s->win_len, SCAN_WIN - s->win_len, &n);
    if (e)
        return e;
    s->win_len += n;
    s->eof = n == 0;
    return ERR_OK;
}

static size_t scan_avail(const struct scan *s)
{
    return s->win_len - s->win_pos;
}

/* Append a response record to the index, unless its URL is not http(s) or already there. */
static enum err index_record(struct scan *s, const struct warc_header *h, uint64_t block_upos)
{
    struct warc_archive *a = s->a;
    char url[WARC_URL_MAX];
    size_t len, hoff, hlen;
    if (warc_url_normalize(h->uri, h->uri_len, url, sizeof url, &len, &hoff, &hlen) != ERR_OK) {
        log_debug("%s: skipping record for '%.*s': %s", s->path,
                  (int)(h->uri_len > 200 ? 200 : h->uri_len), h->uri, err_msg());
        return ERR_OK;
    }
    enum err e = url_reserve(a, a->nrecs + 1);
    if (e)
        return e;
    uint32_t hash = hash32(url, len);
    size_t slot = url_probe(a, url, len, hash);
    if (a->url_slots[slot]) {
        a->duplicates++;
        return ERR_OK;
    }
    if (a->nrecs == RECORDS_MAX || len + 1 > POOL_MAX - a->pool_len)
        return err_set(ERR_TOOBIG, "%s: too many records for one archive", s->path);
    if (a->nrecs == a->caprecs) {
        size_t cap = a->caprecs ? a->caprecs * 2 : 4096;
        struct warc_record *r = realloc(a->recs, cap * sizeof *r);
        if (!r)
            return err_set(ERR_NOMEM, "out of memory for the record index");
        a->recs = r;
        a->caprecs = cap;
    }
    if (a->pool_len + len + 1 > a->pool_cap) {
        size_t cap = a->pool_cap ? a->pool_cap : 65536;
        while (cap < a->pool_len + len + 1)
            cap *= 2;
        char *p = realloc(a->pool, cap);
        if (!p)
            return err_set(ERR_NOMEM, "out of memory for the URL pool");
        a->pool = p;
        a->pool_cap = cap;
    }
    uint32_t off = (uint32_t)a->pool_len;
    memcpy(a->pool + off, url, len + 1);
    a->pool_len += len + 1;

    struct warc_record *r = &a->recs[a->nrecs];
    r->file = s->file;
    r->url = off;
    r->hash = hash;
    r->length = h->content_length;
    if (s->gz) {
        const struct member *m = member_for(s, block_upos);
        uint64_t block_end = block_upos + h->content_length;
        const struct member *last = member_for(s, block_end - 1);
        r->offset = m->coff;
        r->skip = block_upos - m->ustart;
        if (last->cend && block_end <= last->uend && s->pending == a->nrecs) {
            /* The whole member was inflated before its header was parsed. */
            r->clen = last->cend - r->offset;
            s->pending++;
        } else {
            r->clen = block_end; /* until the member holding the end is seen to end */
        }
    } else {
        r->offset = block_upos;
        r->skip = 0;
        r->clen = h->content_length;
    }
    a->url_slots[slot] = (uint32_t)(a->nrecs + 1);
    a->nrecs++;
    return host_insert(a, off + (uint32_t)hoff, (uint32_t)hlen);
}

/* Undo the last index_record (its block turned out to be truncated). */
static void unindex_last(struct scan *s, size_t nrecs_before, size_t pool_before)
{
    struct warc_archive *a = s->a;
    if (a->nrecs == nrecs_before)
        return;
    a->nrecs = nrecs_before;
    a->pool_len = pool_before;
    if (s->pending > a->nrecs)
        s->pending = a->nrecs;
    tables_rebuild(a);
}

static enum err scan_file(struct scan *s)
{
    enum err e = ERR_OK;
    for (;;) {
        /* Records end with CRLF CRLF; tolerate any run of line ends between records. */
        for (;;) {
            while (s->win_pos < s->win_len &&
                   (s->win[s->win_pos] == '\r' || s->win[s->win_pos] == '\n'))
                s->win_pos++;
            if (scan_avail(s) || s->eof)
                break;
            if ((e = scan_fill(s)))
                return e;
        }
        if (!scan_avail(s))
            break;

        uint64_t rec_upos = s->win_upos + s->win_pos;
        if (s->gz)
            members_trim(s, rec_upos);
        uint64_t rec_off = rec_upos;
        char where[64] = "";
        if (s->gz) {
            const struct member *m = member_for(s, rec_upos);
            rec_off = m->coff;
            if (rec_upos > m->ustart)
                snprintf(where, sizeof where, " (gzip member, uncompressed byte %" PRIu64 ")",
                         rec_upos - m->ustart);
            else
                snprintf(where, sizeof where, " (gzip member)");
        }

        size_t hl;
        for (;;) {
            const char *w = (const char *)s->win + s->win_pos;
            size_t avail = scan_avail(s), cmp = avail < 5 ? avail : 5;
            if (memcmp(w, "WARC/", cmp) != 0)
                return err_set(ERR_PARSE, "%s: offset %" PRIu64 "%s: not a WARC record", s->path,
                               rec_off, where);
            if ((hl = warc_header_end(w, avail)) != 0)
                break;
            if (avail >= WARC_HEADER_MAX)
                return err_set(ERR_PARSE,
                               "%s: offset %" PRIu64 "%s: record header longer than %d bytes",
                               s->path, rec_off, where, WARC_HEADER_MAX);
            if (s->eof) {
                log_warn("%s: offset %" PRIu64
                         "%s: truncated record at the end of the file skipped",
                         s->path, rec_off, where);
                return ERR_OK;
            }
            if ((e = scan_fill(s)))
                return e;
        }
        struct warc_header h;
        if (warc_header_parse((const char *)s->win + s->win_pos, hl, &h) != ERR_OK) {
            char why[256]; /* err_set must not format its own message buffer */
            snprintf(why, sizeof why, "%s", err_msg());
            return err_set(ERR_PARSE, "%s: offset %" PRIu64 "%s: %s", s->path, rec_off, where, why);
        }
        s->win_pos += hl;
        uint64_t block_upos = rec_upos + hl;
        size_t nrecs_before = s->a->nrecs, pool_before = s->a->pool_len;
        if (h.is_response && h.uri && h.content_length > 0 && (e = index_record(s, &h, block_upos)))
            return e;

        uint64_t left = h.content_length;
        while (left) {
            if (!scan_avail(s)) {
                if (s->eof) {
                    unindex_last(s, nrecs_before, pool_before);
                    log_warn("%s: offset %" PRIu64 "%s: truncated record at the end of the file "
                             "skipped",
                             s->path, rec_off, where);
                    return ERR_OK;
                }
                if ((e = scan_fill(s)))
                    return e;
                continue;
            }
            size_t take = scan_avail(s);
            if (take > left)
                take = (size_t)left;
            s->win_pos += take;
            left -= take;
        }
    }
    if (s->gz && s->in_member)
        log_warn("%s: offset %" PRIu64 " (gzip member): the file ends inside this member", s->path,
                 s->members[s->nmembers - 1].coff);
    return ERR_OK;
}

enum err warc_archive_add(struct warc_archive *a, const char *path)
{
    struct scan s = {.a = a, .path = path, .fd = -1};
    size_t nrecs_before = a->nrecs, pool_before = a->pool_len, dup_before = a->duplicates;
    enum err e = ERR_OK;

    if (a->nfiles == UINT32_MAX)
        return err_set(ERR_TOOBIG, "too many files");
    struct warc_file *files = realloc(a->files, (a->nfiles + 1) * sizeof *files);
    if (!files)
        return err_set(ERR_NOMEM, "out of memory");
    a->files = files;
    s.file = a->nfiles;
    s.pending = a->nrecs;

    s.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s.fd < 0) {
        e = err_set(ERR_IO, "%s: %s", path, strerror(errno));
        goto out;
    }
    (void)posix_fadvise(s.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    s.in = malloc(SCAN_IN);
    s.win = malloc(SCAN_WIN);
    if (!s.in || !s.win) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    /* Sniff the gzip magic; the bytes read go to whichever buffer the format uses. */
    size_t n = 0;
    if ((e = scan_read(&s, s.in, SCAN_WIN, &n))) /* SCAN_WIN <= SCAN_IN: fits both */
        goto out;
    s.gz = n >= 2 && s.in[0] == 0x1f && s.in[1] == 0x8b;
    if (s.gz) {
        if (inflateInit2(&s.z, 15 + 32) != Z_OK) { /* +32: gzip header, auto-detected */
            e = err_set(ERR_NOMEM, "zlib initialisation failed");
            goto out;
        }
        s.z_live = 1;
        s.z.next_in = s.in;
        s.z.avail_in = (uInt)n;
        s.in_eof = n == 0;
    } else {
        memcpy(s.win, s.in, n);
        s.win_len = n;
        s.eof = n == 0;
    }
    if ((e = scan_file(&s)))
        goto out;
    /* Records of a member cut off by the end of the file have no known compressed end. */
    for (; s.gz && s.pending < a->nrecs; s.pending++)
        a->recs[s.pending].clen = 0;

out:
    if (s.z_live)
        inflateEnd(&s.z);
    free(s.in);
    free(s.win);
    free(s.members);
    if (e) {
        if (s.fd >= 0)
            close(s.fd);
        a->nrecs = nrecs_before;
        a->pool_len = pool_before;
        a->duplicates = dup_before;
        tables_rebuild(a);
        return e;
    }
    char *copy = strdup(path);
    if (!copy) {
        close(s.fd);
        a->nrecs = nrecs_before;
        a->pool_len = pool_before;
        tables_rebuild(a);
        return err_set(ERR_NOMEM, "out of memory");
    }
    a->files[a->nfiles++] = (struct warc_file){copy, s.fd, s.gz};
    return ERR_OK;
}

/* ---- reading a block ----------------------------------------------------------------------- */

struct warc_reader {
    const struct warc_archive *a;
    const struct warc_file *f;
    z_stream z;
    int z_live;
    int member_done; /* the last inflate call reached the end of a member */
    uint64_t coff;   /* next file offset to read */
    uint64_t cend;   /* where the record's compressed bytes end; 0 = unknown */
    uint64_t skip;   /* uncompressed bytes still to drop before the block */
    uint64_t left;   /* block bytes still to hand out */
    unsigned char in[READER_IN];
};

struct warc_reader *warc_reader_new(void)
{
    return calloc(1, sizeof(struct warc_reader));
}

void warc_reader_free(struct warc_reader *r)
{
    if (!r)
        return;
    if (r->z_live)
        inflateEnd(&r->z);
    free(r);
}

enum err warc_reader_start(struct warc_reader *r, const struct warc_archive *a,
                           const struct warc_record *rec)
{
    if (rec->file >= a->nfiles)
        return err_set(ERR_INVAL, "record of an unknown file");
    r->a = a;
    r->f = &a->files[rec->file];
    r->coff = rec->offset;
    r->cend = rec->clen ? rec->offset + rec->clen : 0;
    r->skip = rec->skip;
    r->left = rec->length;
    r->member_done = 0;
    if (!r->f->gz)
        return ERR_OK;
    if (!r->z_live) {
        memset(&r->z, 0, sizeof r->z);
        if (inflateInit2(&r->z, 15 + 32) != Z_OK)
            return err_set(ERR_NOMEM, "zlib initialisation failed");
        r->z_live = 1;
    } else if (inflateReset(&r->z) != Z_OK) {
        return err_set(ERR_PARSE, "zlib reset failed");
    }
    r->z.avail_in = 0;
    return ERR_OK;
}

static enum err reader_pread(struct warc_reader *r, void *buf, size_t want, size_t *got)
{
    ssize_t n;
    do
        n = pread(r->f->fd, buf, want, (off_t)r->coff);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return err_set(ERR_IO, "%s: read failed at offset %" PRIu64 ": %s", r->f->path, r->coff,
                       strerror(errno));
    if (n == 0)
        return err_set(ERR_IO, "%s: unexpected end of file at offset %" PRIu64, r->f->path,
                       r->coff);
    r->coff += (uint64_t)n;
    *got = (size_t)n;
    return ERR_OK;
}

enum err warc_reader_read(struct warc_reader *r, void *buf, size_t cap, size_t *got)
{
    *got = 0;
    if (!r->left || !cap)
        return ERR_OK;
    if (!r->f->gz) {
        size_t want = r->left < cap ? (size_t)r->left : cap;
        enum err e = reader_pread(r, buf, want, got);
        if (!e)
            r->left -= *got;
        return e;
    }
    while (r->left) {
        if (r->z.avail_in == 0) {
            size_t want = sizeof r->in, n;
            if (r->cend > r->coff && r->cend - r->coff < want)
                want = (size_t)(r->cend - r->coff);
            enum err e = reader_pread(r, r->in, want, &n);
            if (e)
                return e;
            r->z.next_in = r->in;
            r->z.avail_in = (uInt)n;
        }
        if (r->member_done) {
            if (inflateReset(&r->z) != Z_OK)
                return err_set(ERR_PARSE, "zlib reset failed");
            r->member_done = 0;
        }
        /* While skipping, the caller's buffer is scratch space. */
        uint64_t lim = r->skip ? r->skip : r->left;
        size_t room = lim < cap ? (size_t)lim : cap;
        r->z.next_out = buf;
        r->z.avail_out = (uInt)room;
        int ret = inflate(&r->z, Z_NO_FLUSH);
        size_t made = room - r->z.avail_out;
        if (ret == Z_STREAM_END)
            r->member_done = 1;
        else if (ret != Z_OK && ret != Z_BUF_ERROR)
            return err_set(ERR_PARSE, "%s: corrupt gzip data near offset %" PRIu64 ": %s",
                           r->f->path, r->coff, r->z.msg ? r->z.msg : "inflate failed");
        if (r->skip) {
            r->skip -= made;
            continue;
        }
        if (made) {
            r->left -= made;
            *got = made;
            return ERR_OK;
        }
    }
    return ERR_OK;
}
