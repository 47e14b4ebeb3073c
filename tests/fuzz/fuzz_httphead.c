/*
 * libFuzzer harness for server/httpcheck's httpcheck_head, which the connection gate runs
 * on every first request head: any bytes get an answer, and the answer keeps its promises.
 */
#include <stddef.h>
#include <stdint.h>

#include "server/httpcheck.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

/* libFuzzer calls it; it has no header to declare it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    size_t head_len = 0, again_len = 0;
    const char *why = NULL;
    enum httpcheck_head got = httpcheck_head(p, size, &head_len, &why);
    CHECK(why != NULL);
    /* The gate waits for more bytes only below this: else a full buffer waits for ever. */
    CHECK(!(got == HTTPCHECK_HEAD_MORE && size > HTTPCHECK_PEEK_ENOUGH));
    if (got == HTTPCHECK_HEAD_OK) {
        CHECK(head_len > 0 && head_len <= size && head_len <= HTTPCHECK_MAX_HEAD);
        /* The head alone is the same head: what follows it (a body) plays no part. */
        CHECK(httpcheck_head(p, head_len, &again_len, &why) == HTTPCHECK_HEAD_OK);
        CHECK(again_len == head_len);
        /* And one byte less is not yet a head. */
        CHECK(httpcheck_head(p, head_len - 1, &again_len, &why) == HTTPCHECK_HEAD_MORE);
    } else if (got != HTTPCHECK_HEAD_MORE) {
        CHECK(*why != '\0');
    }
    return 0;
}
