/* `sitescout eval`: website classifier against homepage classifier (the paper's Table 2). */
#include "eval/evalcmd.h"

#include <stdio.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "common/buf.h"
#include "eval/evalbar.h"
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
        e = models_save(s, 0, PAGECLS_FORMAT_VERSION, c->p_err, c->accuracy, buf_str(&cv),
                        buf_str(&params), bytes.data, bytes.len, id);
    store_free(s);
    buf_release(&bytes);
    buf_release(&cv);
    buf_release(&params);
    return e;
}

/* The job of --job (a file, or the JSON text itself), with the --set overrides. */
static enum evalcmd_end load_job(const struct evalcmd_opts *o, struct jobspec **job)
{
    const char *p = o->job;
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    enum err e = *p == '{' ? jobspec_select(o->job, strlen(o->job), "--job", o->topic, job)
                           : jobspec_load(o->job, o->topic, job);
    if (e)
        return EVALCMD_FAILED;
    for (size_t i = 0; i < o->n_sets; i++) {
        char key[128];
        const char *eq = strchr(o->sets[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - o->sets[i]), o->sets[i]);
        if (jobspec_params_set(&(*job)->params, key, eq + 1) != ERR_OK) {
            err_set(ERR_INVAL, "--set: %s", err_msg());
            return EVALCMD_USAGE;
        }
    }
    return EVALCMD_DONE;
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

enum evalcmd_end evalcmd_run(const struct evalcmd_opts *o)
{
    struct jobspec *job = NULL;
    struct labels *labels = NULL;
    struct evaluate_result *res = NULL;
    enum evalcmd_end end = load_job(o, &job);
    if (end != EVALCMD_DONE)
        goto out;
    end = EVALCMD_FAILED;
    if (o->labels && labels_load(o->labels, &labels) != ERR_OK)
        goto out;
    struct evalbar bar;
    evalbar_init(&bar);
    struct evaluate_opts eo = {0};
    eo.mode = o->mode;
    eo.labels = labels;
    fetch_config_defaults(&eo.fetch);
    eo.fetch.proxy = o->proxy;
    eo.progress = evalbar_update;
    eo.progress_ctx = &bar;
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
