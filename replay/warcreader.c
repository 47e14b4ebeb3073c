/* Reading one record's HTTP block from its file: pread, and gzip members inflated on demand. */
#include "replay/warcreader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/gzstream.h"

#define WARCREADER_IN (16 * 1024) /* compressed bytes per pread() when serving */

struct warcreader {
    const struct warc_archive *a;
    const struct warc_file *f;
    struct gzstream z;
    int member_done; /* the last inflate call reached the end of a member */
    uint64_t coff;   /* next file offset to read */
    uint64_t cend;   /* where the record's compressed bytes end; 0 = unknown */
    uint64_t skip;   /* uncompressed bytes still to drop before the block */
    uint64_t left;   /* block bytes still to hand out */
    unsigned char in[WARCREADER_IN];
};

struct warcreader *warcreader_new(void)
{
    return calloc(1, sizeof(struct warcreader));
}

void warcreader_free(struct warcreader *r)
{
    if (!r)
        return;
    gzstream_release(&r->z);
    free(r);
}

enum err warcreader_start(struct warcreader *r, const struct warc_archive *a,
                          const struct warc_record *rec)
{
    const struct warc_file *f = warc_archive_file(a, rec->file);
    if (!f)
        return err_set(ERR_INVAL, "record of an unknown file");
    r->a = a;
    r->f = f;
    r->coff = rec->offset;
    r->cend = rec->clen ? rec->offset + rec->clen : 0;
    r->skip = rec->skip;
    r->left = rec->length;
    r->member_done = 0;
    if (!r->f->gz)
        return ERR_OK;
    enum err e = gzstream_start(&r->z);
    if (e)
        return e;
    gzstream_feed(&r->z, r->in, 0); /* input left from another record is not this one's */
    return ERR_OK;
}

static enum err warcreader_pread(struct warcreader *r, void *buf, size_t want, size_t *got)
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

enum err warcreader_read(struct warcreader *r, void *buf, size_t cap, size_t *got)
{
    *got = 0;
    if (!r->left || !cap)
        return ERR_OK;
    if (!r->f->gz) {
        size_t want = r->left < cap ? (size_t)r->left : cap;
        enum err e = warcreader_pread(r, buf, want, got);
        if (!e)
            r->left -= *got;
        return e;
    }
    while (r->left) {
        if (gzstream_pending(&r->z) == 0) {
            size_t want = sizeof r->in, n;
            if (r->cend > r->coff && r->cend - r->coff < want)
                want = (size_t)(r->cend - r->coff);
            enum err e = warcreader_pread(r, r->in, want, &n);
            if (e)
                return e;
            gzstream_feed(&r->z, r->in, n);
        }
        if (r->member_done) {
            enum err e = gzstream_start(&r->z);
            if (e)
                return e;
            r->member_done = 0;
        }
        /* While skipping, the caller's buffer is scratch space. */
        uint64_t lim = r->skip ? r->skip : r->left;
        size_t room = lim < cap ? (size_t)lim : cap, made;
        enum gzstream_status st = gzstream_inflate(&r->z, buf, room, &made);
        if (st == GZSTREAM_MEMBER_END)
            r->member_done = 1;
        else if (st == GZSTREAM_CORRUPT)
            return err_set(ERR_PARSE, "%s: corrupt gzip data near offset %" PRIu64 ": %s",
                           r->f->path, r->coff, gzstream_errmsg(&r->z));
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
