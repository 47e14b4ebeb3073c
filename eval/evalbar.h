/*
 * The progress bar of `sitescout eval` on stderr: one line per phase of evaluate_run,
 * redrawn at most ten times a second, drawn only when stderr is a terminal (not
 * TERM=dumb).
 */
#ifndef SITESCOUT_EVAL_EVALBAR_H
#define SITESCOUT_EVAL_EVALBAR_H

#include <stddef.h>

#include "eval/evaluate.h"

struct evalbar {
    int on;
    int drawn;
    double last;
    enum evaluate_phase phase;
};

/* Off unless stderr is a terminal. */
void evalbar_init(struct evalbar *b);

/* An evaluate_progress_fn; ctx is the struct evalbar. Never stops the run. */
int evalbar_update(void *ctx, enum evaluate_phase phase, size_t done, size_t total, size_t pages);

/* End the bar's line. */
void evalbar_end(struct evalbar *b);

#endif
