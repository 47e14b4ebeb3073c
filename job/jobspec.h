/*
 * Crawl job bodies: {topic, relevant_sites, other_sites, start_sites, params{...}}.
 * Parses and validates a body (or one entry of a jobs file keyed by topic, such as
 * ../shared/webs/dev.jobs.json) into a struct jobspec whose params have every default
 * filled in. Errors name the offending field ("relevant_sites[3]: ...",
 * "params.p_threshold: ...") so that an API or CLI user knows what to fix.
 *
 * Ownership: jobspec_parse / jobspec_load hand out a struct jobspec the caller frees
 * with jobspec_free. All strings in it belong to it.
 */
#ifndef SITESCOUT_JOB_JOBSPEC_H
#define SITESCOUT_JOB_JOBSPEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

#define JOBSPEC_MAX_BODY  (16u << 20) /* bytes of a job body or jobs file */
#define JOBSPEC_MAX_SITES 100000      /* per list */
#define JOBSPEC_MAX_TOPIC 256         /* bytes */
#define JOBSPEC_MIN_SITES 2           /* relevant and other websites each, at least */

/* The crawl strategies (job param strategy): the two-level crawler and the baselines.
 * Each has a row in job/jobstrategy.c's table: its name, what it reads and needs. */
enum jobspec_strategy {
    JOBSPEC_WEBSITE,  /* the focused website crawler (paper §4) */
    JOBSPEC_PAGE,     /* focused page crawler + website post-processing (paper §5.1, Fig. 5) */
    JOBSPEC_BFS,      /* breadth-first page crawler + the same post-processing */
    JOBSPEC_HOMEPAGE, /* website-level crawl judging each site by its homepage alone */
    JOBSPEC_PAGE_HOMEPAGE,    /* focused page crawler + homepage post-processing (paper §3.2) */
    JOBSPEC_BESTFIRST,        /* page crawler, out-links take the parent's score (seed 004 §6.3) */
    JOBSPEC_HISTORY,          /* page crawler, history-path distance (seed 004 §6.5, eq. 6.1) */
    JOBSPEC_HOTWORDS,         /* page crawler, hot-word anchors first (seed 000 §3.1) */
    JOBSPEC_RELEVANCE_DEGREE, /* page crawler, degree of relevance (seed 001 §2.1, eq. 1) */
    JOBSPEC_WEIGHT_TABLE,     /* page crawler, TF-IDF weight table + link score (seed 002) */
    JOBSPEC_LEARNING_ANCHOR,  /* page crawler, anchor classifier learned online (seed 004 §6.6) */
    JOBSPEC_CONTEXT_GRAPH,    /* page crawler, context-graph layers (seed 000 §3.2, 004 §6.4) */
    JOBSPEC_N_STRATEGIES
};

/*
 * The tunable parameters of a job (and of `sitescout eval`). Each has a default, a
 * range and a name in the body's "params" object; jobspec_params_set applies one
 * `key=value` the same way. To add one: a field here, a row in jobspec.c's table.
 */
struct jobspec_params {
    double p_threshold;       /* website classifier stops at max_k Pr[C_k|W] >= this; 0.9 */
    int train_pages_per_site; /* k: first k BFS pages of each training website; 25 */
    int centroids_per_class;  /* k-means centroids per class at most (pagecls default, 4) */
    int sites_per_centroid;   /* one centroid per this many training websites of a class
                                 (pagecls default, 15; 0: always centroids_per_class) */
    int max_pages_per_site;   /* hard cap of fetches of the internal crawler; 25 */
    int max_pages_to_decide;  /* website classification budget: undecided after this many
                                 fetches, a site is classified by its posterior. 0 (default):
                                 no budget in a crawl; `sitescout eval` takes 0 as 7 */
    int min_pages_relevant;   /* an undecided website needs this many classified pages to
                                 be judged relevant (sitecls_relevant_min); 2 */
    double prior_target;      /* Pr[C_target] to start from; 0.5 */
    int politeness_delay_ms;  /* pause between two requests to one host; 1000 */
    int concurrency;          /* transfers (= websites) in flight at once; 64 */
    int cv_folds;             /* folds of the cross-validations; 10 */
    int64_t seed;             /* k-means seeding and fold shuffles (pagecls default) */
    /* The crawl (a job): */
    int strategy;               /* enum jobspec_strategy */
    int edge_weights;           /* 0 global, 1 local, 2 combined (enum edges_weights); 2 */
    double l_threshold;         /* LinkRank to reach after classification; 0 = stop there; 10 */
    double c;                   /* LinkRank's constant (>= 1); 1 */
    int64_t max_pages;          /* stop after this many pages downloaded; 0 = no limit */
    int64_t max_relevant_sites; /* stop after this many relevant websites; 0 = no limit */
    double max_seconds;         /* stop after this long; 0 = no limit */
    int64_t pprs_window;        /* pages in the windowed rates; 1000 */
    double pprs_limit;          /* stop when the windowed pprs exceeds this; 0 = never */
    int prior;                  /* 0 fixed (prior_target throughout), 1 harvest (paper); 0 */
    int prior_sites;            /* harvest: prior_target counts as this many sites; 10 */
    int calibration;            /* page confidences: 0 none (the paper's), 1 platt; 1 */
    int linkrank_links;         /* LinkRank counts 0 all transversal links (paper), 1 new ones */
    int deepen_sites;           /* relevant websites kept for a deeper read; 0 = none; 4096 */
    int linkrank_threshold;     /* 0 growing (as the border runs low), 1 fixed (paper §4.3.4:
                                 * l_threshold throughout, no deeper reads); 0 */
    int warc;       /* archive every fetch as WARC (needs a --warc-dir); false (JSON true/false) */
    int classifier; /* the page classifier: 0 knn (centroids, the paper's), 1 svm; 0 */
    double svm_c;   /* svm: the cost C (class-balanced); 0.1 */
    /* Who gives the verdicts (issue 30, job/jobjudge.h): 0 examination (the page
     * classifier while a website is read: the paper's), 1 crawl_model (a model learnt from
     * the crawl's pages judges every examined website again, at judge_pages pages and
     * each doubling of them, and at the crawl's end); 1 */
    int judge;
    int64_t judge_pages;     /* crawl_model: the first judging at this many pages, then at each
                              * doubling and at the end; a crawl that read fewer pages is not
                              * judged (too little of the web to learn from); 0 = only at the
                              * end, whatever it read; 500 */
    int64_t judge_spy_pages; /* crawl_model: from this many pages on, the judgings while the
                              * crawl runs choose their threshold with spies, as the end's
                              * does, with 20 relevant examples or more (job/jobjudge.h,
                              * spy_pages); 0 = only the end's; 4000 */
};

/* Name of a choice parameter's value, e.g. ("edge_weights", 2) -> "combined"; or NULL. */
const char *jobspec_choice_name(const char *param, int value);

/* The name of the i-th parameter (in the table's order), or NULL past the last. */
const char *jobspec_param_name(size_t i);

/* Is the strategy a page crawler (crawler/pagecrawl) rather than a website-level one? */
int jobspec_strategy_pages(int strategy);

/* Does the strategy judge websites by their homepage (and so need a homepage model)? */
int jobspec_strategy_homepages(int strategy);

/* Why a strategy cannot work with a page classifier (enum pagecls_kind), or NULL when it
 * can (job/jobstrategy.c's table says which go together). */
const char *jobspec_strategy_refuses(int strategy, int classifier);

/* Every parameter at its default. */
void jobspec_params_default(struct jobspec_params *p);

/*
 * Set one parameter from its text form (as in `--set key=value`), with the same
 * range checks as the JSON body. ERR_NOTFOUND for an unknown key, ERR_INVAL for a
 * bad value; err_msg() names the key ("params.p_threshold: ..."). Whether the
 * parameters go together is jobspec_params_check's, once all are set.
 */
enum err jobspec_params_set(struct jobspec_params *p, const char *key,
                            const char *value) WARN_UNUSED;

/*
 * Do the parameters go together? A strategy that cannot work with the page classifier
 * (hotwords and context_graph need the kNN: job/jobstrategy.c) is ERR_INVAL, err_msg()
 * naming the field and the reason ("params.classifier: svm does not work with strategy
 * hotwords: ..."). jobspec_parse and jobspec_select check every body; a caller that sets
 * parameters one by one checks once it has set them.
 */
enum err jobspec_params_check(const struct jobspec_params *p) WARN_UNUSED;

/* Append the parameters as a JSON object (every key, defaults included). */
enum err jobspec_params_json(const struct jobspec_params *p, struct buf *out) WARN_UNUSED;

struct jobspec {
    char *topic;
    /* Homepages "scheme://host[:port]/", normalised; a site appears in one list at most. */
    char **relevant_sites;
    size_t n_relevant;
    char **other_sites;
    size_t n_other;
    char **start_sites;
    size_t n_start;
    struct jobspec_params params;
};

/*
 * Parse a job body (JSON text of len bytes). Required: "topic" (non-empty string),
 * "relevant_sites" and "other_sites" (arrays of at least one http(s) URL; each is
 * reduced to its website's homepage). Optional: "start_sites" (array, default
 * empty), "params" (object; unknown keys are errors). Any other member is an error.
 * ERR_PARSE for malformed JSON, ERR_INVAL for a bad field.
 */
enum err jobspec_parse(const char *json, size_t len, struct jobspec **out) WARN_UNUSED;

/*
 * Parse the body of seeds added to a job (POST /api/jobs/{id}/seeds): {"start_sites":
 * [URL, ...]}, at least one, each as in a job body (reduced to its homepage, no website
 * twice). *sites (n of them) is the caller's (jobspec_free_sites). ERR_PARSE, ERR_INVAL.
 */
enum err jobspec_parse_seeds(const char *json, size_t len, char ***sites, size_t *n) WARN_UNUSED;
void jobspec_free_sites(char **sites, size_t n);

/* Is homepage (normalised, as the lists hold them) one of j's websites? In which list:
 * "relevant_sites", "other_sites", "start_sites", or NULL. */
const char *jobspec_site_list(const struct jobspec *j, const char *homepage);

/*
 * Read a file holding either one job body, or an object of job bodies keyed by topic
 * (a jobs file). For a jobs file, `topic` picks the entry; it may be NULL when the
 * file has exactly one. For a single body, `topic` (if given) must match its topic.
 * ERR_NOTFOUND when the topic is not in the file (err_msg lists the topics there).
 */
enum err jobspec_load(const char *path, const char *topic, struct jobspec **out) WARN_UNUSED;

/* The same on JSON text in memory; `name` stands for the file in messages. */
enum err jobspec_select(const char *json, size_t len, const char *name, const char *topic,
                        struct jobspec **out) WARN_UNUSED;

/*
 * The job as a canonical body: every list normalised and every parameter spelled out
 * (defaults and overrides included), so that parsing it again gives the same job.
 */
enum err jobspec_to_json(const struct jobspec *j, struct buf *out) WARN_UNUSED;

void jobspec_free(struct jobspec *j);

struct pagecls_params;

/* The page classifier parameters a job's params give (defaults, then centroids, seed). */
void jobspec_pagecls_params(const struct jobspec_params *jp, struct pagecls_params *out);

#endif
