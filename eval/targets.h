/*
 * Targets for the figures of `sitescout experiment`, read from a file the user gives
 * (`--targets FILE`): the program measures, the file says what counts as meeting a
 * target. One target a line, `FIGURE OP VALUE`, e.g. `pprs_ratio <= 0.6`: FIGURE is a
 * named figure of eval/reportfigs, OP one of <= >= < >, VALUE a finite number; blank
 * lines and lines starting with # are skipped. At most TARGETS_MAX lines of at most
 * TARGETS_LINE_MAX bytes.
 *
 * Ownership: targets_load hands out a struct targets the caller frees with targets_free.
 */
#ifndef SITESCOUT_EVAL_TARGETS_H
#define SITESCOUT_EVAL_TARGETS_H

#include <stddef.h>

#include "common/err.h"

#define TARGETS_MAX      64
#define TARGETS_LINE_MAX 256

enum targets_op { TARGETS_LE, TARGETS_GE, TARGETS_LT, TARGETS_GT };

struct targets_item {
    size_t figure; /* enum reportfigs_named */
    enum targets_op op;
    double value;
    char value_text[32]; /* VALUE as written */
};

struct targets {
    char *path; /* as given to targets_load */
    struct targets_item items[TARGETS_MAX];
    size_t n; /* in file order */
};

/*
 * Read path. ERR_IO when it cannot be read; ERR_PARSE with "PATH:LINE: why" for a bad
 * line, an unknown figure (the message lists the figures) or too many lines.
 */
enum err targets_load(const char *path, struct targets **out) WARN_UNUSED;

void targets_free(struct targets *t);

enum targets_verdict { TARGETS_HOLDS, TARGETS_FAILS, TARGETS_UNDECIDED };

/* measured against the target; TARGETS_UNDECIDED when measured is NaN. */
enum targets_verdict targets_check(const struct targets_item *it, double measured);

/* "holds", "does not hold", "cannot be decided". */
const char *targets_verdict_name(enum targets_verdict v);

/* "<=", ">=", "<", ">". */
const char *targets_op_name(enum targets_op op);

#endif
