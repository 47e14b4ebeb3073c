/* The actions of `sitescout db`: start, stop, status, url, psql and migrate. */
#include "cli/dbadmin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "store/dbopen.h"
#include "store/migrate.h"
#include "store/pgembed.h"
#include "store/store.h"

static int act_start(struct pgembed *pg)
{
    enum err e = pgembed_start(pg);
    if (e)
        return cli_fail("db", "%s", err_msg());
    char *url = pgembed_url(pg);
    struct store *s = NULL;
    int applied = 0, version = 0;
    e = url ? store_open(url, 10000, &s) : err_set(ERR_NOMEM, "out of memory");
    if (!e)
        e = migrate_apply(s, &applied);
    if (!e)
        e = migrate_version(s, &version);
    store_free(s);
    if (e) {
        free(url);
        return cli_fail("db", "%s", err_msg());
    }
    printf("PostgreSQL is running; schema version %d\n%s\n", version, url);
    free(url);
    return CLI_OK;
}

static int act_status(struct pgembed *pg)
{
    long pid;
    if (pgembed_status(pg, &pid) != ERR_OK)
        return cli_fail("db", "%s", err_msg());
    char *url = pgembed_url(pg);
    if (!pid) {
        printf("stopped (data in %s)\n", pg->data_dir);
        free(url);
        return 3;
    }
    printf("running (pid %ld, data in %s)\n%s\n", pid, pg->data_dir, url ? url : "");
    free(url);
    return CLI_OK;
}

static int act_migrate(const struct dbadmin_opts *o)
{
    struct store *s;
    if (dbopen_open(o->url, o->data_dir, &s) != ERR_OK)
        return cli_fail("db", "%s", err_msg());
    int version;
    enum err e = migrate_version(s, &version);
    store_free(s);
    if (e)
        return cli_fail("db", "%s", err_msg());
    printf("schema version %d\n", version);
    return CLI_OK;
}

static int act_psql(const struct dbadmin_opts *o, int argc, char **argv)
{
    struct store *s;
    char *url;
    /* Open (and migrate) first so that psql sees the schema. */
    if (dbopen_open(o->url, o->data_dir, &s) != ERR_OK ||
        dbopen_resolve_url(o->url, o->data_dir, &url) != ERR_OK)
        return cli_fail("db", "%s", err_msg());
    store_free(s);
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) {
        free(url);
        return cli_fail("db", "out of memory");
    }
    args[0] = "psql";
    args[1] = url;
    for (int i = 0; i < argc; i++)
        args[i + 2] = argv[i];
    fflush(NULL);
    execvp("psql", args);
    int err = errno;
    free(args);
    free(url);
    return cli_fail("db", "cannot run psql: %s (install postgresql-client)", strerror(err));
}

/* The actions on the embedded cluster itself. */
static int act_cluster(const struct dbadmin_opts *o)
{
    struct pgembed pg;
    if (dbopen_embedded(&pg, o->data_dir, o->port, o->tcp) != ERR_OK)
        return cli_fail("db", "%s", err_msg());
    int rc;
    if (o->action == DBADMIN_START) {
        rc = act_start(&pg);
    } else if (o->action == DBADMIN_STOP) {
        rc = pgembed_stop(&pg) == ERR_OK ? (printf("stopped\n"), CLI_OK)
                                         : cli_fail("db", "%s", err_msg());
    } else if (o->action == DBADMIN_STATUS) {
        rc = act_status(&pg);
    } else {
        char *url = pgembed_url(&pg);
        rc = url ? (printf("%s\n", url), CLI_OK) : cli_fail("db", "out of memory");
        free(url);
    }
    pgembed_release(&pg);
    return rc;
}

int dbadmin_run(const struct dbadmin_opts *o)
{
    if (o->action == DBADMIN_PSQL)
        return act_psql(o, o->psql_argc, o->psql_argv);
    if (o->action == DBADMIN_MIGRATE)
        return act_migrate(o);
    return act_cluster(o);
}
