/* `sitescout eval`: website classifier against homepage classifier (the paper's Table 2). */
#include "eval/evalcmd.h"

#include <stdio.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "common/buf.h"
#include "eval/evalall.h"
#include "eval/evalalltable.h"
#include "eval/evalbar.h"
#include "eval/evaljob.h"
#include "eval/evaljson.h"
#include "eval/evaltable.h"
#include "eval/labels.h"
#include "job/jobspec.h"
#include "store/dbopen.h"
#include "store/models.h"
#include "store/store.h"

static enum err save_model(const struct evalcmd_opts *o, const struct jobspec *job,
                           const struct evaluate_result *r, int64_t *id)
{
    struct buf bytes, cv, params;
    buf_init(&bytes, 0);
    buf_init(&cv, 0);
    buf_init(&params, 0);
    struct store *s = NULL;
    const struct pagecls_cv *c = pagecls_get_cv(r->model);
    enum err e = pagecls_serialize(r->model, &bytes);
    if (!e)
        e = buf_appendf(&cv,
                        "{\"folds\":%u,\"sites\":%u,\"pages\":%llu,\"correct\":%.17g,"
                        "\"accuracy\":%.17g,\"p_err\":%.17g}",
                        c->folds, c->sites, (unsigned long long)c->pages, c->correct, c->accuracy,
                        c->p_err);
    if (!e)
        e = jobspec_params_json(&job->params, &params);
    if (!e)
        e = dbopen_open(o->db_url, NULL, &s);
    if (!e)
        e = models_save(s, 0, MODELS_PAGES, PAGECLS_FORMAT_VERSION, c->p_err, c->accuracy,
                        buf_str(&cv), buf_str(&params), bytes.data, bytes.len, id);
    store_free(s);
    buf_release(&bytes);
    buf_release(&cv);
    buf_release(&params);
    return e;
}

/* The table, the JSON report, the saved model. */
static enum evalcmd_end evalcmd_report(const struct evalcmd_opts *o, const struct jobspec *job,
                                       const struct evaluate_result *res)
{
    evaltable_print(job, res);
    if (o->report && evaljson_write(o->report, job, res) != ERR_OK)
        return EVALCMD_FAILED;
    if (o->save_model) {
        int64_t id;
        if (save_model(o, job, res, &id) != ERR_OK) {
            err_set(ERR_IO, "saving the model: %s", err_msg());
            return EVALCMD_FAILED;
        }
        printf("model saved: id %lld\n", (long long)id);
    }
    return EVALCMD_DONE;
}

/* The evaluation's options every run shares: mode, labels, proxy, the progress bar. */
static void eval_opts(const struct evalcmd_opts *o, const struct labels *labels,
                      struct evalbar *bar, struct evaluate_opts *eo)
{
    memset(eo, 0, sizeof *eo);
    eo->mode = o->mode;
    eo->labels = labels;
    fetch_config_defaults(&eo->fetch);
    eo->fetch.proxy = o->proxy;
    eo->progress = evalbar_update;
    eo->progress_ctx = bar;
}

/* A topic is done: end its bar, say how it went, start the next topic's bar. */
static void all_done(void *ctx, const struct evalall_topic *t, size_t i, size_t n)
{
    struct evalbar *bar = ctx;
    evalbar_end(bar);
    evalalltable_progress(t, i, n);
    evalbar_init(bar);
}

/* --all-topics: every topic, the table, the report; a failed topic fails the command. */
static enum evalcmd_end run_all(const struct evalcmd_opts *o, const struct labels *labels)
{
    struct evalbar bar;
    evalbar_init(&bar);
    struct evalall_opts ao = {0};
    ao.job = o->job;
    ao.sets = o->sets;
    ao.n_sets = o->n_sets;
    ao.tuned = o->tuned;
    ao.min_relevant = o->min_relevant;
    eval_opts(o, labels, &bar, &ao.eval);
    ao.done = all_done;
    ao.done_ctx = &bar;
    struct evalall *a = NULL;
    int bad_set = 0;
    enum err e = evalall_run(&ao, &a, &bad_set);
    evalbar_end(&bar);
    if (e)
        return bad_set ? EVALCMD_USAGE : EVALCMD_FAILED;
    evalalltable_print(a, o->job[strspn(o->job, " \t\r\n")] == '{' ? "--job" : o->job);
    e = o->report ? evaljson_write_all(o->report, a) : ERR_OK;
    if (!e && a->failed)
        e = err_set(ERR_INVAL, "%zu of %zu topics failed", a->failed, a->n_topics);
    if (!e && !a->n_topics)
        e = err_set(ERR_NOTFOUND, "no topic has at least %d relevant training websites",
                    o->min_relevant);
    evalall_free(a);
    return e ? EVALCMD_FAILED : EVALCMD_DONE;
}

enum evalcmd_end evalcmd_run(const struct evalcmd_opts *o)
{
    struct jobspec *job = NULL;
    struct labels *labels = NULL;
    struct evaluate_result *res = NULL;
    enum evalcmd_end end = EVALCMD_FAILED;
    int bad_set = 0;
    if (!o->all_topics &&
        evaljob_load(o->job, o->topic, o->sets, o->n_sets, &job, &bad_set) != ERR_OK) {
        end = bad_set ? EVALCMD_USAGE : EVALCMD_FAILED;
        goto out;
    }
    if (o->labels && labels_load(o->labels, &labels) != ERR_OK)
        goto out;
    if (o->all_topics) {
        end = run_all(o, labels);
        goto out;
    }
    struct evalbar bar;
    struct evaluate_opts eo;
    evalbar_init(&bar);
    eval_opts(o, labels, &bar, &eo);
    enum err e = evaluate_run(job, &eo, &res);
    evalbar_end(&bar);
    if (e)
        goto out;
    end = evalcmd_report(o, job, res);
out:
    evaluate_result_free(res);
    labels_free(labels);
    jobspec_free(job);
    return end;
}
