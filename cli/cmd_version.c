/* `sitescout version`: the version and the libraries it was built with. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/opts.h"

void cmd_version_usage(void)
{
    printf("usage: sitescout version\n\nPrint the sitescout version.\n");
}

int cmd_version(int argc, char **argv)
{
    static const struct opts_parser parser = {.cmd = "version", .max_args = 0};
    int nargs;
    int rc = opts_parse(&parser, argc, argv, &nargs);
    if (rc)
        return rc;
    printf("sitescout %s\n", SITESCOUT_VERSION);
    return CLI_OK;
}
