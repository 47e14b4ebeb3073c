/* Term dictionary: byte strings -> dense ids 0..n-1 (open addressing hash table). */
#ifndef SITESCOUT_CLASSIFIER_VOCAB_H
#define SITESCOUT_CLASSIFIER_VOCAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define VOCAB_MAX_TERMS ((uint32_t)1 << 24) /* cap: a model never needs more */
#define VOCAB_MAX_LEN   255                 /* bytes per term */

/*
 * Ids are given in insertion order. The vocabulary owns copies of its terms.
 * Lookups (vocab_find, vocab_term) only read, so a finished vocabulary can be
 * shared by threads; vocab_add needs exclusive access.
 */
struct vocab {
    char *pool; /* all terms back to back, not NUL-terminated */
    size_t pool_len, pool_cap;
    uint32_t *off;   /* per id: offset in pool */
    uint8_t *len;    /* per id: length */
    uint32_t *hash;  /* per id: hash (re-used when the table grows) */
    uint32_t n, cap; /* ids used / allocated */
    uint32_t *slots; /* id + 1, 0 = empty; size nslots (power of two) */
    uint32_t nslots;
};

void vocab_init(struct vocab *v);
void vocab_release(struct vocab *v);

/* The id of term, adding it if new (*added tells which, may be NULL).
 * ERR_INVAL for an empty or too long term, ERR_TOOBIG past VOCAB_MAX_TERMS. */
enum err vocab_add(struct vocab *v, const char *term, size_t len, uint32_t *id,
                   bool *added) WARN_UNUSED;

/* True and *id when term is known. */
bool vocab_find(const struct vocab *v, const char *term, size_t len, uint32_t *id);

/* The bytes of id (< v->n), borrowed, not NUL-terminated. */
const char *vocab_term(const struct vocab *v, uint32_t id, size_t *len);

#endif
