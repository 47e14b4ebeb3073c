/* The progress bar of `sitescout eval` on stderr. */
#include "eval/evalbar.h"

#include "common/monotime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int evalbar_update(void *ctx, enum evaluate_phase phase, size_t done, size_t total, size_t pages)
{
    struct evalbar *b = ctx;
    if (!b->on)
        return 0;
    double now = monotime_s();
    int finished = done >= total;
    if (phase == b->phase && !finished && now - b->last < 0.1)
        return 0;
    if (phase != b->phase && b->drawn)
        fputc('\n', stderr);
    b->phase = phase;
    b->last = now;
    static const char *const names[] = {"training pages", "training models", "classifying"};
    static const char *const units[] = {"pages", "models", "sites"};
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    int fill = total ? (int)((double)WIDTH * (double)done / (double)total) : 0;
    fill = fill > WIDTH ? WIDTH : fill;
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, '.', (size_t)(WIDTH - fill));
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r%-16s [%s] %zu/%zu %s, %zu fetches\033[K", names[phase], bar, done, total,
            units[phase], pages);
    fflush(stderr);
    b->drawn = 1;
    return 0;
}

void evalbar_end(struct evalbar *b)
{
    if (b->on && b->drawn)
        fputc('\n', stderr);
    b->drawn = 0;
}

void evalbar_init(struct evalbar *b)
{
    memset(b, 0, sizeof *b);
    const char *term = getenv("TERM");
    b->on = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
}
