/* `sitescout judge`: a job's websites judged again by a model learnt from its crawl. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/opts.h"
#include "eval/jobscore.h"
#include "eval/labels.h"
#include "job/jobjudge.h"
#include "store/dbopen.h"
#include "store/judgestore.h"
#include "store/store.h"

void cmd_judge_usage(void)
{
    struct jobjudge_params d;
    jobjudge_params_default(&d);
    printf("usage: sitescout judge --job ID [--dry-run] [--labels FILE] [--db URL] [model "
           "options]\n"
           "\n"
           "Judge the websites a job examined again, from the pages it already read: a model\n"
           "is learnt from the job's example pages and every page its crawl read (multinomial\n"
           "Naive Bayes fit by EM, one component for the topic and several for the rest of\n"
           "the web; docs/classifier.md, \"Learning from the crawl\"), and each examined start\n"
           "or discovered website gets its verdict. Works on a running, paused or finished\n"
           "job; the model is stored with the job (models, kind 'crawl') and the view\n"
           "relevant_websites says which verdicts it gave (judged_by crawl_model).\n"
           "\n"
           "Options:\n"
           "  --job ID            the job\n"
           "  --dry-run           print the figures, change nothing\n"
           "  --labels FILE       a test web's ground truth (sites.tsv): print the job's\n"
           "                      precision and recall before and after (with --dry-run:\n"
           "                      as the judging would leave them)\n"
           "  --db URL            PostgreSQL connection URL (default: SITESCOUT_DB, else the\n"
           "                      embedded cluster)\n"
           "  --components N      \"other\" components, 1..%d (default %u)\n"
           "  --seed N            the seed of EM's random start (default %llu)\n"
           "  --iterations N      EM iterations, 1..1000 (default %u)\n"
           "  --alpha X           term smoothing, > 0 (default %g)\n"
           "  --min-sites N       leave out terms of fewer websites (default %u)\n"
           "  --page-tokens X     a page counts as X term occurrences at most (0: no cap;\n"
           "                      default %g)\n"
           "  --weight-cap X      a page's weight: its known term occurrences, at most X\n"
           "                      (default %g)\n"
           "  --threshold X       relevant above this weighted mean of Pr[topic|page]; with\n"
           "                      spies, the highest threshold they may choose (default %g)\n"
           "  --min-pages N       judge only when the crawl read N pages or more (default\n"
           "                      %lld): a model learnt from less of the web is not trusted\n"
           "  --spy-folds N       choose the threshold with spies: the relevant examples in N\n"
           "                      folds, each fold's scored by a model that did not learn\n"
           "                      from it (0: --threshold as given; default %u)\n"
           "  --spy-pages N       spies only when the crawl read N pages or more (those\n"
           "                      learnt from) and the job has --spy-many relevant\n"
           "                      examples or more; else one fit at --early-threshold\n"
           "                      (0: whatever it read and has; default %lld)\n"
           "  --early-threshold X ... that threshold, between 0 and 1 (default %g)\n"
           "  --spy-iterations N  EM iterations of the spies' fits (0: --iterations;\n"
           "                      default %u)\n"
           "  --spy-quantile Q    the threshold: this quantile of the spies' scores\n"
           "                      (default %g), shrunk towards --spy-prior (default %g)\n"
           "                      as if --spy-prior-weight spies (default %g) had scored it:\n"
           "                      as probabilities with fewer spies than --spy-many N, at\n"
           "                      least 0.01; as logits with N or more, at least 1e-9\n"
           "                      (0: always as probabilities; default %u)\n"
           "  --other-clusters N  the \"other\" example websites start EM in at most N\n"
           "                      clusters, one \"other\" component each (0: at random;\n"
           "                      default %u) ...\n"
           "  --cluster-sites N   ... one cluster per N of them (default %u)\n"
           "  --web-start 0|1     1: the crawled pages the relevant examples explain better\n"
           "                      than the whole web does start EM in the topic's\n"
           "                      component; 0: all start in random \"other\" ones\n"
           "                      (default %u)\n"
           "  --web-gate Q        with the web start, a crawled page the relevant examples\n"
           "                      explain much worse than the whole web never joins the\n"
           "                      topic's component; the gate would stop the share Q of\n"
           "                      the examples' own pages, each left out of the model\n"
           "                      (0: no gate; default %g)\n"
           "  --link-rounds N     a website's verdict weighs the verdicts of the examined\n"
           "                      websites it links to and that link to it, learnt again\n"
           "                      N times (0: its text alone; default %u)\n"
           "  --link-slope K      ... each examined neighbour relevant with probability\n"
           "                      sigma(K (its text's evidence + its links')) (0: as its\n"
           "                      verdict, 0 or 1; default %g)\n"
           "  --exam-links X      ... and an examination's \"not relevant\" stands unless\n"
           "                      the website's links say relevant by more than X nats\n"
           "                      (default %g)\n"
           "  --fit-pages N       the crawled pages weigh in the model as N pages at most\n"
           "                      (each N / their number; 0: each weighs 1; default %u)\n"
           "  --bag 0|1           1: with spies, the model is the mean of their fits and\n"
           "                      its own (a bag); 0: its own fit (default %u)\n",
           NBEM_MAX_OTHER, d.em.other_components, (unsigned long long)d.em.seed, d.em.iterations,
           d.em.alpha, d.min_sites, d.em.page_tokens, d.weight_cap, d.threshold,
           (long long)d.min_pages, d.spy_folds, (long long)d.spy_pages, d.early_threshold,
           d.spy_iterations, d.spy_quantile, d.spy_prior, d.spy_prior_weight, d.spy_many,
           d.other_clusters, d.cluster_sites, d.em.web_start, d.web_gate_quantile, d.link_rounds,
           d.link_slope, d.exam_links, d.fit_pages, d.bag);
}

/* A dry run's verdicts scored as if written: *after. */
static enum err score_dry_run(struct store *s, int64_t job, const struct labels *labels,
                              const char *topic, const struct jobjudge_result *r,
                              struct jobscore *after)
{
    struct jobscore_change *c = calloc(r->n_verdicts ? r->n_verdicts : 1, sizeof *c);
    if (!c)
        return err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < r->n_verdicts; i++)
        c[i] = (struct jobscore_change){r->verdicts[i].host, r->verdicts[i].role,
                                        r->verdicts[i].relevant};
    enum err e = jobscore_get_changed(s, job, labels, topic, c, r->n_verdicts, after);
    free(c);
    return e;
}

int cmd_judge(int argc, char **argv)
{
    int64_t job = 0;
    int dry_run = 0, comps, iters, min_sites, folds, spy_iters, clusters, cluster_sites, web_start,
        link_rounds, fit_pages, spy_many, bag;
    const char *db = NULL, *labels_path = NULL;
    struct jobjudge_params p;
    jobjudge_params_default(&p);
    comps = (int)p.em.other_components;
    iters = (int)p.em.iterations;
    min_sites = (int)p.min_sites;
    folds = (int)p.spy_folds;
    spy_iters = (int)p.spy_iterations;
    clusters = (int)p.other_clusters;
    cluster_sites = (int)p.cluster_sites;
    web_start = (int)p.em.web_start;
    link_rounds = (int)p.link_rounds;
    fit_pages = (int)p.fit_pages;
    bag = (int)p.bag;
    spy_many = (int)p.spy_many;
    const struct opts_entry tab[] = {
        OPTS_INT64("job", &job, 1, INT64_MAX, "a job id"),
        OPTS_FLAG("dry-run", &dry_run),
        OPTS_STRING("db", &db),
        OPTS_STRING("labels", &labels_path),
        OPTS_INT("components", &comps, 1, NBEM_MAX_OTHER, "1..64"),
        OPTS_INT("iterations", &iters, 1, 1000, "1..1000"),
        OPTS_DOUBLE("alpha", &p.em.alpha, 1e-9, 1e6, "a number above 0"),
        OPTS_INT("min-sites", &min_sites, 1, 1000000, "1..1000000"),
        OPTS_DOUBLE("page-tokens", &p.em.page_tokens, 0, 1e9, "a number >= 0"),
        OPTS_UINT64("seed", &p.em.seed, "a whole number"),
        OPTS_DOUBLE("weight-cap", &p.weight_cap, 1e-9, 1e9, "a number above 0"),
        OPTS_DOUBLE("threshold", &p.threshold, 1e-9, 1 - 1e-9, "a number between 0 and 1"),
        OPTS_INT("spy-folds", &folds, 0, 100, "0..100"),
        OPTS_INT("spy-iterations", &spy_iters, 0, 1000, "0..1000"),
        OPTS_INT64("spy-pages", &p.spy_pages, 0, INT64_MAX, "a whole number >= 0"),
        OPTS_DOUBLE("early-threshold", &p.early_threshold, 1e-9, 1 - 1e-9,
                    "a number between 0 and 1"),
        OPTS_INT64("min-pages", &p.min_pages, 0, INT64_MAX, "a whole number >= 0"),
        OPTS_DOUBLE("spy-quantile", &p.spy_quantile, 0, 0.99, "a number in [0, 0.99]"),
        OPTS_DOUBLE("spy-prior", &p.spy_prior, 1e-9, 1 - 1e-9, "a number between 0 and 1"),
        OPTS_DOUBLE("spy-prior-weight", &p.spy_prior_weight, 0, 1e6, "a number >= 0"),
        OPTS_INT("spy-many", &spy_many, 0, 1000000, "0..1000000"),
        OPTS_INT("other-clusters", &clusters, 0, NBEM_MAX_OTHER, "0..64"),
        OPTS_INT("cluster-sites", &cluster_sites, 1, 1000000, "1..1000000"),
        OPTS_INT("web-start", &web_start, 0, 1, "0 or 1"),
        OPTS_DOUBLE("web-gate", &p.web_gate_quantile, 0, 0.99, "a number in [0, 0.99]"),
        OPTS_INT("link-rounds", &link_rounds, 0, 100, "0..100"),
        OPTS_DOUBLE("link-slope", &p.link_slope, 0, 100, "a number in [0, 100]"),
        OPTS_DOUBLE("exam-links", &p.exam_links, 0, 1e6, "a number in [0, 1e6]"),
        OPTS_INT("fit-pages", &fit_pages, 0, 1000000000, "0..1000000000"),
        OPTS_INT("bag", &bag, 0, 1, "0 or 1"),
    };
    const struct opts_parser parser = {"judge", tab, sizeof tab / sizeof tab[0], OPTS_ERR_JOINT,
                                       .max_args = 0};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    if (!job)
        return cli_usage_error("judge", "--job is required");
    p.em.other_components = (uint32_t)comps;
    p.em.iterations = (uint32_t)iters;
    p.min_sites = (uint32_t)min_sites;
    p.spy_folds = (uint32_t)folds;
    p.spy_iterations = (uint32_t)spy_iters;
    p.other_clusters = (uint32_t)clusters;
    p.cluster_sites = (uint32_t)cluster_sites;
    p.em.web_start = (uint32_t)web_start;
    p.link_rounds = (uint32_t)link_rounds;
    p.fit_pages = (uint32_t)fit_pages;
    p.bag = (uint32_t)bag;
    p.spy_many = (uint32_t)spy_many;
    struct labels *labels = NULL;
    if (labels_path && labels_load(labels_path, &labels) != ERR_OK)
        return cli_fail("judge", "%s", err_msg());
    struct store *s;
    if (dbopen_open(db, NULL, &s) != ERR_OK) {
        labels_free(labels);
        return cli_fail("judge", "%s", err_msg());
    }
    char topic[256] = "";
    struct jobscore before = {0}, after = {0};
    struct jobjudge_result r = {0};
    enum err e = labels ? judgestore_topic(s, job, topic, sizeof topic) : ERR_OK;
    if (!e && labels)
        e = jobscore_get(s, job, labels, topic, &before);
    if (!e)
        e = jobjudge_run(s, job, &p, dry_run, &r);
    if (!e && labels && !dry_run)
        e = jobscore_get(s, job, labels, topic, &after);
    if (!e && labels && dry_run)
        e = score_dry_run(s, job, labels, topic, &r, &after);
    jobjudge_result_release(&r);
    store_free(s);
    labels_free(labels);
    jobscore_release(&before);
    jobscore_release(&after);
    if (e)
        return cli_fail("judge", "%s", err_msg());
    if (!r.model_id && !dry_run) {
        printf("job %lld: not judged: its crawl read %zu pages, %lld needed to learn from"
               " (--min-pages)\n",
               (long long)job, r.crawl_pages, (long long)p.min_pages);
        return CLI_OK;
    }
    char gate[40] = "no web gate";
    if (isfinite(r.web_gate))
        snprintf(gate, sizeof gate, "web gate %.1f", r.web_gate);
    printf("job %lld: %zu websites judged by a model learnt from %zu pages (%zu terms, topic"
           " share %.3f, threshold %.3g from %zu spies, %s) in %.2f s: %lld verdicts changed,"
           " %lld relevant%s\n",
           (long long)job, r.sites, r.pages, r.terms, r.target_prior, r.threshold, r.spies, gate,
           r.seconds, (long long)r.changed, (long long)r.relevant,
           dry_run ? " (dry run: nothing written)" : "");
    if (labels)
        printf("precision %.3f -> %.3f, recall %.3f -> %.3f (%zu -> %zu found)%s\n",
               before.precision, after.precision, before.recall, after.recall, before.found,
               after.found, dry_run ? " if written" : "");
    return CLI_OK;
}
