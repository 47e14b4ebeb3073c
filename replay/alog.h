/* Internal to replay/: the replay server's access log: one JSON object per request and line,
 * buffered. */
#ifndef SITESCOUT_REPLAY_ALOG_H
#define SITESCOUT_REPLAY_ALOG_H

#include <stdint.h>

#include "common/err.h"

/*
 * A line reads
 *   {"ts": 1717200000.123, "method": "GET", "url": "http://host/path", "status": 200,
 *    "bytes": 5120, "ms": 0.412, "conn": 7}
 * plus "fault": "error", "reset", "slow", "stall", "loop" (joined by +) when a fault was
 * injected, and "hangup" when the client went away mid-response. Lines are
 * buffered; the owner calls alog_flush at least once a second, and alog_close
 * flushes the rest.
 */
struct alog;

struct alog_entry {
    double ts;          /* wall-clock seconds when the request had arrived */
    const char *method; /* borrowed */
    const char *url;    /* borrowed */
    int status;
    uint64_t bytes;    /* body bytes sent */
    double ms;         /* from the request's arrival to the response's last byte */
    uint64_t conn;     /* connection number, 1, 2, ... in accept order */
    const char *fault; /* NULL, or the fault that was injected */
};

/* Open (create, append to) the log at path. *out is freed with alog_close. */
enum err alog_open(const char *path, struct alog **out) WARN_UNUSED;

/* Buffer one line; flushes by itself when the buffer is large. */
void alog_add(struct alog *l, const struct alog_entry *e);

/* Write buffered lines to the file. */
enum err alog_flush(struct alog *l) WARN_UNUSED;

/* Flush and free. Accepts NULL. */
void alog_close(struct alog *l);

#endif
