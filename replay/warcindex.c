/* The archive's index: records in file order, URL pool, open-addressing tables by URL and host. */
#include "replay/warcindex.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/hash.h"
#include "replay/warcurl.h"

#define WARCINDEX_POOL_MAX ((size_t)UINT32_MAX) /* URLs are addressed by 32-bit pool offsets */
#define WARCINDEX_RECS_MAX ((size_t)1 << 30)

/* The slot that holds url, or the empty slot where it would go. */
static size_t warcindex_url_probe(const struct warcindex *x, const char *url, size_t len,
                                  uint32_t hash)
{
    size_t mask = x->url_cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        uint32_t v = x->url_slots[i];
        if (!v)
            return i;
        const struct warc_record *r = &x->recs[v - 1];
        const char *s = x->pool + r->url;
        if (r->hash == hash && memcmp(s, url, len) == 0 && s[len] == '\0')
            return i;
    }
}

static size_t warcindex_host_probe(const struct warcindex *x, const char *host, size_t len,
                                   uint32_t hash)
{
    size_t mask = x->host_cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const struct warcindex_host *h = &x->host_slots[i];
        if (!h->len ||
            (h->hash == hash && h->len == len && memcmp(x->pool + h->off, host, len) == 0))
            return i;
    }
}

/* Make the URL table fit `need` entries at a load of at most 1/2, rehashing if it grows. */
static enum err warcindex_url_reserve(struct warcindex *x, size_t need)
{
    if (x->url_cap && need * 2 <= x->url_cap)
        return ERR_OK;
    size_t cap = x->url_cap ? x->url_cap : 1024;
    while (need * 2 > cap)
        cap *= 2;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return err_set(ERR_NOMEM, "out of memory for the URL index");
    free(x->url_slots);
    x->url_slots = slots;
    x->url_cap = cap;
    for (size_t i = 0; i < x->nrecs; i++) {
        const struct warc_record *r = &x->recs[i];
        const char *s = x->pool + r->url;
        x->url_slots[warcindex_url_probe(x, s, strlen(s), r->hash)] = (uint32_t)(i + 1);
    }
    return ERR_OK;
}

static enum err warcindex_host_insert(struct warcindex *x, uint32_t off, uint32_t len)
{
    if (!x->host_cap || (x->nhosts + 1) * 2 > x->host_cap) {
        size_t cap = x->host_cap ? x->host_cap * 2 : 256;
        struct warcindex_host *old = x->host_slots, *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return err_set(ERR_NOMEM, "out of memory for the host index");
        size_t oldcap = x->host_cap;
        x->host_slots = slots;
        x->host_cap = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].len)
                x->host_slots[warcindex_host_probe(x, x->pool + old[i].off, old[i].len,
                                                   old[i].hash)] = old[i];
        free(old);
    }
    uint32_t hash = hash_bytes32(x->pool + off, len);
    size_t i = warcindex_host_probe(x, x->pool + off, len, hash);
    if (!x->host_slots[i].len) {
        x->host_slots[i] = (struct warcindex_host){off, len, hash};
        x->nhosts++;
    }
    return ERR_OK;
}

/* Rebuild both tables from the records, after records were dropped. */
static void warcindex_rebuild(struct warcindex *x)
{
    if (x->url_cap)
        memset(x->url_slots, 0, x->url_cap * sizeof *x->url_slots);
    for (size_t i = 0; i < x->nrecs; i++) {
        const struct warc_record *r = &x->recs[i];
        const char *s = x->pool + r->url;
        x->url_slots[warcindex_url_probe(x, s, strlen(s), r->hash)] = (uint32_t)(i + 1);
    }
    if (x->host_cap)
        memset(x->host_slots, 0, x->host_cap * sizeof *x->host_slots);
    x->nhosts = 0;
    for (size_t i = 0; i < x->nrecs; i++) {
        size_t len;
        const char *h = warcurl_host(x->pool + x->recs[i].url, &len);
        /* Cannot fail: the table already held at least these hosts. */
        (void)!warcindex_host_insert(x, (uint32_t)(h - x->pool), (uint32_t)len);
    }
}

/* Room for one more record and len + 1 more pool bytes. */
static enum err warcindex_grow(struct warcindex *x, size_t len)
{
    if (grow_array((void **)&x->recs, &x->caprecs, x->nrecs + 1, sizeof *x->recs) != ERR_OK)
        return err_set(ERR_NOMEM, "out of memory for the record index");
    if (grow_array((void **)&x->pool, &x->pool_cap, x->pool_len + len + 1, 1) != ERR_OK)
        return err_set(ERR_NOMEM, "out of memory for the URL pool");
    return ERR_OK;
}

enum err warcindex_add(struct warcindex *x, const char *url, size_t len, size_t hoff, size_t hlen,
                       struct warc_record **out)
{
    *out = NULL;
    enum err e = warcindex_url_reserve(x, x->nrecs + 1);
    if (e)
        return e;
    uint32_t hash = hash_bytes32(url, len);
    size_t slot = warcindex_url_probe(x, url, len, hash);
    if (x->url_slots[slot]) {
        x->duplicates++;
        return ERR_OK;
    }
    if (x->nrecs == WARCINDEX_RECS_MAX || len + 1 > WARCINDEX_POOL_MAX - x->pool_len)
        return err_set(ERR_TOOBIG, "too many records for one archive");
    if ((e = warcindex_grow(x, len)))
        return e;
    uint32_t off = (uint32_t)x->pool_len;
    memcpy(x->pool + off, url, len);
    x->pool[off + len] = '\0';
    x->pool_len += len + 1;

    struct warc_record *r = &x->recs[x->nrecs];
    memset(r, 0, sizeof *r);
    r->url = off;
    r->hash = hash;
    x->url_slots[slot] = (uint32_t)(x->nrecs + 1);
    x->nrecs++;
    *out = r;
    return warcindex_host_insert(x, off + (uint32_t)hoff, (uint32_t)hlen);
}

struct warc_record *warcindex_at(struct warcindex *x, size_t i)
{
    return &x->recs[i];
}

const struct warc_record *warcindex_find(const struct warcindex *x, const char *url, size_t len)
{
    if (!x->nrecs)
        return NULL;
    uint32_t v = x->url_slots[warcindex_url_probe(x, url, len, hash_bytes32(url, len))];
    return v ? &x->recs[v - 1] : NULL;
}

int warcindex_has_host(const struct warcindex *x, const char *host, size_t len)
{
    if (!x->nhosts || !len)
        return 0;
    return x->host_slots[warcindex_host_probe(x, host, len, hash_bytes32(host, len))].len != 0;
}

void warcindex_mark(const struct warcindex *x, struct warcindex_mark *m)
{
    *m = (struct warcindex_mark){x->nrecs, x->pool_len, x->duplicates};
}

void warcindex_rollback(struct warcindex *x, const struct warcindex_mark *m)
{
    x->duplicates = m->duplicates;
    if (x->nrecs == m->nrecs)
        return;
    x->nrecs = m->nrecs;
    x->pool_len = m->pool_len;
    warcindex_rebuild(x);
}

void warcindex_release(struct warcindex *x)
{
    free(x->recs);
    free(x->pool);
    free(x->url_slots);
    free(x->host_slots);
    memset(x, 0, sizeof *x);
}
