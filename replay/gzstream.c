/* gzip inflation for WARC files, one member at a time: the only file here that includes zlib. */
#include "replay/gzstream.h"

#include <stdlib.h>
#include <zlib.h>

/* 15 window bits, +32: the gzip header is detected and checked by zlib itself. */
#define GZSTREAM_WBITS (15 + 32)

enum err gzstream_start(struct gzstream *g)
{
    z_stream *z = g->z;
    if (z)
        return inflateReset(z) == Z_OK ? ERR_OK : err_set(ERR_PARSE, "zlib reset failed");
    z = calloc(1, sizeof *z);
    if (!z)
        return err_set(ERR_NOMEM, "zlib initialisation failed");
    if (inflateInit2(z, GZSTREAM_WBITS) != Z_OK) {
        free(z);
        return err_set(ERR_NOMEM, "zlib initialisation failed");
    }
    g->z = z;
    return ERR_OK;
}

void gzstream_release(struct gzstream *g)
{
    if (!g->z)
        return;
    inflateEnd(g->z);
    free(g->z);
    g->z = NULL;
}

void gzstream_feed(struct gzstream *g, const void *in, size_t n)
{
    z_stream *z = g->z;
    z->next_in = (Bytef *)(uintptr_t)in; /* zlib never writes its input */
    z->avail_in = (uInt)n;
}

size_t gzstream_pending(const struct gzstream *g)
{
    const z_stream *z = g->z;
    return z ? z->avail_in : 0;
}

enum gzstream_status gzstream_inflate(struct gzstream *g, void *out, size_t cap, size_t *made)
{
    z_stream *z = g->z;
    z->next_out = out;
    z->avail_out = (uInt)cap;
    int ret = inflate(z, Z_NO_FLUSH);
    *made = cap - z->avail_out;
    if (ret == Z_STREAM_END)
        return GZSTREAM_MEMBER_END;
    if (ret == Z_OK || ret == Z_BUF_ERROR)
        return GZSTREAM_OK;
    g->errmsg = z->msg;
    return GZSTREAM_CORRUPT;
}

const char *gzstream_errmsg(const struct gzstream *g)
{
    return g->errmsg ? g->errmsg : "inflate failed";
}
