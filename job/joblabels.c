/* What a job does with its user's labels (joblabels.h). */
#include "job/joblabels.h"

#include <string.h>

#include "store/judgestore.h"
#include "store/labelstore.h"
#include "store/store.h"
#include "store/sqlnum.h"

enum err joblabels_params(struct store *s, int64_t job, int final, struct jobjudge_params *p)
{
    jobjudge_params_default(p);
    p->min_pages = 0;
    if (final)
        return ERR_OK;
    /* During the crawl, one fit: the threshold the last spies chose (the shrinkage's
     * prior before any); the spies (three fits more) choose again at the end. */
    struct judgestore_summary last;
    enum err e = judgestore_summary(s, job, &last);
    if (e)
        return e;
    p->threshold = last.models && last.threshold > 0 ? last.threshold : p->spy_prior;
    p->spy_folds = 0;
    return ERR_OK;
}

enum err joblabels_learns(struct store *s, int64_t job, int *learns)
{
    *learns = 0;
    char j[24];
    const char *p[] = {NUM(j, job)};
    struct store_rows *r;
    enum err e = store_query(s,
                             /* jobrun_crawl: only the website crawler judges */
                             "SELECT params->>'judge' = 'crawl_model'"
                             " AND params->>'strategy' = 'website'"
                             " FROM jobs WHERE id = $1",
                             1, p, &r);
    if (e)
        return e;
    if (store_rows_count(r) != 1)
        e = err_set(ERR_NOTFOUND, "no job %lld", (long long)job);
    else
        *learns = strcmp(store_rows_get(r, 0, 0), "t") == 0;
    store_rows_free(r);
    return e;
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
        e = joblabels_params(s, job, 1, &p);
    if (!e && learns)
        e = jobjudge_run(s, job, &p, 0, r);
    if (e == ERR_DB)
        return e; /* pending still: judged when the database answers */
    enum err m = labelstore_judged(s, job, &mark); /* a judging that failed would fail again */
    *judged = !e && !m;
    return e ? e : m;
}
