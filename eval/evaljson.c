/* The JSON report of `sitescout eval --report`. */
#include "eval/evaljson.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/*
 * jansson references: json_object_set_new and json_array_append_new steal the value's
 * reference; everything else here is released with one json_decref of the root.
 */
#include <jansson.h>

#include "common/buf.h"
#include "eval/evalstats.h"

/* A JSON number, or null for NaN and infinities (JSON has neither). */
static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstats(const struct evalstats *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "precision", jnum(evalstats_precision(s)));
    json_object_set_new(o, "recall", jnum(evalstats_recall(s)));
    json_object_set_new(o, "f1", jnum(evalstats_f1(s)));
    json_object_set_new(o, "accuracy", jnum(evalstats_accuracy(s)));
    json_object_set_new(o, "tp", json_integer(s->tp));
    json_object_set_new(o, "fp", json_integer(s->fp));
    json_object_set_new(o, "fn", json_integer(s->fn));
    json_object_set_new(o, "tn", json_integer(s->tn));
    return o;
}

/* "training": the counts, the excluded homepages and every training website ("sites"). */
static json_t *jtraining(const struct evaluate_result *r)
{
    json_t *train = json_object();
    json_object_set_new(train, "relevant", json_integer((json_int_t)r->train_relevant));
    json_object_set_new(train, "pages", json_integer((json_int_t)r->train_pages));
    json_t *excl = json_array();
    for (size_t i = 0; i < r->n_excluded; i++)
        json_array_append_new(excl, json_string(r->excluded[i]));
    json_object_set_new(train, "excluded", excl);
    json_t *tsites = json_array();
    for (size_t i = 0; i < r->n_train; i++) {
        const struct evaluate_train_site *t = &r->train[i];
        json_t *o = json_object();
        json_object_set_new(o, "homepage", json_string(t->homepage));
        json_object_set_new(o, "relevant", json_boolean(t->relevant));
        json_object_set_new(o, "pages", json_integer((json_int_t)t->pages));
        json_object_set_new(o, "fetches", json_integer(t->fetches));
        if (t->redirected)
            json_object_set_new(o, "redirected", json_true());
        json_array_append_new(tsites, o);
    }
    json_object_set_new(train, "sites", tsites);
    return train;
}

/* One evaluated website with its examination trace; judge: the crawl model's verdicts. */
static json_t *jsite(const struct evaluate_site *s, int judge)
{
    json_t *o = json_object();
    json_object_set_new(o, "homepage", json_string(s->homepage));
    json_object_set_new(o, "truth", json_boolean(s->truth));
    if (s->fold >= 0)
        json_object_set_new(o, "fold", json_integer(s->fold));
    json_object_set_new(o, "relevant", json_boolean(s->relevant));
    json_object_set_new(o, "confidence", jnum(s->confidence));
    json_object_set_new(o, "decided", json_boolean(s->decided));
    json_object_set_new(o, "pages", json_integer(s->pages));
    json_object_set_new(o, "pages_to_decide", json_integer(s->pages_to_decide));
    if (s->redirected)
        json_object_set_new(o, "redirected", json_true());
    if (judge) {
        json_object_set_new(o, "crawl_score", jnum(s->score));
        json_object_set_new(o, "examined_relevant", json_boolean(s->examined_relevant));
        json_object_set_new(o, "listed", json_boolean(s->listed));
        json_object_set_new(o, "link_evidence", jnum(s->link_evidence));
        json_t *links = json_array();
        for (size_t j = 0; j < s->n_links; j++)
            json_array_append_new(links, json_string(s->links[j]));
        json_object_set_new(o, "links", links);
    }
    json_object_set_new(o, "homepage_pr", jnum(s->home_pr));
    json_object_set_new(o, "homepage_relevant", json_boolean(s->home_relevant));
    json_t *trace = json_array();
    for (size_t j = 0; j < s->n_trace; j++) {
        json_t *pg = json_object();
        json_object_set_new(pg, "url", json_string(s->trace[j].url));
        json_object_set_new(pg, "status", json_string(fetch_status_name(s->trace[j].status)));
        json_object_set_new(pg, "pr_target", jnum(s->trace[j].pr_target));
        json_array_append_new(trace, pg);
    }
    json_object_set_new(o, "trace", trace);
    return o;
}

/* Both classifiers' figures and the improvement of F. */
static void set_classifiers(json_t *root, const struct evaluate_result *r)
{
    json_t *web = jstats(&r->website);
    json_object_set_new(web, "pages_per_site", jnum(r->pages_per_site));
    json_object_set_new(web, "pages_to_decide", jnum(r->pages_to_decide));
    json_object_set_new(web, "decided", json_integer((json_int_t)r->decided));
    json_object_set_new(root, "website", web);
    json_t *home = jstats(&r->homepage);
    json_object_set_new(home, "unreadable", json_integer((json_int_t)r->no_homepage));
    json_object_set_new(root, "homepage", home);
    json_object_set_new(root, "f1_improvement",
                        jnum(evalstats_f1(&r->website) - evalstats_f1(&r->homepage)));
    json_object_set_new(root, "sites_evaluated", json_integer((json_int_t)r->n_sites));
    json_object_set_new(root, "judge", json_string(r->judge ? "crawl_model" : "examination"));
    if (!r->judge)
        return;
    json_t *cm = json_object();
    json_object_set_new(cm, "pages", json_integer((json_int_t)r->crawl.pages));
    json_object_set_new(cm, "unlabelled_pages",
                        json_integer((json_int_t)r->crawl.unlabelled_pages));
    json_object_set_new(cm, "terms", json_integer((json_int_t)r->crawl.terms));
    json_object_set_new(cm, "threshold", jnum(r->crawl.threshold));
    json_object_set_new(cm, "spies", json_integer((json_int_t)r->crawl.spies));
    json_object_set_new(cm, "web_gate",
                        isfinite(r->crawl.web_gate) ? json_real(r->crawl.web_gate) : json_null());
    json_object_set_new(cm, "target_prior", jnum(r->crawl.target_prior));
    json_object_set_new(cm, "unscored", json_integer((json_int_t)r->crawl.unscored));
    json_object_set_new(cm, "with_examination", jstats(&r->crawl.with_examination));
    json_object_set_new(root, "crawl_model", cm);
}

/* "seconds" and "fetch". */
static void set_costs(json_t *root, const struct evaluate_result *r)
{
    json_t *times = json_object();
    json_object_set_new(times, "collect", jnum(r->seconds_collect));
    json_object_set_new(times, "train", jnum(r->seconds_train));
    json_object_set_new(times, "classify", jnum(r->seconds_classify));
    json_object_set_new(times, "judge", jnum(r->seconds_judge));
    json_object_set_new(root, "seconds", times);
    json_t *fetch = json_object();
    json_object_set_new(fetch, "requests", json_integer((json_int_t)r->fetch.requests));
    json_object_set_new(fetch, "robots_requests",
                        json_integer((json_int_t)r->fetch.robots_requests));
    json_object_set_new(fetch, "bytes", json_integer((json_int_t)r->fetch.bytes));
    json_object_set_new(root, "fetch", fetch);
}

/* The report of one topic, as `eval --report` writes it; NULL (err_msg set) on failure. */
static json_t *jreport(const struct jobspec *job, const struct evaluate_result *r)
{
    struct buf pj;
    buf_init(&pj, 0);
    if (jobspec_params_json(&job->params, &pj) != ERR_OK) {
        buf_release(&pj);
        return NULL;
    }
    json_t *root = json_object();
    json_object_set_new(root, "topic", json_string(job->topic));
    json_object_set_new(root, "mode", json_string(r->mode == EVALUATE_CV ? "cv" : "heldout"));
    if (r->mode == EVALUATE_CV)
        json_object_set_new(root, "folds", json_integer(r->folds));
    json_object_set_new(root, "params", json_loads(buf_str(&pj), 0, NULL));
    buf_release(&pj);
    json_object_set_new(root, "prior_target", jnum(r->prior_target));
    json_object_set_new(root, "p_threshold", jnum(job->params.p_threshold));
    json_object_set_new(root, "page_cap", json_integer(r->page_cap));
    json_object_set_new(root, "l_threshold", json_real(r->l_threshold));
    json_object_set_new(root, "page_accuracy", jnum(r->page_cv.accuracy));
    json_object_set_new(root, "p_err", jnum(r->page_cv.p_err));
    json_object_set_new(root, "p_err_used_mean", jnum(r->p_err_mean));
    json_object_set_new(root, "training", jtraining(r));
    set_classifiers(root, r);
    set_costs(root, r);
    json_t *sites = json_array();
    for (size_t i = 0; i < r->n_sites; i++)
        json_array_append_new(sites, jsite(&r->sites[i], r->judge));
    json_object_set_new(root, "sites", sites);
    return root;
}

/* Write root to path and release it. */
static enum err dump(json_t *root, const char *path)
{
    enum err e = ERR_OK;
    if (json_dump_file(root, path, JSON_INDENT(1) | JSON_REAL_PRECISION(6) | JSON_SORT_KEYS))
        e = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
    json_decref(root);
    return e;
}

enum err evaljson_write(const char *path, const struct jobspec *job,
                        const struct evaluate_result *r)
{
    json_t *root = jreport(job, r);
    return root ? dump(root, path) : ERR_NOMEM;
}

/* A row of "topics": the topic's report, or its name and error; tuned marked in both. */
static json_t *jtopic(const struct evalall_topic *t)
{
    json_t *o = t->res ? jreport(t->job, t->res) : json_object();
    if (!o)
        return NULL;
    if (!t->res) {
        json_object_set_new(o, "topic", json_string(t->topic));
        json_object_set_new(o, "error", json_string(t->error ? t->error : "out of memory"));
    }
    json_object_set_new(o, "tuned", json_boolean(t->tuned));
    json_object_set_new(o, "relevant_sites", json_integer((json_int_t)t->relevant_sites));
    json_object_set_new(o, "seconds_total", jnum(t->seconds));
    return o;
}

static json_t *jpart(const struct evalall_part *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "topics", json_integer((json_int_t)p->topics));
    json_object_set_new(o, "mean_f1", jnum(p->mean_f1));
    json_object_set_new(o, "worst_f1", jnum(p->worst_f1));
    json_object_set_new(o, "worst_topic",
                        p->worst_topic ? json_string(p->worst_topic) : json_null());
    json_object_set_new(o, "mean_pages_per_site", jnum(p->mean_pages_per_site));
    json_object_set_new(o, "mean_homepage_f1", jnum(p->mean_home_f1));
    json_object_set_new(o, "mean_rule_f1", jnum(p->mean_rule_f1));
    json_object_set_new(o, "worst_rule_f1", jnum(p->worst_rule_f1));
    json_object_set_new(o, "worst_rule_topic",
                        p->worst_rule_topic ? json_string(p->worst_rule_topic) : json_null());
    return o;
}

/* "summary": both parts, the tuned, failed and skipped topics, and the settings. */
static json_t *jsummary(const struct evalall *a)
{
    json_t *s = json_object();
    json_object_set_new(s, "mode", json_string(a->mode == EVALUATE_CV ? "cv" : "heldout"));
    json_object_set_new(s, "min_relevant", json_integer(a->min_relevant));
    json_object_set_new(s, "judge", json_string(a->judge ? "crawl_model" : "examination"));
    json_object_set_new(s, "all", jpart(&a->all));
    json_object_set_new(s, "untuned", jpart(&a->untuned));
    json_t *tuned = json_array(), *failed = json_array(), *skipped = json_array();
    for (size_t i = 0; i < a->n_topics; i++) {
        if (a->topics[i].tuned)
            json_array_append_new(tuned, json_string(a->topics[i].topic));
        if (!a->topics[i].res)
            json_array_append_new(failed, json_string(a->topics[i].topic));
    }
    for (size_t i = 0; i < a->n_skipped; i++)
        json_array_append_new(skipped, json_string(a->skipped[i]));
    json_object_set_new(s, "tuned", tuned);
    json_object_set_new(s, "failed", failed);
    json_object_set_new(s, "skipped", skipped);
    return s;
}

enum err evaljson_write_all(const char *path, const struct evalall *a)
{
    json_t *root = json_object(), *topics = json_array();
    json_object_set_new(root, "topics", topics);
    for (size_t i = 0; i < a->n_topics; i++) {
        json_t *t = jtopic(&a->topics[i]);
        if (!t) {
            json_decref(root);
            return ERR_NOMEM;
        }
        json_array_append_new(topics, t);
    }
    json_object_set_new(root, "summary", jsummary(a));
    return dump(root, path);
}
