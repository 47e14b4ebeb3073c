/* Starts and stops a `sitescout replay` of the demo web for a test. */
#include "testreplay.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 32

int testreplay_start(const char *const *args, struct testreplay **out)
{
    *out = NULL;
    const char *bin = getenv("SITESCOUT_BIN"), *src = getenv("SITESCOUT_SRC");
    if (!bin || !src) {
        fprintf(stderr, "testreplay: SITESCOUT_BIN and SITESCOUT_SRC must be set\n");
        return -1;
    }
    char warc[4096];
    snprintf(warc, sizeof warc, "%s/demo/demo.warc.gz", src);
    const char *argv[MAX_ARGS + 7] = {bin, "replay", "--warc", warc, "--listen", "127.0.0.1:0"};
    size_t n = 6;
    for (size_t i = 0; args && args[i]; i++) {
        if (i == MAX_ARGS)
            return -1;
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* a test that fails half-way leaves no server */
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    FILE *pout = fdopen(fds[0], "r");
    char line[256];
    struct testreplay *r = calloc(1, sizeof *r);
    if (!pout || !r || !fgets(line, sizeof line, pout) || strncmp(line, "listening on ", 13) != 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        free(r);
        if (pout)
            fclose(pout);
        return -1;
    }
    fclose(pout);
    line[strcspn(line, "\n")] = '\0';
    r->pid = pid;
    snprintf(r->proxy, sizeof r->proxy, "http://%.100s", line + 13);
    *out = r;
    return 0;
}

void testreplay_stop(struct testreplay *r)
{
    if (!r)
        return;
    kill(r->pid, SIGTERM);
    waitpid(r->pid, NULL, 0);
    free(r);
}

int testreplay_group_setup(void **state)
{
    struct testreplay *r;
    if (testreplay_start(NULL, &r) != 0)
        return -1;
    *state = r;
    return 0;
}

int testreplay_group_teardown(void **state)
{
    testreplay_stop(*state);
    return 0;
}
