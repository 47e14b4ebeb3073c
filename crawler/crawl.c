/* The names of the shared crawl vocabulary. */
#include "crawler/crawl.h"

const char *crawl_stop_name(enum crawl_stop s)
{
    static const char *const names[] = {
        [CRAWL_RUNNING] = "running",           [CRAWL_MAX_RELEVANT] = "max_relevant_sites",
        [CRAWL_MAX_PAGES] = "max_pages",       [CRAWL_MAX_SECONDS] = "max_seconds",
        [CRAWL_BORDER_EMPTY] = "border_empty", [CRAWL_PPRS] = "pprs_limit",
        [CRAWL_USER_STOP] = "user_stop",       [CRAWL_USER_PAUSE] = "user_pause",
        [CRAWL_LEASE_LOST] = "lease_lost",     [CRAWL_LEFT] = "left",
    };
    _Static_assert(sizeof names / sizeof names[0] == CRAWL_STOP_COUNT, "a name per stop");
    return (unsigned)s < CRAWL_STOP_COUNT ? names[s] : "unknown";
}
