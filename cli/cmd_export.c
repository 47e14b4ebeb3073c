/* `sitescout export`: a job's websites as CSV or NDJSON on stdout (store/siteexport.h). */
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/opts.h"
#include "common/buf.h"
#include "store/dbopen.h"
#include "store/siteexport.h"
#include "store/store.h"

void cmd_export_usage(void)
{
    printf("usage: sitescout export --job ID [--format csv|ndjson] [--relevant] [--db URL]\n"
           "\n"
           "Write the websites a job examined (training websites excluded), best first, to\n"
           "stdout: CSV with a header line (the default) or NDJSON, one object a line.\n"
           "Columns: " SITEEXPORT_COLUMNS ".\n"
           "The API serves the same as GET /api/jobs/ID/sites.csv and sites.ndjson.\n"
           "\n"
           "Options:\n"
           "  --job ID          the job\n"
           "  --format F        csv (default) or ndjson\n"
           "  --relevant        only the websites judged relevant\n"
           "  --db URL          PostgreSQL connection URL (default: SITESCOUT_DB, else the\n"
           "                    embedded cluster)\n");
}

int cmd_export(int argc, char **argv)
{
    static const char *const formats[] = {"csv", "ndjson", NULL};
    int64_t job = 0;
    int format = SITEEXPORT_CSV, relevant = 0;
    const char *db = NULL;
    const struct opts_entry tab[] = {
        OPTS_INT64("job", &job, 1, INT64_MAX, "a job id"),
        OPTS_CHOICE("format", &format, formats, "csv or ndjson"),
        OPTS_FLAG("relevant", &relevant),
        OPTS_STRING("db", &db),
    };
    const struct opts_parser parser = {"export", tab, sizeof tab / sizeof tab[0], OPTS_ERR_JOINT,
                                       .max_args = 0};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    if (!job)
        return cli_usage_error("export", "--job is required");
    struct store *s;
    if (dbopen_open(db, NULL, &s) != ERR_OK)
        return cli_fail("export", "%s", err_msg());
    struct buf out;
    buf_init(&out, 0);
    enum err e = siteexport_write(s, job, relevant, (enum siteexport_format)format, &out);
    store_free(s);
    if (e) {
        buf_release(&out);
        return cli_fail("export", "%s", err_msg());
    }
    size_t len = out.len, n = fwrite(buf_str(&out), 1, len, stdout);
    buf_release(&out);
    if (n != len || fflush(stdout) != 0)
        return cli_fail("export", "cannot write to stdout");
    return CLI_OK;
}
