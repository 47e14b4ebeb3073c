/* `sitescout db`: manage the embedded PostgreSQL cluster and the schema. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/dbadmin.h"
#include "cli/opts.h"
#include "store/pgembed.h"

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

/* In enum dbadmin_action's order. */
static const char *const actions[] = {"start", "stop", "status", "url", "psql", "migrate", NULL};

int cmd_db(int argc, char **argv)
{
    struct dbadmin_opts o = {.port = PGEMBED_DEFAULT_PORT};
    const struct opts_entry tab[] = {
        OPTS_STRING("data-dir", &o.data_dir),
        OPTS_INT("port", &o.port, 1, 65535, "a number from 1 to 65535"),
        OPTS_FLAG("tcp", &o.tcp),
        OPTS_STRING("db", &o.url),
    };
    /* The action ends the options so that psql's own options pass through. */
    const struct opts_parser parser = {
        "db", tab, sizeof tab / sizeof tab[0], OPTS_ERR_UNKNOWN, .stop_at_arg = 1, .max_args = -1};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    if (nargs == 0)
        return cli_usage_error("db", "missing action (start, stop, status, url, psql, migrate)");
    const char *action = argv[1];
    char **rest = argv + 2;
    int n_rest = nargs - 1;
    if (strcmp(action, "psql") == 0) {
        if (n_rest > 0 && strcmp(rest[0], "--") == 0) {
            rest++;
            n_rest--;
        }
        o.action = DBADMIN_PSQL;
        o.psql_argc = n_rest;
        o.psql_argv = rest;
        return dbadmin_run(&o);
    }
    if (n_rest > 0)
        return cli_usage_error("db", "unexpected argument '%s'", rest[0]);
    int i = 0;
    while (actions[i] && strcmp(action, actions[i]) != 0)
        i++;
    if (!actions[i])
        return cli_usage_error(
            "db", "unknown action '%s' (start, stop, status, url, psql, migrate)", action);
    o.action = (enum dbadmin_action)i;
    return dbadmin_run(&o);
}
