/* `sitescout eval`: website classifier against homepage classifier (the paper's Table 2). */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/opts.h"
#include "eval/evalall.h"
#include "eval/evalcmd.h"
#include "job/jobspec.h"

#define MAX_SETS 64

void cmd_eval_usage(void)
{
    printf("usage: sitescout eval --job FILE [--topic T] [--labels SITES.tsv] [--proxy URL]\n"
           "                      [--mode cv|heldout] [--classifier knn|svm] [--report OUT.json]\n"
           "                      [--judge examination|crawl_model] [--set KEY=VALUE]...\n"
           "                      [--save-model [--db URL]]\n"
           "       sitescout eval --all-topics --job JOBS.json [--min-relevant N] [--tuned T,T]\n"
           "                      [--labels SITES.tsv] [--proxy URL] [--mode cv|heldout]\n"
           "                      [--classifier knn|svm] [--judge examination|crawl_model]\n"
           "                      [--report OUT.json] [--set KEY=VALUE]...\n"
           "\n"
           "Measure the website classifier against the homepage classifier, as in Table 2\n"
           "of Ester, Kriegel & Schubert (VLDB 2004). Training pages are the first\n"
           "train_pages_per_site pages of a breadth-first traversal of each training website\n"
           "(the job's relevant_sites and other_sites), fetched politely (robots.txt obeyed).\n"
           "\n"
           "Modes:\n"
           "  cv       (default) k-fold cross-validation over the training websites: each\n"
           "           held-out website is classified by the internal crawler (best-first\n"
           "           from its homepage until p_threshold or max_pages_to_decide fetches, no\n"
           "           LinkRank continuation) and by the homepage classifier (the same page\n"
           "           classifier trained on homepages only, applied to its homepage)\n"
           "  heldout  train on all training websites, evaluate on the websites whose role\n"
           "           for the topic is 'test' in --labels (relevant iff their topic is the\n"
           "           job's topic)\n"
           "\n"
           "Options:\n"
           "  --job FILE|JSON    a job body {topic, relevant_sites, other_sites, ...}, or a\n"
           "                     jobs file keyed by topic (e.g. ../shared/webs/dev.jobs.json);\n"
           "                     an argument starting with '{' is the JSON text itself\n"
           "  --topic T          the entry of a jobs file to use\n"
           "  --labels FILE      ground truth (NAME.sites.tsv); required for heldout\n"
           "  --proxy URL        fetch through this proxy, SCHEME://HOST:PORT (http, https,\n"
           "                     socks4, socks4a, socks5, socks5h), e.g. a 'sitescout replay'\n"
           "  --mode cv|heldout  see above (default cv)\n"
           "  --classifier knn|svm  the page classifier of both the website and the homepage\n"
           "                     classifier: knn, the paper's centroid kNN (default), or svm,\n"
           "                     a linear SVM (the same as --set classifier=svm; the row of\n"
           "                     the table is marked (svm))\n"
           "  --judge examination|crawl_model  who gives the website verdicts in heldout\n"
           "                     mode: examination, the internal crawler's (the paper's,\n"
           "                     default), or crawl_model, as a crawl's judging gives them\n"
           "                     (the same as --set judge=crawl_model; docs/classifier.md,\n"
           "                     \"Learning from the crawl\"): a model fit on the training\n"
           "                     websites' pages and every page the internal crawler read\n"
           "                     of the held-out websites, the threshold from spies; the\n"
           "                     row of the table is marked (crawl)\n"
           "  --report FILE      also write the figures as JSON to FILE\n"
           "  --set KEY=VALUE    override a job parameter (repeatable); those that matter\n"
           "                     here: p_threshold (0.9), max_pages_to_decide (0 = 7),\n"
           "                     max_pages_per_site (25), prior_target (0.5),\n"
           "                     train_pages_per_site (25), centroids_per_class (4),\n"
           "                     sites_per_centroid (15),\n"
           "                     cv_folds (10), seed, politeness_delay_ms (1000: use 0\n"
           "                     with a replay), concurrency (64)\n"
           "  --save-model       store the page classifier trained on all training\n"
           "                     websites in the database and print its id\n"
           "  --db URL           database for --save-model (default $SITESCOUT_DB, else the\n"
           "                     embedded cluster)\n"
           "\n"
           "Every topic (how the parameters do on topics they were not chosen on):\n"
           "  --all-topics       run the mode for every topic of the jobs file, each with its\n"
           "                     own training, through the one --proxy; a row per topic, then\n"
           "                     the mean and worst website F1 over all topics and over the\n"
           "                     untuned ones; --report writes {topics: [...], summary}. A\n"
           "                     topic that fails is shown in its row, the others still\n"
           "                     run, and the exit status is 1\n"
           "  --min-relevant N   only topics with at least N relevant training websites\n"
           "                     (default 0)\n"
           "  --tuned T,T        the topics the parameters were chosen on: marked, and left\n"
           "                     out of the untuned figures (default " EVALALL_DEFAULT_TUNED ")\n"
           "\n"
           "Prints a table on stdout; a progress bar on stderr when it is a terminal, and\n"
           "with --all-topics a line per topic on stderr.\n"
           "More in docs/eval.md.\n");
}

/* In enum evaluate_mode's order. */
static const char *const modes[] = {"cv", "heldout", NULL};
/* In the job parameter's order (enum pagecls_kind), with the --set each stands for. */
static const char *const classifiers[] = {"knn", "svm", NULL};
static const char *const classifier_sets[] = {"classifier=knn", "classifier=svm"};
/* In the job parameter judge's order, with the --set each stands for. */
static const char *const judges[] = {"examination", "crawl_model", NULL};
static const char *const judge_sets[] = {"judge=examination", "judge=crawl_model"};

/* Check the --set keys and values before any work: a bad one is a usage error. */
static int check_sets(const char *const *sets, int n)
{
    struct jobspec_params probe;
    jobspec_params_default(&probe);
    for (int i = 0; i < n; i++) {
        char key[128];
        const char *value;
        if (!opts_keyvalue(sets[i], key, sizeof key, &value))
            return cli_usage_error("eval", "--set wants KEY=VALUE, not '%s'", sets[i]);
        if (jobspec_params_set(&probe, key, value) != ERR_OK)
            return cli_usage_error("eval", "--set %s", err_msg());
    }
    return CLI_OK;
}

int cmd_eval(int argc, char **argv)
{
    struct evalcmd_opts o = {0};
    const char *sets[MAX_SETS];
    struct opts_list set_list = {sets, 0, MAX_SETS};
    int mode = EVALUATE_CV;
    int min_relevant = -1; /* -1: not given */
    int classifier = -1;   /* -1: not given */
    int judge = -1;        /* -1: not given */
    const struct opts_entry tab[] = {
        OPTS_STRING("job", &o.job),
        OPTS_STRING("topic", &o.topic),
        OPTS_STRING("labels", &o.labels),
        OPTS_STRING("proxy", &o.proxy),
        OPTS_CHOICE("mode", &mode, modes, "cv or heldout"),
        OPTS_CHOICE("classifier", &classifier, classifiers, "knn or svm"),
        OPTS_CHOICE("judge", &judge, judges, "examination or crawl_model"),
        OPTS_STRING("report", &o.report),
        OPTS_KEYVALUE("set", &set_list, "at most " OPTS_STR(MAX_SETS) " --set options",
                      "KEY=VALUE"),
        OPTS_FLAG("save-model", &o.save_model),
        OPTS_STRING("db", &o.db_url),
        OPTS_FLAG("all-topics", &o.all_topics),
        OPTS_INT("min-relevant", &min_relevant, 0, JOBSPEC_MAX_SITES,
                 "a number from 0 to " OPTS_STR(JOBSPEC_MAX_SITES)),
        OPTS_STRING("tuned", &o.tuned),
    };
    const struct opts_parser parser = {"eval", tab, sizeof tab / sizeof tab[0], OPTS_ERR_SPLIT,
                                       .max_args = 0};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    if ((rc = cli_check_proxy("eval", o.proxy)))
        return rc;
    o.mode = (enum evaluate_mode)mode;
    if (!o.job)
        return cli_usage_error("eval", "--job is required");
    if (o.mode == EVALUATE_HELDOUT && !o.labels)
        return cli_usage_error("eval", "--mode heldout needs --labels");
    if (o.db_url && !o.save_model)
        return cli_usage_error("eval", "--db only goes with --save-model");
    if (o.all_topics && o.topic)
        return cli_usage_error("eval", "--topic and --all-topics exclude each other");
    if (o.all_topics && o.save_model)
        return cli_usage_error("eval", "--save-model does not go with --all-topics");
    if (!o.all_topics && (min_relevant >= 0 || o.tuned))
        return cli_usage_error("eval", "--min-relevant and --tuned only go with --all-topics");
    o.min_relevant = min_relevant < 0 ? 0 : min_relevant;
    if (judge > 0 && o.mode != EVALUATE_HELDOUT)
        return cli_usage_error("eval", "--judge crawl_model goes with --mode heldout");
    /* Last, so that they win over a --set classifier= or judge=. */
    const char *extra[] = {classifier >= 0 ? classifier_sets[classifier] : NULL,
                           judge >= 0 ? judge_sets[judge] : NULL};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        if (!extra[i])
            continue;
        if (set_list.n >= MAX_SETS)
            return cli_usage_error("eval", "at most " OPTS_STR(MAX_SETS) " --set options");
        sets[set_list.n++] = extra[i];
    }
    if ((rc = check_sets(sets, set_list.n)))
        return rc;
    o.sets = sets;
    o.n_sets = (size_t)set_list.n;
    if ((rc = cli_probe_proxy("eval", o.proxy, 1)))
        return rc;
    switch (evalcmd_run(&o)) {
    case EVALCMD_DONE:
        return CLI_OK;
    case EVALCMD_USAGE:
        return cli_usage_error("eval", "%s", err_msg());
    default:
        return cli_fail("eval", "%s", err_msg());
    }
}
