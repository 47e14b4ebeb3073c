/* The replay server's timers: a binary min-heap of embedded deadline nodes, O(log n) each way. */
#include "replay/timerheap.h"

#include <stdlib.h>

enum err timerheap_init(struct timerheap *h, size_t cap)
{
    h->n = 0;
    h->cap = cap;
    h->nodes = calloc(cap, sizeof *h->nodes);
    return h->nodes ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
}

void timerheap_release(struct timerheap *h)
{
    free(h->nodes);
    h->nodes = NULL;
    h->n = h->cap = 0;
}

static void timerheap_place(struct timerheap *h, size_t i, struct timerheap_node *node)
{
    h->nodes[i] = node;
    node->idx = i;
}

static void timerheap_up(struct timerheap *h, size_t i)
{
    struct timerheap_node *node = h->nodes[i];
    while (i > 0 && h->nodes[(i - 1) / 2]->deadline > node->deadline) {
        timerheap_place(h, i, h->nodes[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    timerheap_place(h, i, node);
}

static void timerheap_down(struct timerheap *h, size_t i)
{
    struct timerheap_node *node = h->nodes[i];
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= h->n)
            break;
        if (k + 1 < h->n && h->nodes[k + 1]->deadline < h->nodes[k]->deadline)
            k++;
        if (h->nodes[k]->deadline >= node->deadline)
            break;
        timerheap_place(h, i, h->nodes[k]);
        i = k;
    }
    timerheap_place(h, i, node);
}

void timerheap_clear(struct timerheap *h, struct timerheap_node *node)
{
    size_t i = node->idx;
    if (i == TIMERHEAP_NONE)
        return;
    node->idx = TIMERHEAP_NONE;
    struct timerheap_node *last = h->nodes[--h->n];
    if (i == h->n)
        return;
    timerheap_place(h, i, last);
    timerheap_up(h, i);
    timerheap_down(h, last->idx);
}

void timerheap_set(struct timerheap *h, struct timerheap_node *node, int64_t when)
{
    node->deadline = when;
    if (node->idx == TIMERHEAP_NONE) {
        timerheap_place(h, h->n++, node);
        timerheap_up(h, node->idx);
    } else {
        timerheap_up(h, node->idx);
        timerheap_down(h, node->idx);
    }
}

struct timerheap_node *timerheap_first(const struct timerheap *h)
{
    return h->n ? h->nodes[0] : NULL;
}
