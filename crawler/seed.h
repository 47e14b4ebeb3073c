/*
 * A job's border before its crawl (paper §4.3, DESIGN §3.4): the training websites
 * recorded as examined (their verdicts known, not guessed; their pages classified by
 * the trained model), the links of the relevant ones seeding the border weighted as
 * the crawl will weigh links, and the start sites placed above every other rank so
 * that they are examined first. Re-running it for a job changes nothing already there.
 */
#ifndef SITESCOUT_CRAWLER_SEED_H
#define SITESCOUT_CRAWLER_SEED_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "crawler/edges.h"

struct store;
struct trainset;
struct pagecls;

/* A start site's rank: above any average of weights in [0, 1]. */
#define SEED_START_RANK 2.0

/*
 * Record the training websites of ts that gave pages as examined in job: the first
 * n_relevant relevant, the others not (known, not guessed), their pages classified by
 * model; the relevant ones' transversal links join the border, weighted by mode.
 */
enum err seed_training_sites(struct store *s, int64_t job, const struct trainset *ts,
                             size_t n_relevant, const struct pagecls *model,
                             enum edges_weights mode) WARN_UNUSED;

/* Put the start sites (absolute URLs; each stands for its website) on the border first. */
enum err seed_start_sites(struct store *s, int64_t job, char *const *urls, size_t n) WARN_UNUSED;

#endif
