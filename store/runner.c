/* A job's runners: their names, whether one is gone, how long a lease lasts (runner.h). */
#include "store/runner.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/num.h"

int runner_lease_seconds(void)
{
    const char *v = getenv("SITESCOUT_LEASE_SECONDS");
    int n;
    return v && num_parse_int(v, 1, 3600, &n) ? n : RUNNER_LEASE_DEFAULT_SECONDS;
}

static void host_name(char *buf, size_t n)
{
    if (gethostname(buf, n - 1) != 0)
        snprintf(buf, n, "localhost");
    buf[n - 1] = '\0';
}

void runner_name(char *buf, size_t n, int slot)
{
    char host[64];
    host_name(host, sizeof host);
    if (slot >= 0)
        snprintf(buf, n, "%s:%d:%d", host, (int)getpid(), slot);
    else
        snprintf(buf, n, "%s:%d", host, (int)getpid());
}

int runner_gone(const char *worker)
{
    char host[64];
    host_name(host, sizeof host);
    size_t hl = strlen(host);
    if (!worker || strncmp(worker, host, hl) != 0 || worker[hl] != ':')
        return 0; /* another host's: only its lease's age tells */
    /* host:pid, or host:pid:thread */
    const char *p = worker + hl + 1;
    size_t pl = strcspn(p, ":");
    char digits[24];
    int64_t pid;
    if (pl >= sizeof digits)
        return 0;
    memcpy(digits, p, pl);
    digits[pl] = '\0';
    if (!num_parse_i64(digits, 1, LONG_MAX, &pid))
        return 0;
    if (pid == (int64_t)getpid())
        return 0; /* this process: its threads' leases are theirs to let go */
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}
