/*
 * The crawl strategies (job parameter strategy, enum jobspec_strategy) as one table: each
 * strategy's name, what it crawls and reads, its frontier order, the model it trains
 * beside the page classifier and the page classifiers it cannot work with. Everything that
 * differs between strategies is read from here: the job spec's names and its refusals
 * (jobspec.c), the crawl's set-up (jobrun.c), training and loading (jobtrain.c). Adding a
 * strategy is a value of enum jobspec_strategy and a row of jobstrategy.c's table.
 *
 * Private to job/ (it names crawler/ types): the layers above read the names and flags
 * through job/jobspec.h.
 */
#ifndef SITESCOUT_JOB_JOBSTRATEGY_H
#define SITESCOUT_JOB_JOBSTRATEGY_H

#include <stddef.h>

#include "crawler/pageorder.h"

/* struct jobstrategy's flags. */
enum {
    /* A page crawler (crawler/pagecrawl) with website post-processing; otherwise a
     * website-level crawl (crawler/extcrawl). */
    JOBSTRATEGY_PAGES = 1u << 0,
    /* Websites are judged by their homepage: a homepage classifier is trained. A
     * website-level one reads each website's homepage alone. */
    JOBSTRATEGY_HOMEPAGES = 1u << 1,
    /* Anchors are scored against the hot words of the page model (classifier/hotwords.h). */
    JOBSTRATEGY_HOT_WORDS = 1u << 2,
    /* An anchor classifier learns from the crawl's verdicts (classifier/anchorcls.h). */
    JOBSTRATEGY_LEARN_ANCHORS = 1u << 3,
    /* Links within a host wait below every link to another host (seed 001 follows only
     * the latter, and stops where they run out: crawler/pagecrawl.h own_host_last). */
    JOBSTRATEGY_OWN_HOST_LAST = 1u << 4,
};

/* The model a strategy trains from the training pages beside the page classifier, stored
 * as a model kind of its own (store/models.h) and loaded when the job goes on. */
enum jobstrategy_model {
    JOBSTRATEGY_NO_MODEL,
    JOBSTRATEGY_KEYPHRASES,  /* classifier/keyphrases.h */
    JOBSTRATEGY_WEIGHTTABLE, /* classifier/weighttable.h */
    JOBSTRATEGY_CTXGRAPH,    /* classifier/ctxgraph.h */
    JOBSTRATEGY_N_MODELS
};

struct jobstrategy {
    const char *name;   /* the job parameter's value */
    unsigned flags;     /* JOBSTRATEGY_* */
    pageorder_fn order; /* a page crawler's frontier order; NULL for a website-level crawl */
    enum jobstrategy_model model;
    /* The page classifiers (bits 1 << enum pagecls_kind) the strategy cannot work with,
     * and why, for the job spec's refusal ("... has no centroids"). */
    unsigned refuses;
    const char *refuses_why;
};

/* The row of strategy (an enum jobspec_strategy), or NULL for a value past the last. */
const struct jobstrategy *jobstrategy_get(size_t strategy);

#endif
