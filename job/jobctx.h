/*
 * A job run's state, shared by the modules of job/ that run it (jobrun.c: the phases,
 * the crawl and the runners; jobtrain.c: training and the stored models). Private to
 * job/: nothing outside includes it.
 */
#ifndef SITESCOUT_JOB_JOBCTX_H
#define SITESCOUT_JOB_JOBCTX_H

#include <stdint.h>

#include "classifier/sitejudge.h"
#include "common/err.h"
#include "crawler/crawl.h"
#include "job/jobrun.h"

struct jobjudge_model;

struct ctx {
    struct store *s;
    int64_t id;
    const struct jobrun_options *o;
    struct jobspec *js;
    struct fetcher *f;
    struct pagecls *model;
    struct pagecls *home_model; /* the homepage classifier, for the strategies that use it */
    struct keyphrases *keys;    /* strategy relevance_degree's key phrases */
    struct weighttable *table;  /* strategy weight_table's topic weight table */
    struct ctxgraph *ctx;       /* strategy context_graph's layers and layer classifier */
    char worker[128];
    struct joblease_keeper *keeper;     /* renews the lease beside the run */
    int lease_lost;                     /* another worker took the job over: write nothing more */
    int helper;                         /* examines websites beside the job's lead (jobrun_help) */
    struct jobjudge_model *crawl_model; /* the lead's last judging's model (job/jobjudge.h) */
    int64_t crawl_model_id;             /* its row in `models` */
    struct pagevecs *judged_terms;      /* the judgings' pages, decoded once (pagevecs.h) */
    struct sitejudge_clusters judged_clusters; /* their "other" examples' clusters (sitejudge.h) */
    double crawl_model_checked;                /* monotime_s of the last look for a newer one */
    double next_poll;                          /* training: when to look at the job row again */
    enum crawl_stop train_stop;                /* a stop or pause asked for during training */
};

/*
 * The training phase: read the training websites (a checkpoint of each, so that a run
 * interrupted reads only the others again), fit and cross-validate the models, store
 * them, record the training websites and seed the border. ERR_INTERRUPT when a stop or
 * pause was asked for meanwhile (c->train_stop says which).
 */
enum err jobtrain_train(struct ctx *c) WARN_UNUSED;

/* The stored models of a job that has trained, for its crawl to go on (or be helped). */
enum err jobtrain_load(struct ctx *c) WARN_UNUSED;

#endif
