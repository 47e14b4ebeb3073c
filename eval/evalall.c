/* `sitescout eval --all-topics`: every topic of a jobs file evaluated, then mean and worst. */
#include "eval/evalall.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "common/monotime.h"
#include "eval/evaljob.h"
#include "eval/evalstats.h"

int evalall_listed(const char *list, const char *topic)
{
    size_t n = strlen(topic);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, topic, n) == 0)
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* Mean and worst over the evaluated rows, the tuned ones included or not. */
static void summarize_part(const struct evalall *a, int with_tuned, struct evalall_part *p)
{
    memset(p, 0, sizeof *p);
    p->worst_f1 = p->worst_rule_f1 = NAN;
    double f1 = 0, pages = 0, home = 0, rule = 0;
    for (size_t i = 0; i < a->n_topics; i++) {
        const struct evalall_topic *t = &a->topics[i];
        if (!t->res || (t->tuned && !with_tuned))
            continue;
        double f = evalstats_f1(&t->res->website);
        /* The first topic of the worst F1 is named: the file's order breaks ties. */
        if (!p->topics || f < p->worst_f1) {
            p->worst_f1 = f;
            p->worst_topic = t->topic;
        }
        double fr = evalstats_f1(&t->res->crawl.with_examination);
        if (!p->topics || fr < p->worst_rule_f1) {
            p->worst_rule_f1 = fr;
            p->worst_rule_topic = t->topic;
        }
        rule += fr;
        p->topics++;
        f1 += f;
        pages += t->res->pages_per_site;
        home += evalstats_f1(&t->res->homepage);
    }
    double n = (double)p->topics;
    p->mean_f1 = p->topics ? f1 / n : NAN;
    p->mean_pages_per_site = p->topics ? pages / n : NAN;
    p->mean_home_f1 = p->topics ? home / n : NAN;
    p->mean_rule_f1 = p->topics && a->judge ? rule / n : NAN;
    if (!a->judge)
        p->worst_rule_f1 = NAN, p->worst_rule_topic = NULL;
}

void evalall_summarize(struct evalall *a)
{
    summarize_part(a, 1, &a->all);
    summarize_part(a, 0, &a->untuned);
}

/* The row's error: err_msg() now, copied (a failed copy leaves the generic text). */
static void row_fail(struct evalall_topic *t, const char *what)
{
    size_t n = strlen(what) + strlen(err_msg()) + 3;
    t->error = malloc(n);
    if (t->error)
        snprintf(t->error, n, "%s: %s", what, err_msg());
}

/*
 * One topic: load its job, skip it under min_relevant (*skip), evaluate it. Only errors
 * of the whole run are returned; the topic's own failure is in t->error.
 */
static enum err run_topic(const struct evalall_opts *o, struct evalall_topic *t, int *skip,
                          int *bad_set)
{
    *skip = 0;
    enum err e = evaljob_load(o->job, t->topic, o->sets, o->n_sets, &t->job, bad_set);
    if (e == ERR_NOMEM || *bad_set)
        return e;
    if (e) {
        row_fail(t, "job");
        return ERR_OK;
    }
    t->relevant_sites = t->job->n_relevant;
    if (t->job->n_relevant < (size_t)o->min_relevant) {
        *skip = 1;
        return ERR_OK;
    }
    double t0 = monotime_s();
    e = evaluate_run(t->job, &o->eval, &t->res);
    t->seconds = monotime_s() - t0;
    if (e == ERR_NOMEM || e == ERR_INTERRUPT)
        return e;
    if (e) {
        evaluate_result_free(t->res);
        t->res = NULL;
        row_fail(t, "evaluation");
        return ERR_OK;
    }
    /* Only --save-model needs the model, and it does not go with --all-topics: 32 topics'
     * models held to the end would cost memory for nothing. */
    pagecls_free(t->res->model);
    t->res->model = NULL;
    return ERR_OK;
}

static void topic_release(struct evalall_topic *t)
{
    free(t->topic);
    jobspec_free(t->job);
    evaluate_result_free(t->res);
    free(t->error);
    memset(t, 0, sizeof *t);
}

enum err evalall_run(const struct evalall_opts *o, struct evalall **out, int *bad_set)
{
    *out = NULL;
    *bad_set = 0;
    char **names = NULL;
    size_t n = 0;
    enum err e = evaljob_topics(o->job, &names, &n);
    if (e)
        return e;
    struct evalall *a = calloc(1, sizeof *a);
    if (a) {
        a->topics = calloc(n, sizeof *a->topics);
        a->skipped = calloc(n, sizeof *a->skipped);
    }
    if (!a || !a->topics || !a->skipped) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    a->mode = o->eval.mode;
    a->min_relevant = o->min_relevant;
    const char *tuned = o->tuned ? o->tuned : EVALALL_DEFAULT_TUNED;
    for (size_t i = 0; i < n && !e; i++) {
        struct evalall_topic *t = &a->topics[a->n_topics];
        t->topic = names[i];
        names[i] = NULL; /* the row owns it now */
        t->tuned = evalall_listed(tuned, t->topic);
        int skip;
        e = run_topic(o, t, &skip, bad_set);
        if (t->job && t->job->params.judge)
            a->judge = t->job->params.judge; /* the --set of every topic */
        if (!e && skip) {
            t->skipped = 1;
            if (o->done)
                o->done(o->done_ctx, t, i, n);
            a->skipped[a->n_skipped++] = t->topic;
            t->topic = NULL;
            topic_release(t);
            continue;
        }
        a->n_topics++;
        if (t->error)
            a->failed++;
        if (!e && o->done)
            o->done(o->done_ctx, t, i, n);
    }
    evalall_summarize(a);
out:
    evaljob_topics_free(names, n);
    if (e) {
        evalall_free(a);
        return e;
    }
    *out = a;
    return ERR_OK;
}

void evalall_free(struct evalall *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n_topics; i++)
        topic_release(&a->topics[i]);
    free(a->topics);
    for (size_t i = 0; i < a->n_skipped; i++)
        free(a->skipped[i]);
    free(a->skipped);
    free(a);
}
