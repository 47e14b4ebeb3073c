/* libFuzzer harness for API job bodies (server/jobspec): any body parses or is refused
 * with a message, and an accepted body's canonical form parses again to itself. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "job/jobspec.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

/* libFuzzer calls it; it has no header to declare it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct jobspec *j = NULL, *again = NULL;
    if (jobspec_parse((const char *)data, size, &j) != ERR_OK) {
        CHECK(err_msg()[0] != '\0'); /* a refusal always says why */
        return 0;
    }
    struct buf one, two;
    buf_init(&one, 0);
    buf_init(&two, 0);
    CHECK(jobspec_to_json(j, &one) == ERR_OK);
    CHECK(jobspec_parse(buf_str(&one), one.len, &again) == ERR_OK);
    CHECK(jobspec_to_json(again, &two) == ERR_OK);
    CHECK(one.len == two.len && memcmp(buf_str(&one), buf_str(&two), one.len) == 0);
    buf_release(&one);
    buf_release(&two);
    jobspec_free(j);
    jobspec_free(again);
    return 0;
}
