/*
 * A crawl job's relevant websites scored against ground-truth labels: precision and
 * recall of the websites it found (start and training sites excluded) against the
 * relevant `test` sites of the topic, and how many of them were judged from a single
 * page. Shared by `sitescout crawl --labels` and `sitescout experiment`. The F1 of
 * precision and recall is evalstats_f1_pr.
 */
#ifndef SITESCOUT_EVAL_JOBSCORE_H
#define SITESCOUT_EVAL_JOBSCORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct store;
struct labels;

/* A website the job judged relevant, for curves by pages (eval/foundcurve). */
struct jobscore_verdict {
    int64_t pages; /* the job's pages downloaded when it was judged relevant (found_pages) */
    int start;     /* a start site: given, not found */
    int truly;     /* a relevant test site of the topic by the labels */
};

struct jobscore {
    size_t found;       /* relevant websites found (role "discovered": start sites were given) */
    size_t hits;        /* ... that the labels call relevant test sites of the topic */
    size_t truth;       /* relevant test sites of the topic in the labels */
    size_t single_page; /* found websites judged from one page (pages_visited = 1) */
    double precision;   /* hits / found; NaN when nothing was found or without labels */
    double recall;      /* hits / truth; NaN when the labels have no such site or none given */
    int64_t *hit_pages; /* for each hit, the job's pages downloaded when it was found,
                         * ascending (unknown ones left out); malloc'd: jobscore_release */
    size_t n_hit_pages;
    struct jobscore_verdict *verdicts; /* every relevant website whose found_pages is known,
                                        * start sites included, ascending by pages;
                                        * malloc'd: jobscore_release */
    size_t n_verdicts;
};

/*
 * Score job `job` of `topic` (relevant_websites) against `labels`, which may be NULL
 * (then only found and single_page are counted). Errors of the database are returned
 * and *out is then all zero with NaN rates.
 */
enum err jobscore_get(struct store *s, int64_t job, const struct labels *labels, const char *topic,
                      struct jobscore *out) WARN_UNUSED;

/* A verdict to score as if it were stored: a website the job examined, its role ("start"
 * or "discovered") and whether it is relevant. */
struct jobscore_change {
    const char *host;
    const char *role;
    int relevant;
};

/*
 * As jobscore_get, with the stored verdicts of the websites in c[0..n_c) replaced by c's
 * (a dry run's, `sitescout judge --dry-run --labels`); c may be NULL when n_c is 0. A
 * website c makes relevant that was not has no known found_pages (left out of hit_pages
 * and verdicts) nor pages_visited (not single_page).
 */
enum err jobscore_get_changed(struct store *s, int64_t job, const struct labels *labels,
                              const char *topic, const struct jobscore_change *c, size_t n_c,
                              struct jobscore *out) WARN_UNUSED;

/* Free hit_pages and verdicts. */
void jobscore_release(struct jobscore *sc);

/*
 * Pages downloaded until the job had found the share `recall` of the relevant test
 * sites (recall against pages, from hit_pages); -1 if it never got there.
 */
int64_t jobscore_pages_to_recall(const struct jobscore *sc, double recall);

#endif
