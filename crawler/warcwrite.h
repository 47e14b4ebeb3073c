/*
 * WARC capture: HTTP exchanges written as WARC/1.1 records into rotating .warc.gz files
 * (one gzip member per record), the crawler layer's only zlib user.
 *
 * Files are DIR/PREFIX-NNNNN.warc.gz, NNNNN counting from 00000 and skipping any
 * number already taken in DIR (a resumed job adds files, it never overwrites). A file
 * is written as NAME.open and renamed to NAME when closed, as Heritrix does: when it
 * has passed max_size bytes (checked after each exchange, so a file ends with a whole
 * exchange) and when the writer is freed. A file is opened at the first exchange, and
 * starts with a warcinfo record.
 *
 * Each writer has a thread of its own that digests, compresses and writes, so that the
 * fetch thread only copies an exchange into a queue (capped at WARCWRITE_QUEUE_MAX
 * bytes: past it warcwrite_exchange waits for the disk). Each record is handed to the
 * kernel with write() as soon as it is made; a killed process loses the exchanges still
 * queued (normally none: the writer keeps up with a crawl) and the record being
 * written, and its last file keeps its .open name. Dropping the last reference writes
 * everything queued, then closes.
 *
 * Threads: any; one lock per writer. Ownership: reference counted, so that a transfer
 * still running when its job ends (a shared host's robots.txt) can finish its record;
 * the file is closed when the last reference goes. Write errors are logged by the
 * writer thread (the first and every 1000th) and counted as lost.
 */
#ifndef SITESCOUT_CRAWLER_WARCWRITE_H
#define SITESCOUT_CRAWLER_WARCWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"

#define WARCWRITE_MAX_SIZE_DEFAULT ((uint64_t)1 << 30) /* 1 GiB */
#define WARCWRITE_QUEUE_MAX        ((size_t)32 << 20)  /* bytes of exchanges waiting */

struct warcwrite;

struct warcwrite_config {
    const char *dir;        /* must exist */
    const char *prefix;     /* file names: PREFIX-NNNNN.warc.gz; no '/' */
    uint64_t max_size;      /* rotate past this many (compressed) bytes; 0: the default */
    const char *is_part_of; /* warcinfo's isPartOf ("job 12"), or NULL */
};

/* A writer holding one reference. Strings are copied. Nothing is opened yet. */
enum err warcwrite_new(const struct warcwrite_config *c, struct warcwrite **out) WARN_UNUSED;

void warcwrite_ref(struct warcwrite *w);

/* Drop a reference; the last one closes (renames) the open file and frees. NULL is fine. */
void warcwrite_unref(struct warcwrite *w);

/*
 * One exchange; every pointer is borrowed. The request record is written when request
 * is not NULL, the response record when head is not NULL (a response came); each
 * names the other with WARC-Concurrent-To when both are written.
 */
struct warcwrite_exchange {
    const char *url;     /* WARC-Target-URI */
    const char *ip;      /* the server's address, or NULL when unknown */
    time_t when;         /* when the request went out */
    const char *request; /* request line and headers as sent */
    size_t request_len;
    const char *head; /* response status line and headers as received */
    size_t head_len;
    const char *body; /* the body as curl handed it on (decoded, see warcrec.h) */
    size_t body_len;
    const char *truncated; /* WARC-Truncated reason (length, time, disconnect, unspecified) */
};

/*
 * Queue the records of x (copied) for the writer thread. ERR_NOMEM only; the disk's
 * errors are the writer's (above).
 */
enum err warcwrite_exchange(struct warcwrite *w, const struct warcwrite_exchange *x) WARN_UNUSED;

/* Wait until everything queued so far is written (for tests and figures). */
void warcwrite_flush(struct warcwrite *w);

struct warcwrite_stats {
    uint64_t files;     /* opened so far */
    uint64_t requests;  /* request records */
    uint64_t responses; /* response records */
    uint64_t bytes;     /* written, compressed */
};

/* What was written so far (not what is still queued: see warcwrite_flush). */
void warcwrite_stats(struct warcwrite *w, struct warcwrite_stats *out);

#endif
