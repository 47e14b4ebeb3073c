/* Internal to replay/: a binary min-heap of deadlines, each node embedded in what it times (one per
 * connection). */
#ifndef SITESCOUT_REPLAY_TIMERHEAP_H
#define SITESCOUT_REPLAY_TIMERHEAP_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define TIMERHEAP_NONE ((size_t)-1) /* a node's idx while it is not in the heap */

/* Embedded in its owner; idx = TIMERHEAP_NONE before first use. */
struct timerheap_node {
    int64_t deadline;
    size_t idx;
};

/* The heap holds borrowed node pointers, at most cap of them. */
struct timerheap {
    struct timerheap_node **nodes;
    size_t n, cap;
};

enum err timerheap_init(struct timerheap *h, size_t cap) WARN_UNUSED;
void timerheap_release(struct timerheap *h);

/* (Re)arm node for `when`; there must be room (at most cap nodes at a time). */
void timerheap_set(struct timerheap *h, struct timerheap_node *node, int64_t when);

/* Disarm node (nothing if it is not armed). */
void timerheap_clear(struct timerheap *h, struct timerheap_node *node);

/* The earliest node, or NULL if none is armed. */
struct timerheap_node *timerheap_first(const struct timerheap *h);

#endif
