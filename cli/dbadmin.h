/* The actions of `sitescout db`: the embedded cluster's lifecycle, migrations, psql. */
#ifndef SITESCOUT_CLI_DBADMIN_H
#define SITESCOUT_CLI_DBADMIN_H

enum dbadmin_action {
    DBADMIN_START,
    DBADMIN_STOP,
    DBADMIN_STATUS,
    DBADMIN_URL,
    DBADMIN_PSQL,
    DBADMIN_MIGRATE,
};

/* What `sitescout db` was asked; the strings are borrowed (from argv). */
struct dbadmin_opts {
    enum dbadmin_action action;
    const char *data_dir; /* NULL: <home>/var/pg */
    const char *url;      /* psql, migrate: this database instead of the embedded one */
    int port;
    int tcp;
    int psql_argc; /* psql: its own arguments */
    char **psql_argv;
};

/*
 * Do the action, printing its result on stdout and failures as "sitescout db: ...".
 * Returns the exit status: CLI_OK, CLI_FAIL, or 3 for status of a stopped cluster.
 * psql replaces the process when it can start it.
 */
int dbadmin_run(const struct dbadmin_opts *o);

#endif
