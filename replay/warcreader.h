/* Streaming the HTTP block of one archived record, inflating gzip members on demand. */
#ifndef SITESCOUT_REPLAY_WARCREADER_H
#define SITESCOUT_REPLAY_WARCREADER_H

#include <stddef.h>

#include "common/err.h"
#include "replay/warc.h"

/*
 * Reusable for many records, one at a time. Holds a zlib stream and a small input
 * buffer (about 60 KB in all while in use). The archive is borrowed and must outlive
 * the reads.
 */
struct warcreader;

/* Heap lifecycle; warcreader_free accepts NULL. */
struct warcreader *warcreader_new(void);
void warcreader_free(struct warcreader *r);

/* Start reading rec's block (rec borrowed from a). */
enum err warcreader_start(struct warcreader *r, const struct warc_archive *a,
                          const struct warc_record *rec) WARN_UNUSED;

/*
 * Copy up to cap next bytes of the block to buf; *got = 0 at the end of the block.
 * ERR_IO if the file was truncated since indexing, ERR_PARSE for corrupt data.
 */
enum err warcreader_read(struct warcreader *r, void *buf, size_t cap, size_t *got) WARN_UNUSED;

#endif
