/* The names of the shared crawl vocabulary. */
#include "crawler/crawl.h"

const char *crawl_stop_name(enum crawl_stop s)
{
    static const char *const names[] = {
        "running",    "max_relevant_sites", "max_pages",  "max_seconds", "border_empty",
        "pprs_limit", "user_stop",          "user_pause", "lease_lost",  "left"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown";
}
