/* Internal to replay/: one response of the replay server in flight: its head, and its body produced
 * on demand. */
#ifndef SITESCOUT_REPLAY_RESPONSE_H
#define SITESCOUT_REPLAY_RESPONSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay/httpmsg.h"
#include "replay/warc.h"
#include "replay/warcreader.h"
#include "replay/warcurl.h"

#define RESPONSE_OUT_CAP  (32 * 1024) /* bytes handed to one send() */
#define RESPONSE_POOL_MAX 64          /* idle responses and readers kept for reuse */

enum response_body {
    RESPONSE_BODY_MEM,
    RESPONSE_BODY_RECORD,
    RESPONSE_BODY_HUGE,
    RESPONSE_BODY_JUNK
};
enum response_fault {
    RESPONSE_FAULT_ERROR = 1,
    RESPONSE_FAULT_RESET = 2,
    RESPONSE_FAULT_SLOW = 4,
    RESPONSE_FAULT_STALL = 8,
    RESPONSE_FAULT_LOOP = 16,
    RESPONSE_FAULT_HANGUP = 32, /* not a fault the replay made: the client went away
                                 * mid-response, noticed when the replay next wrote or
                                 * read, so the logged end is later than the client's */
};
#define RESPONSE_FAULT_NAMES_MAX 56 /* "error+reset+slow+stall+loop+hangup" and its NUL fit */

/*
 * The head goes into out first; body bytes come from the stash (a generated page, or
 * what was read of a record beyond its head) and then from the body source. The
 * connection sending it (conn.c) moves out_off/out_len, sent and produced; the fault
 * fields are set by whoever answers the request (router.c). A response owns its reader.
 */
struct response {
    struct response *next_free;
    /* for the access log */
    char method[16];
    char url[WARCURL_MAX];
    int status;
    unsigned faults; /* enum response_fault bits */
    double ts;
    int64_t t0_us;
    int64_t last_send_us; /* monotonic, before the latest send() */
    int keep_alive;
    /* the body source */
    enum response_body kind;
    uint64_t body_len; /* body bytes to send (0 for HEAD) */
    uint64_t produced; /* body bytes put into out so far */
    uint64_t head_len; /* the first head_len bytes sent are the head */
    uint64_t sent;
    uint64_t junk_seed;
    struct warcreader *reader;
    size_t stash_off, stash_len; /* body bytes waiting in stash */
    /* faults */
    int64_t start_at;   /* monotonic ms when the latency delay ends; 0 = started */
    uint64_t reset_at;  /* reset the connection after this many body bytes; UINT64_MAX = never */
    uint64_t stall_at;  /* go silent after this many body bytes; UINT64_MAX = never ... */
    int64_t stall_ms;   /* ... for this long */
    int64_t stall_end;  /* monotonic ms when a stall in progress ends; 0 = none */
    uint64_t slow_step; /* body bytes per slow tick; 0 = not slow */
    uint64_t allowance; /* body bytes that may go before the next tick */
    int64_t slow_next;
    int64_t slow_interval;
    size_t out_len, out_off;
    char out[RESPONSE_OUT_CAP];
    char stash[HTTPMSG_RESPONSE_HEAD_MAX];
};

/* Idle responses and readers for reuse (each is large). Embedded; all zero is empty. */
struct response_pool {
    const struct warc_archive *arc; /* borrowed: where records are read from */
    struct response *free;
    size_t nfree;
    struct warcreader *readers[RESPONSE_POOL_MAX];
    size_t nreaders;
};

/* Free everything the pool keeps. */
void response_pool_release(struct response_pool *p);

/* A response with every field zero but reset_at and stall_at (never); NULL when out of memory. */
struct response *response_get(struct response_pool *p);

/* Give a response (and its reader) back to the pool. */
void response_put(struct response_pool *p, struct response *r);

/* A small generated HTML page (errors, 404, 502); extra is more header lines, or NULL. */
void response_page(struct response *r, int status, const char *extra, const char *msg,
                   int head_only);

/* The page of an injected 500 or 503 error. */
void response_error_fault(struct response *r, int status, int head_only);

/* An injected redirect (301 or 302) to location, one hop of a loop. */
void response_loop_fault(struct response *r, int status, const char *location, int head_only);

/* The recorded response; nonzero (with a warning on the log) if it cannot be served. */
int response_record(struct response_pool *p, struct response *r, const struct warc_record *rec,
                    int head_only);

/* Synthetic host kinds (see synth.h). */
enum response_synth { RESPONSE_SYNTH_TRAP = 1, RESPONSE_SYNTH_HUGE, RESPONSE_SYNTH_JUNK };

/* A synthetic host's page for path[len]; seed picks the junk. */
void response_synth(struct response *r, enum response_synth kind, const char *path, size_t len,
                    uint64_t seed, int head_only);

/* Next body bytes into dst[n]: how many, or -1 if the source failed. */
ssize_t response_produce(struct response *r, char *dst, size_t n);

/* The names of the faults in bits, joined by '+' ("" for none), into out[cap]. */
void response_fault_names(unsigned bits, char *out, size_t cap);

#endif
