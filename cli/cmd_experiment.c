/* `sitescout experiment`: the paper's crawling experiments (§5.1, §5.3) on one replay web. */
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/opts.h"
#include "eval/experiment.h"

#define CMD        "experiment"
#define MAX_SETS   64
#define MAX_REPEAT 100

void cmd_experiment_usage(void)
{
    printf(
        "usage: sitescout experiment --warc FILE --labels SITES.tsv --jobs JOBS.json --topic T\n"
        "                            --budget PAGES --out DIR [--set key=value]... [--db URL]\n"
        "                            [--runs NAME,... | --strategies S,...] [--repeat N]\n"
        "                            [--fig7-window PAGES]\n"
        "                            [--skip-eval] [--targets FILE]\n"
        "\n"
        "Run the crawling experiments of Ester, Kriegel & Schubert (VLDB 2004, §5.1 and\n"
        "§5.3) on a replay web: eight crawl jobs of topic T (or those --runs names), one\n"
        "after another, each with the same page budget, then the website classifier\n"
        "evaluation of Table 2.\n"
        "It starts its own replay server of the WARC file (127.0.0.1, a free port) and\n"
        "uses the embedded PostgreSQL cluster unless --db or SITESCOUT_DB is given; the\n"
        "jobs stay there (query them with 'sitescout db psql').\n"
        "\n"
        "The runs (all at politeness_delay_ms=0 and max_pages=PAGES, and as the paper has\n"
        "the website crawler: judge=examination, linkrank_threshold=fixed):\n"
        "  website-global, website-local, website-combined\n"
        "                   strategy=website with each edge weighting, p_threshold 0.9\n"
        "                   (Figure 6; website-combined is also the p0.9 line of Figure 7)\n"
        "  page             strategy=page: the focused page crawler with website\n"
        "                   post-processing (Figure 7)\n"
        "  website-p0.7     strategy=website, combined edge weights, p_threshold 0.7 (Figure 7)\n"
        "  bfs, homepage    strategy=bfs and strategy=homepage (baselines)\n"
        "  page-homepage    strategy=page_homepage: the focused page crawler with homepage\n"
        "                   post-processing (the paper's \"simplest way\", section 3.2)\n"
        "  bestfirst, history, hotwords, relevance-degree, weight-table, learning-anchor,\n"
        "  context-graph    the other papers' page-level strategies (docs/crawl.md;\n"
        "                   strategy=relevance_degree, weight_table, learning_anchor,\n"
        "                   context_graph for the last four): made only when --runs or\n"
        "                   --strategies names them\n"
        "\n"
        "Options:\n"
        "  --warc FILE       the web to crawl (.warc or .warc.gz)\n"
        "  --labels FILE     its ground truth (NAME.sites.tsv): precision and recall of\n"
        "                    the relevant websites each run found\n"
        "  --jobs FILE       a jobs file keyed by topic, or one job body\n"
        "  --topic T         the job of the jobs file to run\n"
        "  --budget PAGES    page budget of every run (max_pages), at least 1\n"
        "  --out DIR         where the results go (created if missing)\n"
        "  --set key=value   override a job parameter of every run and of the evaluation\n"
        "                    (e.g. pprs_window=500); repeatable. strategy, edge_weights,\n"
        "                    p_threshold and max_pages are set by the experiment itself\n"
        "  --db URL          PostgreSQL connection URL\n"
        "  --runs NAME,...   make only these runs (names as above; default all but\n"
        "                    bestfirst, history, hotwords, relevance-degree,\n"
        "                    weight-table, learning-anchor and context-graph). A\n"
        "                    comparison whose runs are left out cannot be made\n"
        "  --strategies S,...\n"
        "                    or name them by job strategy (sitescout crawl --help):\n"
        "                    the run of each with combined edge weights and\n"
        "                    p_threshold 0.9 (website: website-combined)\n"
        "  --repeat N        make every selected run N times (1..100, default 1), each a\n"
        "                    job of its own with the same parameters (the crawls differ\n"
        "                    by timing); the runs table gives the mean and the range.\n"
        "                    The comparisons and Figures 6 and 7 use the first repeat\n"
        "  --fig7-window PAGES\n"
        "                    Figure 7's pprs-rate is over the last PAGES pages (default\n"
        "                    5000, the paper's), at most a third of the budget\n"
        "  --skip-eval       leave out the Table 2 evaluation\n"
        "  --targets FILE    targets for the named figures, one 'FIGURE OP VALUE' a line\n"
        "                    (e.g. 'pprs_ratio <= 0.6'; OP one of <= >= < >; # comments).\n"
        "                    The figures: pprs_ratio (pprs of website-combined / pprs of\n"
        "                    page), precision_gain (precision of website-combined minus\n"
        "                    page's), combined_harvest_margin (combined edge weights'\n"
        "                    harvest rate minus the lower of global's and local's).\n"
        "                    Each target is reported as holds / does not hold / cannot be\n"
        "                    decided; none changes the exit status\n"
        "\n"
        "Writes to DIR:\n"
        "  fig6_harvest.csv/.png  windowed website harvest rate over websites examined,\n"
        "                         one line per edge weighting\n"
        "  fig7_pprs.csv/.png     pprs-rate over the last --fig7-window pages downloaded,\n"
        "                         of the websites judged relevant and (dashed) of the\n"
        "                         truly relevant ones: page crawler, website crawler at\n"
        "                         p_threshold 0.9 and 0.7\n"
        "  recall.csv, fig7b_recall.png\n"
        "                         recall of the labels' relevant sites over pages downloaded\n"
        "                         (every run in the CSV; the three crawlers of fig7 plotted)\n"
        "  found.csv, fig_found.png\n"
        "                         exact curves of the websites judged relevant and of the\n"
        "                         truly relevant ones (labels) over pages, one row per\n"
        "                         website found, for every run (truly relevant plotted)\n"
        "  runs.csv               one row per run and repeat: pages, sites examined,\n"
        "                         relevant, pprs, precision, recall, F1, single-page share\n"
        "  table2.csv             website against homepage classifier (10-fold CV)\n"
        "  summary.md             the comparisons, the named figures against the targets,\n"
        "                         the tables and the plots\n"
        "  *.gp                   the gnuplot scripts of the plots (data inline)\n"
        "The plots need gnuplot (Debian: gnuplot-nox); without it they are skipped.\n"
        "Progress goes to stderr, one line per run, then the named figures and the\n"
        "targets' results. More in docs/experiment.md.\n"
        "\n"
        "Exit status: 0 when every run and the evaluation ended, 1 when one failed (the\n"
        "outputs are written anyway), 2 for bad usage.\n");
}

/* The options every run needs, in the order their absence is reported. */
static int check_required(const struct experiment_opts *o)
{
    static const char *const names[] = {"--warc",  "--labels", "--jobs",
                                        "--topic", "--budget", "--out"};
    /* --budget's least value is 1: 0 is "not given". */
    const int given[] = {!!o->warc,  !!o->labels,    !!o->jobs,
                         !!o->topic, o->budget != 0, !!o->out_dir};
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
        if (!given[i])
            return cli_usage_error(CMD, "%s is required", names[i]);
    return CLI_OK;
}

int cmd_experiment(int argc, char **argv)
{
    struct experiment_opts o = {.argc = argc, .argv = argv};
    const char *sets[MAX_SETS];
    struct opts_list set_list = {sets, 0, MAX_SETS};
    int64_t budget = 0, fig7_window = 5000; /* the paper's Figure 7 window */
    int repeat = 1;
    const struct opts_entry tab[] = {
        OPTS_STRING("warc", &o.warc),
        OPTS_STRING("labels", &o.labels),
        OPTS_STRING("jobs", &o.jobs),
        OPTS_STRING("topic", &o.topic),
        OPTS_INT64("budget", &budget, 1, INT64_MAX, "a number of pages (at least 1)"),
        OPTS_STRING("out", &o.out_dir),
        OPTS_INT64("fig7-window", &fig7_window, 1, INT64_MAX, "a number of pages (at least 1)"),
        OPTS_LIST("set", &set_list, "at most " OPTS_STR(MAX_SETS) " --set options"),
        OPTS_STRING("db", &o.db_url),
        OPTS_STRING("runs", &o.runs),
        OPTS_STRING("strategies", &o.strategies),
        OPTS_INT("repeat", &repeat, 1, MAX_REPEAT,
                 "a number of repeats (1.." OPTS_STR(MAX_REPEAT) ")"),
        OPTS_FLAG("skip-eval", &o.skip_eval),
        OPTS_STRING("targets", &o.targets),
    };
    const struct opts_parser parser = {CMD, tab, sizeof tab / sizeof tab[0], OPTS_ERR_SPLIT,
                                       .max_args = 0};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    o.budget = budget;
    o.fig7_window = fig7_window;
    o.repeat = (unsigned)repeat;
    if ((rc = check_required(&o)))
        return rc;
    o.sets = sets;
    o.n_sets = (size_t)set_list.n;
    switch (experiment_run(&o)) {
    case EXPERIMENT_DONE:
        return CLI_OK;
    case EXPERIMENT_USAGE:
        return cli_usage_error(CMD, "%s", err_msg());
    default:
        return cli_fail(CMD, "%s", err_msg());
    }
}
