/* Hash map from strings to pointers (open addressing, linear probing, backward-shift delete). */
#include "common/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

void strmap_init(struct strmap *m)
{
    m->slots = NULL;
    m->cap = 0;
    m->len = 0;
}

void strmap_release(struct strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    strmap_init(m);
}

static int key_eq(const struct strmap_slot *s, const char *key, size_t n, size_t h)
{
    return s->hash == h && strncmp(s->key, key, n) == 0 && s->key[n] == '\0';
}

void *strmap_get(const struct strmap *m, const char *key, size_t n)
{
    if (!m->cap)
        return NULL;
    size_t h = hash_bytes(key, n);
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const struct strmap_slot *s = &m->slots[i];
        if (!s->key)
            return NULL;
        if (key_eq(s, key, n, h))
            return s->value;
    }
}

static enum err strmap_grow(struct strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    struct strmap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return err_set(ERR_NOMEM, "out of memory growing a map to %zu slots", cap);
    for (size_t i = 0; i < m->cap; i++) {
        struct strmap_slot *s = &m->slots[i];
        if (!s->key)
            continue;
        size_t j = s->hash & (cap - 1);
        while (slots[j].key)
            j = (j + 1) & (cap - 1);
        slots[j] = *s;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return ERR_OK;
}

enum err strmap_put(struct strmap *m, const char *key, size_t n, void *value)
{
    if ((m->len + 1) * 4 > m->cap * 3) {
        enum err e = strmap_grow(m);
        if (e)
            return e;
    }
    size_t h = hash_bytes(key, n);
    size_t i = h & (m->cap - 1);
    for (; m->slots[i].key; i = (i + 1) & (m->cap - 1)) {
        if (key_eq(&m->slots[i], key, n, h)) {
            m->slots[i].value = value;
            return ERR_OK;
        }
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return err_set(ERR_NOMEM, "out of memory");
    memcpy(copy, key, n);
    copy[n] = '\0';
    m->slots[i] = (struct strmap_slot){copy, value, h};
    m->len++;
    return ERR_OK;
}

void *strmap_remove(struct strmap *m, const char *key, size_t n)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1, h = hash_bytes(key, n);
    size_t i = h & mask;
    while (m->slots[i].key && !key_eq(&m->slots[i], key, n, h))
        i = (i + 1) & mask;
    if (!m->slots[i].key)
        return NULL;
    void *value = m->slots[i].value;
    free(m->slots[i].key);
    m->slots[i].key = NULL;
    m->len--;
    /* Backward-shift the following run so lookups never stop at the new hole early. */
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t home = m->slots[j].hash & mask;
        /* Move slot j into the hole i unless its home lies cyclically in (i, j]. */
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        m->slots[i] = m->slots[j];
        m->slots[j].key = NULL;
        i = j;
    }
    return value;
}
