/* libFuzzer harness for crawler/robots: any body parses, any path gets a verdict. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/robots.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

/*
 * Input: the robots.txt body; its last line (after the last '\n') doubles as a
 * path to match, so the fuzzer can aim paths at the patterns it has written.
 */
/* libFuzzer calls it; it has no header to declare it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *body = (const char *)data;
    struct robots *r = NULL;
    if (robots_parse(body, size, ROBOTS_PRODUCT, &r) != ERR_OK)
        return 0;

    size_t start = size;
    while (start > 0 && data[start - 1] != '\n')
        start--;
    char *path = malloc(size - start + 2);
    if (!path) {
        robots_free(r);
        return 0;
    }
    path[0] = '/';
    memcpy(path + 1, data + start, size - start);
    path[size - start + 1] = '\0';

    int allowed = robots_allowed(r, path);
    CHECK(allowed == 0 || allowed == 1);
    CHECK(robots_allowed(r, "/robots.txt"));
    int delay = robots_crawl_delay_ms(r);
    CHECK(delay >= 0 && delay <= ROBOTS_DELAY_MAX_MS);
    if (robots_rule_count(r) == 0)
        CHECK(allowed);
    robots_free(r);

    /* The same body through the per-host policy. */
    struct robots_host h;
    robots_host_init(&h);
    CHECK(robots_host_check(&h, path, 0, NULL) == ROBOTS_FETCH);
    CHECK(robots_host_report(&h, 200, body, size, ROBOTS_PRODUCT, 0) == ERR_OK);
    enum robots_verdict v = robots_host_check(&h, path, 1, NULL);
    CHECK(v == (allowed ? ROBOTS_ALLOW : ROBOTS_DISALLOW));
    robots_host_release(&h);
    free(path);
    return 0;
}
