/* Unit tests for classifier/pagevecs: pages decoded once by key, errors taken back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "classifier/pagevecs.h"

/* Page's pairs as "term:count ..." into out. */
static void text_of(const struct pagevecs *pv, size_t page, char *out, size_t cap)
{
    const uint32_t *term, *count;
    uint32_t n = pagevecs_page(pv, page, &term, &count);
    size_t at = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t len;
        const char *t = vocab_term(pagevecs_vocab(pv), term[i], &len);
        at +=
            (size_t)snprintf(out + at, cap - at, "%s%.*s:%u", i ? " " : "", (int)len, t, count[i]);
    }
}

static void test_keys(void **state)
{
    (void)state;
    struct pagevecs *pv;
    assert_int_equal(pagevecs_new(&pv), ERR_OK);
    size_t a, b, c, d, e;
    char got[128];
    assert_int_equal(pagevecs_add(pv, 7, "apple:2 pear:1", &a), ERR_OK);
    assert_int_equal(pagevecs_add(pv, 9, "pear:3", &b), ERR_OK);
    assert_int_equal(pagevecs_add(pv, 7, "ignored", &c), ERR_OK); /* met: not decoded */
    assert_int_equal(pagevecs_add(pv, -1, "apple:1", &d), ERR_OK);
    assert_int_equal(pagevecs_add(pv, -1, "apple:1", &e), ERR_OK); /* no key: a new page */
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    assert_int_equal(c, 0);
    assert_int_equal(d, 2);
    assert_int_equal(e, 3);
    text_of(pv, a, got, sizeof got);
    assert_string_equal(got, "apple:2 pear:1");
    text_of(pv, b, got, sizeof got);
    assert_string_equal(got, "pear:3");
    assert_int_equal(pagevecs_vocab(pv)->n, 2); /* apple, pear: one id each */
    size_t empty;
    assert_int_equal(pagevecs_add(pv, 10, NULL, &empty), ERR_OK);
    const uint32_t *t, *n;
    assert_int_equal(pagevecs_page(pv, empty, &t, &n), 0);
    pagevecs_free(pv);
}

/* A text that is not a text form adds no page and no key: the key decodes next time. */
static void test_parse_error(void **state)
{
    (void)state;
    struct pagevecs *pv;
    assert_int_equal(pagevecs_new(&pv), ERR_OK);
    size_t a, b;
    assert_int_equal(pagevecs_add(pv, 1, "apple:2", &a), ERR_OK);
    assert_int_equal(pagevecs_add(pv, 2, "kiwi:1 pear", &b), ERR_PARSE);
    assert_int_equal(pagevecs_add(pv, 2, "plum:4", &b), ERR_OK);
    assert_int_equal(b, 1);
    char got[64];
    text_of(pv, b, got, sizeof got);
    assert_string_equal(got, "plum:4");
    text_of(pv, a, got, sizeof got);
    assert_string_equal(got, "apple:2");
    pagevecs_free(pv);
    pagevecs_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_parse_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
