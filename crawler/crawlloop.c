/* The refill loop: submit, wait, feed a bounded batch, tick. */
#include "crawler/crawlloop.h"

#include "crawler/fetch.h"

/* Feed the result that arrived and those already waiting, CRAWLLOOP_BATCH at most. */
static enum err feed_batch(struct fetcher *f, const struct crawlloop_hooks *h, void *ctx,
                           struct fetch_result *first)
{
    struct fetch_result *r = first;
    enum err e;
    int fed = 0;
    do {
        e = h->feed(ctx, r);
        fetch_result_free(r);
    } while (!e && ++fed < CRAWLLOOP_BATCH && fetcher_next(f, 0, &r) == ERR_OK);
    return e;
}

enum err crawlloop_run(struct fetcher *f, const struct crawlloop_hooks *h, void *ctx)
{
    for (;;) {
        enum err e = h->refill ? h->refill(ctx) : ERR_OK;
        if (e)
            return e;
        if (h->finished(ctx))
            return ERR_OK;
        /* Nothing outstanding: the wait is the pause before the next look. */
        struct fetch_result *r = NULL;
        if (fetcher_next(f, CRAWLLOOP_WAIT_MS, &r) == ERR_OK && (e = feed_batch(f, h, ctx, r)))
            return e;
        if (h->tick && (e = h->tick(ctx)))
            return e;
    }
}
