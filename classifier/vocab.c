/* Term dictionary with linear probing; the table stays at most half full. */
#include "classifier/vocab.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/hash.h"

void vocab_init(struct vocab *v)
{
    memset(v, 0, sizeof *v);
}

void vocab_release(struct vocab *v)
{
    if (!v)
        return;
    free(v->pool);
    free(v->off);
    free(v->len);
    free(v->hash);
    free(v->slots);
    vocab_init(v);
}

static bool slot_matches(const struct vocab *v, uint32_t id, uint32_t h, const char *term,
                         size_t len)
{
    return v->hash[id] == h && v->len[id] == len && memcmp(v->pool + v->off[id], term, len) == 0;
}

bool vocab_find(const struct vocab *v, const char *term, size_t len, uint32_t *id)
{
    if (!v->nslots || len == 0 || len > VOCAB_MAX_LEN)
        return false;
    uint32_t h = hash_bytes32(term, len);
    uint32_t mask = v->nslots - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        uint32_t s = v->slots[i];
        if (!s)
            return false;
        if (slot_matches(v, s - 1, h, term, len)) {
            *id = s - 1;
            return true;
        }
    }
}

static enum err rehash(struct vocab *v, uint32_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return err_set(ERR_NOMEM, "out of memory growing a vocabulary");
    uint32_t mask = nslots - 1;
    for (uint32_t id = 0; id < v->n; id++) {
        uint32_t i = v->hash[id] & mask;
        while (slots[i])
            i = (i + 1) & mask;
        slots[i] = id + 1;
    }
    free(v->slots);
    v->slots = slots;
    v->nslots = nslots;
    return ERR_OK;
}

static enum err more_ids(struct vocab *v)
{
    /* The three arrays grow from the same capacity to the same need: to the same capacity
       (at most twice VOCAB_MAX_TERMS, which fits). */
    size_t cap_off = v->cap, cap_len = v->cap, cap_hash = v->cap;
    if (grow_array((void **)&v->off, &cap_off, (size_t)v->n + 1, sizeof *v->off) != ERR_OK ||
        grow_array((void **)&v->len, &cap_len, (size_t)v->n + 1, sizeof *v->len) != ERR_OK ||
        grow_array((void **)&v->hash, &cap_hash, (size_t)v->n + 1, sizeof *v->hash) != ERR_OK)
        return err_set(ERR_NOMEM, "out of memory growing a vocabulary");
    v->cap = (uint32_t)cap_off;
    return ERR_OK;
}

enum err vocab_add(struct vocab *v, const char *term, size_t len, uint32_t *id, bool *added)
{
    enum err e;
    if (added)
        *added = false;
    if (len == 0 || len > VOCAB_MAX_LEN)
        return err_set(ERR_INVAL, "vocabulary term of %zu bytes (1..%d allowed)", len,
                       VOCAB_MAX_LEN);
    if (vocab_find(v, term, len, id))
        return ERR_OK;
    if (v->n >= VOCAB_MAX_TERMS)
        return err_set(ERR_TOOBIG, "vocabulary exceeds %u terms", (unsigned)VOCAB_MAX_TERMS);
    if ((size_t)(v->n + 1) * 2 > v->nslots && (e = rehash(v, v->nslots ? v->nslots * 2 : 512)))
        return e;
    if (v->n == v->cap && (e = more_ids(v)))
        return e;
    if (v->pool_len + len > UINT32_MAX)
        return err_set(ERR_TOOBIG, "vocabulary terms exceed 4 GiB");
    if (grow_array((void **)&v->pool, &v->pool_cap, v->pool_len + len, 1) != ERR_OK)
        return err_set(ERR_NOMEM, "out of memory growing a vocabulary");
    uint32_t h = hash_bytes32(term, len);
    uint32_t nid = v->n++;
    memcpy(v->pool + v->pool_len, term, len);
    v->off[nid] = (uint32_t)v->pool_len;
    v->len[nid] = (uint8_t)len;
    v->hash[nid] = h;
    v->pool_len += len;
    uint32_t mask = v->nslots - 1, i = h & mask;
    while (v->slots[i])
        i = (i + 1) & mask;
    v->slots[i] = nid + 1;
    *id = nid;
    if (added)
        *added = true;
    return ERR_OK;
}

const char *vocab_term(const struct vocab *v, uint32_t id, size_t *len)
{
    *len = v->len[id];
    return v->pool + v->off[id];
}
