/* Hash map from strings to pointers (open addressing, linear probing). Not thread-safe. */
#ifndef SITESCOUT_COMMON_STRMAP_H
#define SITESCOUT_COMMON_STRMAP_H

#include <stddef.h>

#include "common/err.h"

struct strmap_slot {
    char *key; /* owned copy; NULL = empty */
    void *value;
    size_t hash;
};

struct strmap {
    struct strmap_slot *slots;
    size_t cap; /* power of two, or 0 */
    size_t len;
};

/* Embedded lifecycle. release frees the keys, not the values (walk them first). */
void strmap_init(struct strmap *m);
void strmap_release(struct strmap *m);

/* The value for key (n bytes), or NULL. */
void *strmap_get(const struct strmap *m, const char *key, size_t n);

/* Insert or replace; the key is copied. */
enum err strmap_put(struct strmap *m, const char *key, size_t n, void *value) WARN_UNUSED;

/* Remove key; returns its value, or NULL. */
void *strmap_remove(struct strmap *m, const char *key, size_t n);

/* Iterate: for (size_t i = 0; i < m->cap; i++) if (m->slots[i].key) ... */

#endif
