/* A gzip inflater for multi-member streams: the replay layer's only zlib user. */
#ifndef SITESCOUT_REPLAY_GZSTREAM_H
#define SITESCOUT_REPLAY_GZSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/*
 * Inflates one gzip member at a time from input the caller feeds in. The input bytes
 * are borrowed: they must stay put until gzstream_pending says they are used up. The
 * zlib state is allocated by gzstream_start and freed by gzstream_release (about
 * 45 KB); a struct gzstream is embedded by its owner and zero-initialised.
 */
struct gzstream {
    void *z;            /* the zlib stream, or NULL before gzstream_start */
    const char *errmsg; /* zlib's reason for the last GZSTREAM_CORRUPT */
};

enum gzstream_status {
    GZSTREAM_OK,         /* made progress, or needs more input or output room */
    GZSTREAM_MEMBER_END, /* the member ended; gzstream_start before the next one */
    GZSTREAM_CORRUPT,    /* corrupt data; gzstream_errmsg says why */
};

/* Make ready for a new member (allocating on first use), keeping any input fed. */
enum err gzstream_start(struct gzstream *g) WARN_UNUSED;

/* Free the zlib state. Accepts a stream that was never started. */
void gzstream_release(struct gzstream *g);

/* Hand in n more input bytes (borrowed); only when gzstream_pending is 0. */
void gzstream_feed(struct gzstream *g, const void *in, size_t n);

/* Input bytes fed but not consumed yet. */
size_t gzstream_pending(const struct gzstream *g);

/* Inflate into out[cap]; *made says how many bytes were written. */
enum gzstream_status gzstream_inflate(struct gzstream *g, void *out, size_t cap, size_t *made);

/* Why the last inflate failed ("inflate failed" if zlib did not say). Borrowed. */
const char *gzstream_errmsg(const struct gzstream *g);

#endif
