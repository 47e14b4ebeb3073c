/* Entry point of the sitescout binary: dispatches to subcommands, git style. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void print_help(void)
{
    printf("usage: sitescout COMMAND [ARGS]...\n\n"
           "sitescout finds new websites on a topic: a focused website crawler after\n"
           "Ester, Kriegel & Schubert (VLDB 2004).\n\n"
           "Commands:\n");
    int width = 0; /* the longest name, so that the summaries line up after two spaces */
    for (int i = 0; i < cli_commands_count; i++)
        if ((int)strlen(cli_commands[i].name) > width)
            width = (int)strlen(cli_commands[i].name);
    for (int i = 0; i < cli_commands_count; i++)
        printf("  %-*s  %s\n", width, cli_commands[i].name, cli_commands[i].summary);
    printf("\nRun 'sitescout COMMAND --help' for a command's options.\n"
           "Environment: SITESCOUT_DB (database URL), SITESCOUT_HOME (state directory),\n"
           "SITESCOUT_LOG (debug|info|warn|error|quiet), SITESCOUT_TOKEN (serve's --token),\n"
           "SITESCOUT_LEASE_SECONDS (how long a silent job runner keeps its job, 30),\n"
           "SITESCOUT_DB_WAIT_SECONDS (how long a lost database is waited for, 30).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help();
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0 || cli_is_help(name)) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            const struct cli_command *c = cli_find(argv[2]);
            if (!c)
                return cli_usage_error(NULL, "'%s' is not a sitescout command", argv[2]);
            c->usage();
            return CLI_OK;
        }
        print_help();
        return CLI_OK;
    }
    if (strcmp(name, "--version") == 0)
        name = "version";
    const struct cli_command *c = cli_find(name);
    if (!c)
        return cli_usage_error(NULL, "'%s' is not a sitescout command", name);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (cli_is_help(argv[i])) {
            c->usage();
            return CLI_OK;
        }
    }
    return c->run(argc - 1, argv + 1);
}
