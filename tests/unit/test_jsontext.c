/* Unit tests for common/jsontext: the one JSON style. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>

#include "common/jsontext.h"

static void test_compact(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } rows[] = {
        {"{\"id\" : 1, \"topic\" : \"sci.space\"}", "{\"id\":1,\"topic\":\"sci.space\"}"},
        {"[{\"a\" : 1}, \n {\"a\" : 2}]", "[{\"a\":1},{\"a\":2}]"},
        {"{\"s\" : \"a , b : c\"}", "{\"s\":\"a , b : c\"}"}, /* strings kept */
        {"{\"s\" : \"q\\\" x \\\\\" , \"t\" : 1}", "{\"s\":\"q\\\" x \\\\\",\"t\":1}"},
        {"{\"s\":\"\\\\\"}", "{\"s\":\"\\\\\"}"},
        {"\t{ }\r\n", "{}"},
        {"{\"a\":[1,2]}", "{\"a\":[1,2]}"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", rows[i].in);
        size_t n = jsontext_compact(buf, strlen(buf));
        assert_string_equal(rows[i].out, buf);
        assert_int_equal(strlen(rows[i].out), n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
