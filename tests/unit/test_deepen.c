/* The relevant websites kept for a deeper read (crawler/deepen): order, bound, ownership. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/deepen.h"
#include "crawler/sitecrawl.h"

/* A kept website; with a real examination when `with_sc` (the list must free it). */
static struct deepen_site site(const char *host, double confidence, int with_sc)
{
    struct deepen_site s = {.host = strdup(host), .confidence = confidence};
    assert_non_null(s.host);
    if (with_sc) {
        struct sitecrawl_params p = {.p_err = 0.1, .p_threshold = 0.9, .c = 1, .max_pages = 5};
        p.prior_target = 0.5;
        assert_int_equal(sitecrawl_new("http://example.com/", &p, NULL, NULL, &s.sc), ERR_OK);
    }
    return s;
}

static void keep(struct deepen *d, const char *host, double confidence)
{
    struct deepen_site s = site(host, confidence, 1);
    assert_int_equal(deepen_keep(d, &s), ERR_OK);
    assert_null(s.host); /* the list's now */
    assert_null(s.sc);
}

static void expect_take(struct deepen *d, const char *host)
{
    struct deepen_site s;
    assert_true(deepen_take(d, &s));
    assert_string_equal(s.host, host);
    assert_non_null(s.sc);
    deepen_site_release(&s);
}

static void test_most_confident_first_then_the_earliest(void **state)
{
    (void)state;
    struct deepen d;
    deepen_init(&d, 10);
    keep(&d, "a", 0.91);
    keep(&d, "b", 0.99);
    keep(&d, "c", 0.95);
    keep(&d, "d", 0.99);
    assert_int_equal(deepen_count(&d), 4);
    expect_take(&d, "b");
    expect_take(&d, "d");
    expect_take(&d, "c");
    expect_take(&d, "a");
    struct deepen_site s;
    assert_false(deepen_take(&d, &s));
    assert_int_equal(d.taken, 4);
    deepen_release(&d);
}

static void test_full_lets_the_least_confident_go(void **state)
{
    (void)state;
    struct deepen d;
    deepen_init(&d, 2);
    keep(&d, "a", 0.92);
    keep(&d, "b", 0.97);
    keep(&d, "c", 0.95); /* a goes */
    keep(&d, "d", 0.90); /* less confident than any kept: dropped */
    assert_int_equal(deepen_count(&d), 2);
    expect_take(&d, "b");
    expect_take(&d, "c");
    deepen_release(&d);
}

static void test_none_kept_with_max_0(void **state)
{
    (void)state;
    struct deepen d;
    deepen_init(&d, 0);
    keep(&d, "a", 0.99); /* freed at once: ASan would see a leak otherwise */
    assert_int_equal(deepen_count(&d), 0);
    deepen_release(&d);
}

static void test_release_frees_what_is_kept(void **state)
{
    (void)state;
    struct deepen d;
    deepen_init(&d, 100);
    for (int i = 0; i < 40; i++) /* past the first growth */
        keep(&d, "x", 0.5 + i / 100.0);
    assert_int_equal(deepen_count(&d), 40);
    deepen_release(&d);
    assert_int_equal(deepen_count(&d), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_most_confident_first_then_the_earliest),
        cmocka_unit_test(test_full_lets_the_least_confident_go),
        cmocka_unit_test(test_none_kept_with_max_0),
        cmocka_unit_test(test_release_frees_what_is_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
