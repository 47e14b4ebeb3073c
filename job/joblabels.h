/*
 * What a job does with its user's labels (issue 31, store/labelstore.h): it judges its
 * websites again with a crawl model that learns from them (job/jobjudge.h). A running
 * job's lead does it in its crawl (job/jobrun.c); a job that does not run is judged by
 * whoever calls joblabels_judge (`serve`'s label judge, `sitescout label`).
 */
#ifndef SITESCOUT_JOB_JOBLABELS_H
#define SITESCOUT_JOB_JOBLABELS_H

#include <stdint.h>

#include "common/err.h"
#include "job/jobjudge.h"

struct store;
struct labelstore_result;

/* Labels are judged once the last of them is this old: a few given together, one judging. */
#define JOBLABELS_SETTLE_MS 500

/*
 * Give host of job the label (store/labelstore.h: LABELSTORE_RELEVANT, _NOT, or _CLEAR to
 * take it back), as labelstore_set does; then, for a website the crawl examined, its
 * links weigh by its new confidence (1 or 0 by the label; taken back, the one it has
 * again), and the border websites they lead to are ranked anew: a website labelled not
 * relevant no longer pulls the crawl its way.
 */
enum err joblabels_set(struct store *s, int64_t job, const char *host, int label,
                       struct labelstore_result *out) WARN_UNUSED;

/*
 * The parameters of a judging of job: the defaults; at the crawl's end (final), the
 * spies choose the threshold; otherwise (while the crawl runs, a label's judging) one fit
 * at the threshold they chose last (0.1 before any, joblabels.c): its early_threshold,
 * spy_pages INT64_MAX (a crawl's judging may lower it: job/jobrun.c). Every judging of a
 * job judges, whatever the pages read (the crawl chooses when).
 */
enum err joblabels_params(struct store *s, int64_t job, int final,
                          struct jobjudge_params *p) WARN_UNUSED;

/*
 * Whether job judges its websites with a crawl model (params.judge crawl_model and the
 * website crawler, strategy 'website'): a job that does not takes its labels as
 * verdicts only.
 */
enum err joblabels_learns(struct store *s, int64_t job, int *learns) WARN_UNUSED;

/*
 * If job's labels changed since its last judging, the last settle_ms ago or more, judge
 * its websites again (one fit, at the threshold the last spies chose: a label shows
 * within seconds) and mark the labels judged; *judged 1 then, r
 * the judging's figures (r->model_id 0 for a job that does not learn). For a job that
 * does not run: its lead judges a running job (it polls; a judging here would race it).
 */
enum err joblabels_judge(struct store *s, int64_t job, int settle_ms, int *judged,
                         struct jobjudge_result *r) WARN_UNUSED;

#endif
