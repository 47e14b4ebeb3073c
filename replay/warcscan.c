/* Indexing one WARC file: an uncompressed window over the file, gzip member tracking, records. */
#include "replay/warcscan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/log.h"
#include "replay/gzstream.h"
#include "replay/warchead.h"
#include "replay/warcurl.h"

#define WARCSCAN_IN  (256 * 1024)       /* file bytes per read() while indexing */
#define WARCSCAN_WIN (2 * WARCHEAD_MAX) /* uncompressed window: fits any header */

/* A gzip member: where it starts (compressed, uncompressed) and, once seen, where it ends. */
struct warcscan_member {
    uint64_t coff;
    uint64_t ustart;
    uint64_t cend; /* 0 until the member's end is seen */
    uint64_t uend;
};

/* The state of one sequential pass over a file: an uncompressed byte window. */
struct warcscan {
    struct warcindex *idx;
    const char *path;
    uint32_t file;
    int fd, gz;
    struct gzstream z;
    int in_member; /* inside a gzip member whose end is not seen yet */
    unsigned char *in;
    uint64_t in_off; /* file offset of the byte after those read so far */
    int in_eof;
    unsigned char *win;
    size_t win_len, win_pos;
    uint64_t win_upos; /* uncompressed stream offset of win[0] */
    int eof;           /* no more uncompressed bytes */
    struct warcscan_member *members;
    size_t nmembers, capmembers;
    size_t pending; /* first record whose clen still holds its block end */
    /* the record being read, for messages */
    uint64_t rec_off;
    char where[64];
};

static uint64_t warcscan_coff(const struct warcscan *s)
{
    return s->in_off - gzstream_pending(&s->z);
}

/* The member that holds uncompressed offset upos (the last one starting at or before it). */
static const struct warcscan_member *warcscan_member_for(const struct warcscan *s, uint64_t upos)
{
    for (size_t i = s->nmembers; i > 0; i--)
        if (s->members[i - 1].ustart <= upos)
            return &s->members[i - 1];
    return s->nmembers ? &s->members[0] : NULL;
}

/* Forget members before the one holding upos: no later record can start in them. */
static void warcscan_members_trim(struct warcscan *s, uint64_t upos)
{
    const struct warcscan_member *m = warcscan_member_for(s, upos);
    size_t k = m ? (size_t)(m - s->members) : 0;
    if (k) {
        memmove(s->members, s->members + k, (s->nmembers - k) * sizeof *s->members);
        s->nmembers -= k;
    }
}

static enum err warcscan_member_push(struct warcscan *s, uint64_t coff, uint64_t ustart)
{
    enum err e =
        grow_array((void **)&s->members, &s->capmembers, s->nmembers + 1, sizeof *s->members);
    if (e)
        return e;
    s->members[s->nmembers++] = (struct warcscan_member){coff, ustart, 0, 0};
    return ERR_OK;
}

/* A member ended at compressed offset cend: records whose block ends by uend now know clen. */
static void warcscan_member_ended(struct warcscan *s, uint64_t cend, uint64_t uend)
{
    s->members[s->nmembers - 1].cend = cend;
    s->members[s->nmembers - 1].uend = uend;
    while (s->pending < s->idx->nrecs && warcindex_at(s->idx, s->pending)->clen <= uend) {
        struct warc_record *r = warcindex_at(s->idx, s->pending++);
        r->clen = cend - r->offset;
    }
}

static enum err warcscan_read(struct warcscan *s, void *dst, size_t cap, size_t *got)
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

/* Start the next member if the last one ended; sets s->eof when the file ends first. */
static enum err warcscan_member_start(struct warcscan *s)
{
    if (s->in_member)
        return ERR_OK;
    if (gzstream_pending(&s->z) == 0) {
        s->eof = 1;
        return ERR_OK;
    }
    if (gzstream_start(&s->z) != ERR_OK)
        return err_set(ERR_PARSE, "%s: zlib reset failed", s->path);
    enum err e = warcscan_member_push(s, warcscan_coff(s), s->win_upos + s->win_len);
    if (e)
        return e;
    s->in_member = 1;
    return ERR_OK;
}

/* Inflate more bytes into win[win_len, WARCSCAN_WIN); sets s->eof when the input is done. */
static enum err warcscan_inflate(struct warcscan *s)
{
    size_t space = WARCSCAN_WIN - s->win_len;
    for (;;) {
        if (gzstream_pending(&s->z) == 0 && !s->in_eof) {
            size_t n = 0;
            enum err e = warcscan_read(s, s->in, WARCSCAN_IN, &n);
            if (e)
                return e;
            gzstream_feed(&s->z, s->in, n);
            s->in_eof = n == 0;
        }
        enum err e = warcscan_member_start(s);
        if (e || s->eof)
            return e;
        if (gzstream_pending(&s->z) == 0) { /* the file ends inside a member */
            s->eof = 1;
            return ERR_OK;
        }
        size_t made;
        enum gzstream_status st = gzstream_inflate(&s->z, s->win + s->win_len, space, &made);
        s->win_len += made;
        if (st == GZSTREAM_MEMBER_END) {
            s->in_member = 0;
            warcscan_member_ended(s, warcscan_coff(s), s->win_upos + s->win_len);
        } else if (st == GZSTREAM_CORRUPT) {
            const struct warcscan_member *m = &s->members[s->nmembers - 1];
            return err_set(ERR_PARSE, "%s: offset %" PRIu64 " (gzip member): corrupt gzip data: %s",
                           s->path, m->coff, gzstream_errmsg(&s->z));
        }
        if (made)
            return ERR_OK;
    }
}

/* Append more uncompressed bytes to the window (compacting it first). */
static enum err warcscan_fill(struct warcscan *s)
{
    if (s->win_pos) {
        memmove(s->win, s->win + s->win_pos, s->win_len - s->win_pos);
        s->win_upos += s->win_pos;
        s->win_len -= s->win_pos;
        s->win_pos = 0;
    }
    if (s->win_len == WARCSCAN_WIN || s->eof)
        return ERR_OK;
    if (s->gz)
        return warcscan_inflate(s);
    size_t n = 0;
    enum err e = warcscan_read(s, s->win + s->win_len, WARCSCAN_WIN - s->win_len, &n);
    if (e)
        return e;
    s->win_len += n;
    s->eof = n == 0;
    return ERR_OK;
}

static size_t warcscan_avail(const struct warcscan *s)
{
    return s->win_len - s->win_pos;
}

/* Where a record's block lies: the member it starts in, and what is known of its end. */
static void warcscan_locate(struct warcscan *s, struct warc_record *r, uint64_t block_upos)
{
    if (!s->gz) {
        r->offset = block_upos;
        r->skip = 0;
        r->clen = r->length;
        return;
    }
    const struct warcscan_member *m = warcscan_member_for(s, block_upos);
    uint64_t block_end = block_upos + r->length;
    const struct warcscan_member *last = warcscan_member_for(s, block_end - 1);
    r->offset = m->coff;
    r->skip = block_upos - m->ustart;
    if (last->cend && block_end <= last->uend && s->pending == s->idx->nrecs - 1) {
        /* The whole member was inflated before its header was parsed. */
        r->clen = last->cend - r->offset;
        s->pending++;
    } else {
        r->clen = block_end; /* until the member holding the end is seen to end */
    }
}

/* Add a response record to the index, unless its URL is not http(s) or already there. */
static enum err warcscan_index(struct warcscan *s, const struct warchead *h, uint64_t block_upos,
                               int *added)
{
    char url[WARCURL_MAX];
    size_t len, hoff, hlen;
    *added = 0;
    if (warcurl_normalize(h->uri, h->uri_len, url, sizeof url, &len, &hoff, &hlen) != ERR_OK) {
        log_debug("%s: skipping record for '%.*s': %s", s->path,
                  (int)(h->uri_len > 200 ? 200 : h->uri_len), h->uri, err_msg());
        return ERR_OK;
    }
    struct warc_record *r;
    enum err e = warcindex_add(s->idx, url, len, hoff, hlen, &r);
    if (e == ERR_TOOBIG)
        return err_set(ERR_TOOBIG, "%s: too many records for one archive", s->path);
    if (!r)
        return e; /* a duplicate (ERR_OK), or no room */
    *added = 1;
    r->file = s->file;
    r->length = h->content_length;
    warcscan_locate(s, r, block_upos);
    return e;
}

/* Skip the line ends between records; *more = 0 when the file has no further record. */
static enum err warcscan_gap(struct warcscan *s, int *more)
{
    /* Records end with CRLF CRLF; tolerate any run of line ends between records. */
    for (;;) {
        while (s->win_pos < s->win_len &&
               (s->win[s->win_pos] == '\r' || s->win[s->win_pos] == '\n'))
            s->win_pos++;
        if (warcscan_avail(s) || s->eof)
            break;
        enum err e = warcscan_fill(s);
        if (e)
            return e;
    }
    *more = warcscan_avail(s) != 0;
    return ERR_OK;
}

/* Note where the record at the window position starts, for messages. */
static void warcscan_here(struct warcscan *s, uint64_t rec_upos)
{
    s->rec_off = rec_upos;
    s->where[0] = '\0';
    if (!s->gz)
        return;
    warcscan_members_trim(s, rec_upos);
    const struct warcscan_member *m = warcscan_member_for(s, rec_upos);
    s->rec_off = m->coff;
    if (rec_upos > m->ustart)
        snprintf(s->where, sizeof s->where, " (gzip member, uncompressed byte %" PRIu64 ")",
                 rec_upos - m->ustart);
    else
        snprintf(s->where, sizeof s->where, " (gzip member)");
}

static void warcscan_truncated(const struct warcscan *s)
{
    log_warn("%s: offset %" PRIu64 "%s: truncated record at the end of the file skipped", s->path,
             s->rec_off, s->where);
}

/* Bring the whole record header into the window: *hl its length, 0 if the file ends first. */
static enum err warcscan_head(struct warcscan *s, size_t *hl)
{
    for (;;) {
        const char *w = (const char *)s->win + s->win_pos;
        size_t avail = warcscan_avail(s), cmp = avail < 5 ? avail : 5;
        if (memcmp(w, "WARC/", cmp) != 0)
            return err_set(ERR_PARSE, "%s: offset %" PRIu64 "%s: not a WARC record", s->path,
                           s->rec_off, s->where);
        if ((*hl = warchead_end(w, avail)) != 0)
            return ERR_OK;
        if (avail >= WARCHEAD_MAX)
            return err_set(ERR_PARSE,
                           "%s: offset %" PRIu64 "%s: record header longer than %d bytes", s->path,
                           s->rec_off, s->where, WARCHEAD_MAX);
        if (s->eof) {
            warcscan_truncated(s);
            return ERR_OK;
        }
        enum err e = warcscan_fill(s);
        if (e)
            return e;
    }
}

/* Move past a block of `left` bytes; *cut = 1 if the file ends before it does. */
static enum err warcscan_skip(struct warcscan *s, uint64_t left, int *cut)
{
    *cut = 0;
    while (left) {
        if (!warcscan_avail(s)) {
            if (s->eof) {
                *cut = 1;
                return ERR_OK;
            }
            enum err e = warcscan_fill(s);
            if (e)
                return e;
            continue;
        }
        size_t take = warcscan_avail(s);
        if (take > left)
            take = (size_t)left;
        s->win_pos += take;
        left -= take;
    }
    return ERR_OK;
}

/* Read one record at the window position; *stop = 1 after a truncated last record. */
static enum err warcscan_record(struct warcscan *s, int *stop)
{
    uint64_t rec_upos = s->win_upos + s->win_pos;
    warcscan_here(s, rec_upos);
    size_t hl;
    enum err e = warcscan_head(s, &hl);
    if (e || !hl) {
        *stop = 1;
        return e;
    }
    struct warchead h;
    if (warchead_parse((const char *)s->win + s->win_pos, hl, &h) != ERR_OK) {
        char why[256]; /* err_set must not format its own message buffer */
        snprintf(why, sizeof why, "%s", err_msg());
        return err_set(ERR_PARSE, "%s: offset %" PRIu64 "%s: %s", s->path, s->rec_off, s->where,
                       why);
    }
    s->win_pos += hl;
    struct warcindex_mark mark;
    warcindex_mark(s->idx, &mark);
    int added = 0, cut;
    if (h.is_response && h.uri && h.content_length > 0 &&
        (e = warcscan_index(s, &h, rec_upos + hl, &added)))
        return e;
    if ((e = warcscan_skip(s, h.content_length, &cut)) || !cut)
        return e;
    if (added) {
        warcindex_rollback(s->idx, &mark);
        if (s->pending > s->idx->nrecs)
            s->pending = s->idx->nrecs;
    }
    warcscan_truncated(s);
    *stop = 1;
    return ERR_OK;
}

static enum err warcscan_records(struct warcscan *s)
{
    for (;;) {
        int more, stop = 0;
        enum err e = warcscan_gap(s, &more);
        if (e)
            return e;
        if (!more)
            break;
        if ((e = warcscan_record(s, &stop)) || stop)
            return e;
    }
    if (s->gz && s->in_member)
        log_warn("%s: offset %" PRIu64 " (gzip member): the file ends inside this member", s->path,
                 s->members[s->nmembers - 1].coff);
    return ERR_OK;
}

/* Sniff the gzip magic and set the pass up; the bytes read go to the buffer the format uses. */
static enum err warcscan_begin(struct warcscan *s)
{
    size_t n = 0;
    enum err e = warcscan_read(s, s->in, WARCSCAN_WIN, &n); /* WIN <= IN: fits both */
    if (e)
        return e;
    s->gz = n >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b;
    if (s->gz) {
        if ((e = gzstream_start(&s->z)))
            return e;
        gzstream_feed(&s->z, s->in, n);
        s->in_eof = n == 0;
    } else {
        memcpy(s->win, s->in, n);
        s->win_len = n;
        s->eof = n == 0;
    }
    return ERR_OK;
}

enum err warcscan_file(struct warcindex *idx, const char *path, int fd, uint32_t file, int *gz)
{
    struct warcscan s = {.idx = idx, .path = path, .fd = fd, .file = file, .pending = idx->nrecs};
    enum err e = ERR_OK;
    *gz = 0;
    s.in = malloc(WARCSCAN_IN);
    s.win = malloc(WARCSCAN_WIN);
    if (!s.in || !s.win) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    if ((e = warcscan_begin(&s)) || (e = warcscan_records(&s)))
        goto out;
    /* Records of a member cut off by the end of the file have no known compressed end. */
    for (; s.gz && s.pending < idx->nrecs; s.pending++)
        warcindex_at(idx, s.pending)->clen = 0;
    *gz = s.gz;
out:
    gzstream_release(&s.z);
    free(s.in);
    free(s.win);
    free(s.members);
    return e;
}
