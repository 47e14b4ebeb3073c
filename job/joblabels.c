/* What a job does with its user's labels (joblabels.h). */
#include "job/joblabels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/edges.h"

#include "store/judgestore.h"
#include "store/labelstore.h"
#include "store/store.h"

/*
 * The threshold of a judging that does not choose with spies (while the crawl runs, or
 * for a label) before any spies chose one (a job judged again keeps the last spies').
 * Spies at every judging were measured too (session 16, leave-out spies): the same
 * unlabelled figures, but with a simulated user's labels few-shot precision 0.954
 * against 0.985 with this threshold while the crawl runs (docs/benchmarks/feedback.md).
 */
#define RUNNING_THRESHOLD 0.1

enum err joblabels_params(struct store *s, int64_t job, int final, struct jobjudge_params *p)
{
    jobjudge_params_default(p);
    p->min_pages = 0;
    if (final)
        return ERR_OK;
    struct judgestore_summary last;
    enum err e = judgestore_summary(s, job, &last);
    if (e)
        return e;
    p->early_threshold = last.models && last.threshold > 0 ? last.threshold : RUNNING_THRESHOLD;
    p->spy_pages = INT64_MAX; /* one fit at early_threshold, whatever the crawl read */
    return ERR_OK;
}

enum err joblabels_learns(struct store *s, int64_t job, int *learns)
{
    return judgestore_learns(s, job, learns);
}

enum err joblabels_judge(struct store *s, int64_t job, int settle_ms, int *judged,
                         struct jobjudge_result *r)
{
    *judged = 0;
    *r = (struct jobjudge_result){0};
    int pending, learns;
    struct labelstore_mark mark;
    enum err e = labelstore_pending(s, job, settle_ms, &pending, &mark);
    if (e || !pending)
        return e;
    e = joblabels_learns(s, job, &learns);
    struct jobjudge_params p;
    if (!e && learns)
        e = joblabels_params(s, job, 0, &p); /* one fit: a label shows within seconds */
    if (!e && learns)
        e = jobjudge_run(s, job, &p, 0, r);
    if (e == ERR_DB)
        return e; /* pending still: judged when the database answers */
    enum err m = labelstore_judged(s, job, &mark); /* a judging that failed would fail again */
    *judged = !e && !m;
    return e ? e : m;
}

/* Host's links weighed by confidence conf (crawler/edges.h), the border ranked anew. */
static enum err reweigh(struct store *s, int64_t job, const char *host, double conf)
{
    char mode[16];
    struct store_rows *r;
    enum err e = labelstore_links(s, job, host, mode, sizeof mode, &r);
    if (e)
        return e;
    int n = store_rows_count(r), m = edges_weights_parse(mode);
    char **dsts = calloc(n ? (size_t)n : 1, sizeof *dsts);
    double *w = calloc(n ? (size_t)n : 1, sizeof *w);
    if (!dsts || !w)
        e = err_set(ERR_NOMEM, "out of memory");
    for (int i = 0; !e && i < n; i++) {
        dsts[i] = (char *)store_rows_get(r, i, 0);
        w[i] = edges_weight(m < 0 ? EDGES_COMBINED : (enum edges_weights)m, conf,
                            store_rows_double(r, i, 1, 0), (int)store_rows_i64(r, i, 2, 0));
    }
    if (!e)
        e = labelstore_reweigh(s, job, host, dsts, w, (size_t)n);
    free(dsts);
    free(w);
    store_rows_free(r);
    return e;
}

enum err joblabels_set(struct store *s, int64_t job, const char *host, int label,
                       struct labelstore_result *out)
{
    enum err e = labelstore_set(s, job, host, label, out);
    if (e || !out->changed || strcmp(out->state, "examined") != 0 || isnan(out->confidence))
        return e;
    return reweigh(s, job, host, out->confidence);
}
