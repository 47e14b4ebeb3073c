/*
 * `sitescout eval --all-topics` (docs/eval.md): the evaluation (eval/evaluate) of every
 * topic of a jobs file, each with its own training, and the summary that says how one
 * configuration does on topics it was not chosen on: the mean and worst website F1 over
 * all the topics evaluated and over the untuned ones.
 *
 * Topics with fewer relevant training websites (the job's relevant_sites) than
 * min_relevant are skipped. A topic whose job cannot be loaded or whose evaluation
 * fails keeps its row, with the error; the others still run.
 *
 * Ownership: evalall_run hands out a struct evalall the caller frees with evalall_free;
 * the options are borrowed for the call.
 */
#ifndef SITESCOUT_EVAL_EVALALL_H
#define SITESCOUT_EVAL_EVALALL_H

#include <stddef.h>

#include "common/err.h"
#include "eval/evaluate.h"
#include "job/jobspec.h"

#define EVALALL_DEFAULT_TUNED "sci.space,rec.motorcycles"

/* One topic's row. */
struct evalall_topic {
    char *topic;
    size_t relevant_sites;       /* the job's relevant_sites; 0 when the job could not be loaded */
    int tuned;                   /* named in the tuned list: the parameters were chosen on it */
    struct jobspec *job;         /* NULL when it could not be loaded */
    struct evaluate_result *res; /* NULL when the evaluation failed; its model is freed */
    char *error;                 /* why it failed, or NULL */
    int skipped;                 /* under min_relevant: only seen by the done callback */
    double seconds;
};

/* Mean and worst figures over a set of evaluated topics. */
struct evalall_part {
    size_t topics;
    double mean_f1, worst_f1;   /* website F1; NaN over no topic */
    const char *worst_topic;    /* borrowed from the rows; NULL over no topic */
    double mean_pages_per_site; /* mean of the topics' pages per website */
    double mean_home_f1;        /* homepage F1 */
    /* With the crawl model (evalall.judge): the mean and worst F1 of a crawl's rule, relevant
     * when the crawl model and the examination both say so (evaluate.h, with_examination);
     * NaN without it */
    double mean_rule_f1, worst_rule_f1;
    const char *worst_rule_topic;
};

struct evalall {
    enum evaluate_mode mode;
    int judge; /* the website verdicts: 0 the examination's, 1 the crawl model's (all topics') */
    int min_relevant;
    struct evalall_topic *topics; /* those run, in the file's order */
    size_t n_topics;
    char **skipped; /* topics under min_relevant */
    size_t n_skipped;
    size_t failed;               /* rows with an error */
    struct evalall_part all;     /* every topic evaluated */
    struct evalall_part untuned; /* those not tuned */
};

/* Called after each topic (i of n, counting from 0) with its row, skipped ones too. */
typedef void (*evalall_done_fn)(void *ctx, const struct evalall_topic *t, size_t i, size_t n);

struct evalall_opts {
    const char *job;         /* a jobs file, or its JSON text (eval/evaljob) */
    const char *const *sets; /* "KEY=VALUE" overrides for every topic */
    size_t n_sets;
    const char *tuned; /* comma-separated topics, or NULL: EVALALL_DEFAULT_TUNED */
    int min_relevant;
    struct evaluate_opts eval; /* mode, labels, fetch (the proxy), progress of each run */
    evalall_done_fn done;      /* or NULL */
    void *done_ctx;
};

/*
 * Run every topic. A failing topic is no error here (its row says why); errors are
 * those of the whole run: the topics cannot be listed, ERR_NOMEM, ERR_INTERRUPT from
 * the progress callback. A bad override sets *bad_set (a usage error).
 */
enum err evalall_run(const struct evalall_opts *o, struct evalall **out, int *bad_set) WARN_UNUSED;

/* Whether topic is one of the comma-separated list. */
int evalall_listed(const char *list, const char *topic);

/* Fill a->all and a->untuned from the rows (evalall_run does it). */
void evalall_summarize(struct evalall *a);

void evalall_free(struct evalall *a);

#endif
