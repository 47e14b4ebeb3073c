/* Is the web there? (noanswer.h) */
#include "crawler/noanswer.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "common/monotime.h"

/* When a website last answered a run of this process's (monotime_ms; 0 never). */
static atomic_int_fast64_t last_answer_ms;
#define ANSWERED_RECENT_MS 60000

void noanswer_heard(struct noanswer *na)
{
    na->answered = 1;
    atomic_store(&last_answer_ms, monotime_ms());
}

int noanswer_answered(const struct noanswer *na)
{
    int64_t last = atomic_load(&last_answer_ms);
    return na->answered || (last > 0 && monotime_ms() - last < ANSWERED_RECENT_MS);
}

void noanswer_unreached(struct noanswer *na, const char *host, const char *why)
{
    if (!na->unreached++)
        snprintf(na->why, sizeof na->why, "%s: %s", host, why);
}

int noanswer_doubt(const struct noanswer *na)
{
    return !noanswer_answered(na) && na->unreached >= NOANSWER_MAX;
}

enum err noanswer_fail(const struct noanswer *na)
{
    return err_set(ERR_NET,
                   "no website answered: the first %d examined could not be reached (%s); "
                   "check the proxy (--proxy) and the network",
                   na->unreached, na->why);
}
