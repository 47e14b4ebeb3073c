/* `sitescout version`: the version and the libraries it was built with. */
#include <stdio.h>

#include "cli/cli.h"

void cmd_version_usage(void)
{
    printf("usage: sitescout version\n\nPrint the sitescout version.\n");
}

int cmd_version(int argc, char **argv)
{
    if (argc > 1)
        return cli_usage_error("version", "unexpected argument '%s'", argv[1]);
    printf("sitescout %s\n", SITESCOUT_VERSION);
    return CLI_OK;
}
