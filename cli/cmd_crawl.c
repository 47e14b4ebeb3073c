/* `sitescout crawl`: the options of a crawl job run in the foreground (cli/fgcrawl.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/fgcrawl.h"
#include "cli/opts.h"
#include "job/jobspec.h"

#define MAX_SETS 64

static const char *param_name(size_t i)
{
    return jobspec_param_name(i);
}

static const char *strategy_name(size_t i)
{
    return jobspec_choice_name("strategy", (int)i);
}

static const char *classifier_name(size_t i)
{
    return jobspec_choice_name("classifier", (int)i);
}

/* A heading and the names name(0), name(1), ... up to NULL, comma-separated, wrapped at
 * 80 columns unless wrap is 0 (the names come from the job's own table, so the help
 * cannot go stale). */
static void print_list(const char *heading, const char *(*name)(size_t), int wrap)
{
    int col = printf("%s", heading);
    for (size_t i = 0; name(i); i++) {
        const char *n = name(i);
        int w = (int)strlen(n) + (name(i + 1) ? 1 : 0);
        if (wrap && col + 1 + w > 80) {
            printf("\n ");
            col = 1;
        }
        col += printf(" %s%s", n, name(i + 1) ? "," : "");
    }
    printf("\n");
}

void cmd_crawl_usage(void)
{
    printf("usage: sitescout crawl --job FILE [--topic T] [--proxy URL] [--db URL]\n"
           "                       [--labels SITES.tsv] [--report OUT.json] [--set key=value]...\n"
           "                       [--warc-dir DIR [--warc-max-size BYTES]]\n"
           "       sitescout crawl --from-job JOB_ID [--proxy URL] [--db URL] [--set ...]...\n"
           "       sitescout crawl --resume JOB_ID [--proxy URL] [--db URL] [--labels ...] "
           "[--report ...]\n"
           "\n"
           "Run one crawl job in the foreground: train the page classifier on the job's\n"
           "training websites, then find relevant websites until a stop condition holds.\n"
           "Everything is stored in PostgreSQL (the embedded cluster unless --db or\n"
           "SITESCOUT_DB is given); query it with 'sitescout db psql' and the view\n"
           "relevant_websites. Ctrl-C stops the crawl cleanly (a second one aborts).\n"
           "\n"
           "Options:\n"
           "  --job FILE        a job body, or a file of bodies keyed by topic (jobs.json)\n"
           "  --topic T         which entry of a jobs file\n"
           "  --set key=value   override a parameter (e.g. max_pages=3000); repeatable\n"
           "  --from-job JOB_ID a new job on that job's topic, taught what it was: its\n"
           "                    examples with every label its user gave (GET\n"
           "                    /api/jobs/ID/topic), its start sites and params\n"
           "  --resume JOB_ID   continue a job that was interrupted (crash, kill, pause),\n"
           "                    through the proxy it was started with unless --proxy is given\n"
           "  --proxy URL       fetch through this proxy, SCHEME://HOST:PORT (http, https,\n"
           "                    socks4, socks4a, socks5, socks5h; e.g. the replay web); it\n"
           "                    resolves names, so only IP literals are checked here for\n"
           "                    private and own addresses (docs/crawl.md, Destinations)\n"
           "  --db URL          PostgreSQL connection URL\n"
           "  --labels FILE     ground truth (sites.tsv): report precision, recall, F1\n"
           "  --report FILE     write a JSON report, with a curve sampled during the crawl\n"
           "  --warc-dir DIR    archive every fetch (pages, training pages, robots.txt) as\n"
           "                    WARC/1.1 files DIR/sitescout-job-ID-NNNNN.warc.gz, each\n"
           "                    written as NAME.open until closed (docs/crawl.md, WARC capture)\n"
           "  --warc-max-size BYTES  start a new WARC file past this size; default 1 GiB\n"
           "\n");
    print_list("Parameters (--set or the body's \"params\"; docs/crawl.md):", param_name, 1);
    /* One line, whatever its length: scripts read the strategies from it. */
    print_list("Strategies:", strategy_name, 0);
    print_list("Page classifiers (classifier=; svm_c is the svm's C):", classifier_name, 0);
    for (int k = 0; classifier_name((size_t)k); k++) /* what goes with what, from the table */
        for (int s = 0; strategy_name((size_t)s); s++)
            if (jobspec_strategy_refuses(s, k))
                printf("  %s does not work with strategy %s: %s\n", classifier_name((size_t)k),
                       strategy_name((size_t)s), jobspec_strategy_refuses(s, k));
    printf("\nExit status: 0 when the job ends done or paused, 1 when it fails, 2 for bad "
           "usage.\n");
}

int cmd_crawl(int argc, char **argv)
{
    struct fgcrawl_opts o = {0};
    const char *sets[MAX_SETS];
    struct opts_list set_list = {sets, 0, MAX_SETS};
    const struct opts_entry tab[] = {
        OPTS_STRING("job", &o.job_file),
        OPTS_STRING("topic", &o.topic),
        OPTS_STRING("proxy", &o.proxy),
        OPTS_STRING("db", &o.db_url),
        OPTS_STRING("labels", &o.labels_path),
        OPTS_STRING("report", &o.report),
        OPTS_LIST("set", &set_list, "too many --set options"),
        OPTS_INT64("resume", &o.resume, 1, INT64_MAX, "a job id"),
        OPTS_INT64("from-job", &o.from_job, 1, INT64_MAX, "a job id"),
        OPTS_STRING("warc-dir", &o.warc_dir),
        OPTS_UINT64("warc-max-size", &o.warc_max_size, "a size in bytes"),
    };
    const struct opts_parser parser = {"crawl", tab, sizeof tab / sizeof tab[0], OPTS_ERR_JOINT,
                                       .max_args = 0};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    if ((rc = cli_check_proxy("crawl", o.proxy)))
        return rc;
    if (!!o.job_file + !!o.resume + !!o.from_job != 1)
        return cli_usage_error("crawl",
                               "give one of --job FILE, --from-job JOB_ID or --resume JOB_ID");
    if (o.from_job && o.topic)
        return cli_usage_error("crawl", "--from-job takes the job's topic: no --topic");
    if (o.resume && (set_list.n || o.topic))
        return cli_usage_error("crawl", "--resume takes the job as stored: no --set or --topic");
    if ((rc = cli_check_warc("crawl", o.warc_dir, o.warc_max_size)))
        return rc;
    for (int i = 0; i < set_list.n && !o.warc_dir; i++)
        if (strcmp(sets[i], "warc=true") == 0)
            return cli_usage_error("crawl", "--set warc=true needs --warc-dir DIR");
    o.sets = sets;
    o.n_sets = set_list.n;
    return fgcrawl_run(&o);
}
