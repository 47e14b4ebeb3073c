/* `sitescout label`: the user's verdict on a website of a job (issue 31, relevance feedback). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/opts.h"
#include "job/joblabels.h"
#include "store/crawlstore.h"
#include "store/dbopen.h"
#include "store/labelstore.h"
#include "store/store.h"

void cmd_label_usage(void)
{
    printf("usage: sitescout label --job ID HOST relevant|not|clear [--db URL]\n"
           "       sitescout label --job ID [--db URL]\n"
           "\n"
           "Say whether a website of a job is on its topic: its verdict is then the label\n"
           "(the view relevant_websites says judged_by user), and the job learns from it:\n"
           "its crawl model takes the labelled websites as examples and judges the others\n"
           "again. A running job's lead does it within a second or two (several labels\n"
           "given together, one judging); for a job that does not run (done, paused,\n"
           "failed) this command does it at once. A labelled website the crawl has not\n"
           "read yet is read next. 'clear' takes the label back. Without HOST: the job's\n"
           "labels, the last given first. docs/api.md, \"Labels\".\n"
           "\n"
           "Options:\n"
           "  --job ID   the job\n"
           "  --db URL   PostgreSQL connection URL (default: SITESCOUT_DB, else the\n"
           "             embedded cluster)\n");
}

static int list(struct store *s, int64_t job)
{
    struct store_rows *r;
    if (labelstore_list(s, job, &r) != ERR_OK)
        return cli_fail("label", "%s", err_msg());
    int n = store_rows_count(r);
    if (!n)
        printf("job %lld has no label\n", (long long)job);
    for (int i = 0; i < n; i++)
        printf("%s\t%s\t%s\t%s\n", store_rows_get(r, i, 0),
               strcmp(store_rows_get(r, i, 1), "t") == 0 ? "relevant" : "not",
               store_rows_get(r, i, 2), store_rows_get(r, i, 3));
    store_rows_free(r);
    return CLI_OK;
}

/* A job that does not run learns from its labels now; a running one's lead does. */
static int judge(struct store *s, int64_t job)
{
    struct crawlstore_job j;
    if (crawlstore_job_get(s, job, &j) != ERR_OK)
        return cli_fail("label", "%s", err_msg());
    int runs = strcmp(j.state, "done") != 0 && strcmp(j.state, "paused") != 0 &&
               strcmp(j.state, "failed") != 0;
    crawlstore_job_release(&j);
    if (runs) {
        printf("job %lld runs: it learns from the label within a second or two\n", (long long)job);
        return CLI_OK;
    }
    int judged;
    struct jobjudge_result r;
    enum err e = joblabels_judge(s, job, 0, &judged, &r);
    jobjudge_model_free(r.model);
    if (e)
        return cli_fail("label", "labelled, but judging again failed: %s", err_msg());
    if (judged && r.model_id)
        printf("job %lld judged again, learning from its labels: %lld verdicts changed, %lld"
               " relevant\n",
               (long long)job, (long long)r.changed, (long long)r.relevant);
    return CLI_OK;
}

int cmd_label(int argc, char **argv)
{
    int64_t job = 0;
    const char *db = NULL;
    const struct opts_entry tab[] = {
        OPTS_INT64("job", &job, 1, INT64_MAX, "a job id"),
        OPTS_STRING("db", &db),
    };
    const struct opts_parser parser = {"label", tab, sizeof tab / sizeof tab[0], OPTS_ERR_JOINT,
                                       .max_args = 2};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    if (!job)
        return cli_usage_error("label", "--job is required");
    if (nargs == 1)
        return cli_usage_error("label", "give HOST and relevant, not or clear");
    int label = LABELSTORE_CLEAR;
    if (nargs == 2) {
        const char *v = argv[2];
        if (strcmp(v, "relevant") == 0)
            label = LABELSTORE_RELEVANT;
        else if (strcmp(v, "not") == 0)
            label = LABELSTORE_NOT;
        else if (strcmp(v, "clear") != 0)
            return cli_usage_error("label", "%s: the label is relevant, not or clear", v);
    }
    struct store *s;
    if (dbopen_open(db, NULL, &s) != ERR_OK)
        return cli_fail("label", "%s", err_msg());
    if (nargs == 0) {
        rc = list(s, job);
        store_free(s);
        return rc;
    }
    struct labelstore_result r;
    if (joblabels_set(s, job, argv[1], label, &r) != ERR_OK) {
        rc = cli_fail("label", "%s", err_msg());
        store_free(s);
        return rc;
    }
    printf("job %lld: %s %s%s (%s); the job has %lld relevant websites\n", (long long)job, argv[1],
           label == LABELSTORE_CLEAR ? "has no label"
           : label                   ? "labelled relevant"
                                     : "labelled not relevant",
           r.changed ? "" : " already", r.state, (long long)r.relevant_found);
    rc = r.changed ? judge(s, job) : CLI_OK;
    store_free(s);
    return rc;
}
