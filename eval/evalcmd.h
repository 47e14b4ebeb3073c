/*
 * `sitescout eval` (docs/eval.md): load the job and labels, run the website classifier
 * evaluation (eval/evaluate) with a progress bar (eval/evalbar), print the table
 * (eval/evaltable), write the JSON report (eval/evaljson) and store the page
 * classifier when asked.
 *
 * Ownership: the options are borrowed for the call.
 */
#ifndef SITESCOUT_EVAL_EVALCMD_H
#define SITESCOUT_EVAL_EVALCMD_H

#include <stddef.h>

#include "common/err.h"
#include "eval/evaluate.h"

struct store;

struct evalcmd_opts {
    const char *job;    /* a job or jobs file, or the JSON text itself when it starts with '{' */
    const char *topic;  /* the entry of a jobs file, or NULL */
    const char *labels; /* ground truth, or NULL (required for EVALUATE_HELDOUT) */
    const char *proxy;  /* or NULL */
    enum evaluate_mode mode;
    const char *report;      /* a JSON report to write, or NULL */
    const char *const *sets; /* "KEY=VALUE" job parameter overrides */
    size_t n_sets;
    int save_model;     /* store the page classifier trained on all training websites */
    const char *db_url; /* for save_model; NULL: the default one (store/dbopen) */
};

enum evalcmd_end {
    EVALCMD_DONE,
    EVALCMD_USAGE,  /* a bad --set (err_msg says why) */
    EVALCMD_FAILED, /* err_msg says why */
};

enum evalcmd_end evalcmd_run(const struct evalcmd_opts *o);

#endif
