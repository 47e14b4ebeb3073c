/* `sitescout eval`: website classifier against homepage classifier (the paper's Table 2). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/db.h"
#include "eval/evalcmd.h"
#include "job/jobspec.h"

#define MAX_SETS 64

void cmd_eval_usage(void)
{
    printf("usage: sitescout eval --job FILE [--topic T] [--labels SITES.tsv] [--proxy URL]\n"
           "                      [--mode cv|heldout] [--report OUT.json] [--set KEY=VALUE]...\n"
           "                      [--save-model [--db URL]]\n"
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
           "  --proxy URL        fetch through this HTTP proxy, e.g. a 'sitescout replay'\n"
           "  --mode cv|heldout  see above (default cv)\n"
           "  --report FILE      also write the figures as JSON to FILE\n"
           "  --set KEY=VALUE    override a job parameter (repeatable); those that matter\n"
           "                     here: p_threshold (0.9), max_pages_to_decide (0 = 7),\n"
           "                     max_pages_per_site (25), prior_target (0.5),\n"
           "                     train_pages_per_site (25), centroids_per_class (4),\n"
           "                     cv_folds (10), seed, politeness_delay_ms (1000: use 0\n"
           "                     with a replay), concurrency (64)\n"
           "  --save-model       store the page classifier trained on all training\n"
           "                     websites in the database and print its id\n"
           "  --db URL           database for --save-model (default $SITESCOUT_DB, else the\n"
           "                     embedded cluster)\n"
           "\n"
           "Prints a table on stdout; a progress bar on stderr when it is a terminal.\n"
           "More in docs/eval.md.\n");
}

/* ---- the command ---- */

int cmd_eval(int argc, char **argv)
{
    const char *job_arg = NULL, *topic = NULL, *labels_path = NULL, *proxy = NULL;
    const char *report_path = NULL, *db_url = NULL;
    const char *sets[MAX_SETS];
    int n_sets = 0, save = 0;
    enum evaluate_mode mode = EVALUATE_CV;
    static const struct option longopts[] = {
        {"job", required_argument, NULL, 'j'},
        {"topic", required_argument, NULL, 't'},
        {"labels", required_argument, NULL, 'l'},
        {"proxy", required_argument, NULL, 'p'},
        {"mode", required_argument, NULL, 'm'},
        {"report", required_argument, NULL, 'r'},
        {"set", required_argument, NULL, 's'},
        {"save-model", no_argument, NULL, 'S'},
        {"db", required_argument, NULL, 'd'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': job_arg = optarg; break;
        case 't': topic = optarg; break;
        case 'l': labels_path = optarg; break;
        case 'p': proxy = optarg; break;
        case 'r': report_path = optarg; break;
        case 'd': db_url = optarg; break;
        case 'S': save = 1; break;
        case 'm':
            if (strcmp(optarg, "cv") == 0)
                mode = EVALUATE_CV;
            else if (strcmp(optarg, "heldout") == 0)
                mode = EVALUATE_HELDOUT;
            else
                return cli_usage_error("eval", "--mode wants cv or heldout, not '%s'", optarg);
            break;
        case 's':
            if (n_sets == MAX_SETS)
                return cli_usage_error("eval", "at most %d --set options", MAX_SETS);
            if (!strchr(optarg, '='))
                return cli_usage_error("eval", "--set wants KEY=VALUE, not '%s'", optarg);
            sets[n_sets++] = optarg;
            break;
        case '?':
            if (optopt)
                return cli_usage_error("eval", "option '%s' needs a value", argv[optind - 1]);
            return cli_usage_error("eval", "unknown option '%s'", argv[optind - 1]);
        default: return cli_usage_error("eval", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("eval", "unexpected argument '%s'", argv[optind]);
    if (!job_arg)
        return cli_usage_error("eval", "--job is required");
    if (mode == EVALUATE_HELDOUT && !labels_path)
        return cli_usage_error("eval", "--mode heldout needs --labels");
    if (db_url && !save)
        return cli_usage_error("eval", "--db only goes with --save-model");

    /* Check the --set keys before any work (usage errors). */
    struct jobspec_params probe;
    jobspec_params_default(&probe);
    for (int i = 0; i < n_sets; i++) {
        char key[128];
        const char *eq = strchr(sets[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
        if (jobspec_params_set(&probe, key, eq + 1) != ERR_OK)
            return cli_usage_error("eval", "--set %s", err_msg());
    }

    struct evalcmd_opts o = {
        .job = job_arg,
        .topic = topic,
        .labels = labels_path,
        .proxy = proxy,
        .mode = mode,
        .report = report_path,
        .sets = sets,
        .n_sets = (size_t)n_sets,
        .save_model = save,
        .db_url = db_url,
        .db_open = db_open,
    };
    switch (evalcmd_run(&o)) {
    case EVALCMD_DONE:
        return CLI_OK;
    case EVALCMD_USAGE:
        return cli_usage_error("eval", "%s", err_msg());
    default:
        return cli_fail("eval", "%s", err_msg());
    }
}
