/*
 * `sitescout eval` (docs/eval.md): load the job and labels, run the website classifier
 * evaluation (eval/evaluate) with a progress bar (eval/evalbar), print the table
 * (eval/evaltable), write the JSON report (eval/evaljson) and store the page
 * classifier when asked. With all_topics, every topic of the jobs file (eval/evalall,
 * its table eval/evalalltable) with a progress line per topic on stderr.
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
    int all_topics;     /* every topic of the jobs file (topic and save_model unset) */
    int min_relevant;   /* all_topics: skip topics with fewer relevant training websites */
    const char *tuned;  /* all_topics: comma-separated topics tuned on; NULL: the default */
};

enum evalcmd_end {
    EVALCMD_DONE,
    EVALCMD_USAGE,  /* a bad --set (err_msg says why) */
    EVALCMD_FAILED, /* err_msg says why; with all_topics also when a topic failed */
};

enum evalcmd_end evalcmd_run(const struct evalcmd_opts *o);

#endif
