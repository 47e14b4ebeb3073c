/* The index of an archive: response records, their URLs in one pool, hash tables by URL and host.
 */
#ifndef SITESCOUT_REPLAY_WARCINDEX_H
#define SITESCOUT_REPLAY_WARCINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "replay/warc.h"

/* A host of the index: a substring of some record's URL in the pool. */
struct warcindex_host {
    uint32_t off;
    uint32_t len; /* 0 = empty slot */
    uint32_t hash;
};

/*
 * Embedded in its owner (the archive); all zero is an empty index and
 * warcindex_release frees what it holds. Others may read nrecs, nhosts and duplicates;
 * everything changes through the functions below only.
 */
struct warcindex {
    struct warc_record *recs;
    size_t nrecs, caprecs;
    char *pool; /* NUL-terminated normalised URLs */
    size_t pool_len, pool_cap;
    uint32_t *url_slots; /* open addressing, record index + 1, 0 = empty */
    size_t url_cap;      /* a power of two */
    struct warcindex_host *host_slots;
    size_t host_cap, nhosts;
    size_t duplicates; /* records not added because their URL was there already */
};

/* A state of the index to go back to (see warcindex_rollback). */
struct warcindex_mark {
    size_t nrecs, pool_len, duplicates;
};

void warcindex_release(struct warcindex *x);

/*
 * Add a record for the normalised URL url[len], whose authority is url[hoff, hoff + hlen).
 * *out is the new record, with url and hash set and every other field 0, for the caller
 * to fill in (valid until the next add); NULL if the URL was indexed already (counted as
 * a duplicate). ERR_NOMEM, or ERR_TOOBIG when the index is full.
 */
enum err warcindex_add(struct warcindex *x, const char *url, size_t len, size_t hoff, size_t hlen,
                       struct warc_record **out) WARN_UNUSED;

/* The record number i (i < nrecs), writable: its finder may complete its fields later. */
struct warc_record *warcindex_at(struct warcindex *x, size_t i);

/* The record for a normalised URL, or NULL. Borrowed. */
const struct warc_record *warcindex_find(const struct warcindex *x, const char *url, size_t len);

/* Whether some record's URL has this authority. */
int warcindex_has_host(const struct warcindex *x, const char *host, size_t len);

/* Where the index stands now, and going back there (dropping the records added since). */
void warcindex_mark(const struct warcindex *x, struct warcindex_mark *m);
void warcindex_rollback(struct warcindex *x, const struct warcindex_mark *m);

#endif
