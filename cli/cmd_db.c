/* `sitescout db`: manage the embedded PostgreSQL cluster and the schema. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/db.h"
#include "store/migrate.h"
#include "store/pgembed.h"
#include "store/store.h"

void cmd_db_usage(void)
{
    printf("usage: sitescout db [OPTIONS] ACTION [ARGS]\n"
           "\n"
           "Manage the embedded PostgreSQL cluster that sitescout uses when no --db URL\n"
           "or SITESCOUT_DB is given. It lives in $SITESCOUT_HOME/var/pg (by default the\n"
           "checkout the binary was built in) and listens on a unix socket there. When run\n"
           "as root, PostgreSQL runs as the 'postgres' user.\n"
           "\n"
           "Actions:\n"
           "  start          create the cluster if needed, start it, apply migrations\n"
           "  stop           stop it\n"
           "  status         say whether it runs (exit 0) or not (exit 3), and where\n"
           "  url            print its connection URL\n"
           "  psql [ARGS]    run psql on the database (starts the cluster if needed);\n"
           "                 ARGS go to psql, e.g. -c 'select 1'\n"
           "  migrate        apply missing schema migrations and print the schema version\n"
           "\n"
           "Options:\n"
           "  --data-dir DIR  cluster directory (default $SITESCOUT_HOME/var/pg)\n"
           "  --port N        port and socket number (default %d)\n"
           "  --tcp           also listen on 127.0.0.1:PORT (takes effect at start)\n"
           "  --db URL        for psql and migrate: use this database instead\n",
           PGEMBED_DEFAULT_PORT);
}

struct db_opts {
    const char *data_dir;
    const char *url;
    int port;
    int tcp;
};

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

static int act_migrate(const struct db_opts *o)
{
    struct store *s;
    if (db_open(o->url, o->data_dir, &s) != ERR_OK)
        return cli_fail("db", "%s", err_msg());
    int version;
    enum err e = migrate_version(s, &version);
    store_free(s);
    if (e)
        return cli_fail("db", "%s", err_msg());
    printf("schema version %d\n", version);
    return CLI_OK;
}

static int act_psql(const struct db_opts *o, int argc, char **argv)
{
    struct store *s;
    char *url;
    /* Open (and migrate) first so that psql sees the schema. */
    if (db_open(o->url, o->data_dir, &s) != ERR_OK ||
        db_resolve_url(o->url, o->data_dir, &url) != ERR_OK)
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

int cmd_db(int argc, char **argv)
{
    struct db_opts o = {NULL, NULL, PGEMBED_DEFAULT_PORT, 0};
    static const struct option longopts[] = {
        {"data-dir", required_argument, NULL, 'd'},
        {"port", required_argument, NULL, 'p'},
        {"tcp", no_argument, NULL, 't'},
        {"db", required_argument, NULL, 'u'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    optind = 1;
    int c;
    /* "+" stops at the action so that psql's own options pass through. */
    while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': o.data_dir = optarg; break;
        case 'u': o.url = optarg; break;
        case 't': o.tcp = 1; break;
        case 'p': {
            long v;
            if (!cli_parse_long(optarg, 1, 65535, &v))
                return cli_usage_error("db", "--port wants a number from 1 to 65535, not '%s'",
                                       optarg);
            o.port = (int)v;
            break;
        }
        default:
            return cli_usage_error("db", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("db", "missing action (start, stop, status, url, psql, migrate)");
    const char *action = argv[optind++];
    int rest = argc - optind;
    if (strcmp(action, "psql") == 0) {
        if (rest > 0 && strcmp(argv[optind], "--") == 0) {
            optind++;
            rest--;
        }
        return act_psql(&o, rest, argv + optind);
    }
    if (rest > 0)
        return cli_usage_error("db", "unexpected argument '%s'", argv[optind]);
    if (strcmp(action, "migrate") == 0)
        return act_migrate(&o);

    static const char *const actions[] = {"start", "stop", "status", "url"};
    int known = 0;
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        known |= strcmp(action, actions[i]) == 0;
    if (!known)
        return cli_usage_error("db", "unknown action '%s' (start, stop, status, url, psql, migrate)",
                               action);

    struct pgembed pg;
    if (db_embedded(&pg, o.data_dir, o.port, o.tcp) != ERR_OK)
        return cli_fail("db", "%s", err_msg());
    int rc;
    if (strcmp(action, "start") == 0) {
        rc = act_start(&pg);
    } else if (strcmp(action, "stop") == 0) {
        rc = pgembed_stop(&pg) == ERR_OK ? (printf("stopped\n"), CLI_OK)
                                         : cli_fail("db", "%s", err_msg());
    } else if (strcmp(action, "status") == 0) {
        rc = act_status(&pg);
    } else {
        char *url = pgembed_url(&pg);
        rc = url ? (printf("%s\n", url), CLI_OK) : cli_fail("db", "out of memory");
        free(url);
    }
    pgembed_release(&pg);
    return rc;
}
