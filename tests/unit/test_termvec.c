/* Unit tests for classifier/termvec: the exact text form, its caps, decoding and its errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/termvec.h"
#include "classifier/tokenize.h"
#include "common/buf.h"

/* The text form of text, with the default tokenizer (stems on, numbers dropped). */
static char *encode(const char *text, size_t len)
{
    struct tokenize_opts o;
    tokenize_opts_default(&o);
    struct tokenizer *t = NULL;
    assert_int_equal(tokenize_new(&o, &t), ERR_OK);
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(termvec_encode(t, text, len, &b), ERR_OK);
    tokenize_free(t);
    return buf_detach(&b);
}

static void expect_encode(const char *text, const char *want)
{
    char *got = encode(text, strlen(text));
    if (strcmp(got, want) != 0)
        fail_msg("termvec_encode(\"%s\") = \"%s\", want \"%s\"", text, got, want);
    free(got);
}

static void test_encode_known_text(void **state)
{
    (void)state;
    /* Stems ("running" -> run, "apples"/"Apple" -> appl, "connections"/"connected" ->
     * connect), stop words and digit-only tokens dropped, mixed ones kept ("3d"), accents
     * folded; byte order puts digits before letters and Greek (bytes >= 0xce) last. */
    expect_encode("Cats running; the cats ran. Zebra apples and an Apple, connections "
                  "connected in 1997: 3D Éclair \xce\xb1\xce\xb2\xce\xb3 cats",
                  "3d:1 appl:2 cat:3 connect:2 eclair:1 ran:1 run:1 zebra:1 "
                  "\xce\xb1\xce\xb2\xce\xb3:1");
    /* One term, then case: the same token. */
    expect_encode("Zebra ZEBRA zebra", "zebra:3");
}

static void test_encode_empty(void **state)
{
    (void)state;
    expect_encode("", "");
    expect_encode("the and of a I 1997 ... !!!", ""); /* nothing but dropped tokens */
}

static void test_encode_appends(void **state)
{
    (void)state;
    struct tokenize_opts o;
    tokenize_opts_default(&o);
    struct tokenizer *t = NULL;
    assert_int_equal(tokenize_new(&o, &t), ERR_OK);
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(buf_append_str(&b, "page="), ERR_OK);
    assert_int_equal(termvec_encode(t, "zebra", 5, &b), ERR_OK);
    assert_string_equal(buf_str(&b), "page=zebra:1");
    buf_release(&b);
    tokenize_free(t);
}

/* Word i: "t0042q" (mixed, so kept with numbers off; no English suffix to stem). */
static void word(char *w, unsigned i)
{
    snprintf(w, 16, "t%04uq", i);
}

static void test_term_cap_keeps_first_met(void **state)
{
    (void)state;
    enum { EXTRA = 100, N = TERMVEC_MAX_TERMS + EXTRA };
    struct buf text, want;
    buf_init(&text, 0);
    buf_init(&want, 0);
    char w[16];
    /* Met in descending order: the first TERMVEC_MAX_TERMS met are N-1 .. EXTRA. */
    for (unsigned i = N; i-- > 0;) {
        word(w, i);
        assert_int_equal(buf_appendf(&text, "%s ", w), ERR_OK);
    }
    /* After the cap: a kept term still counts, a dropped one stays out. */
    word(w, N - 1);
    assert_int_equal(buf_appendf(&text, "%s ", w), ERR_OK);
    word(w, 0);
    assert_int_equal(buf_appendf(&text, "%s ", w), ERR_OK);
    for (unsigned i = EXTRA; i < N; i++) {
        word(w, i);
        assert_int_equal(
            buf_appendf(&want, "%s%s:%u", i > EXTRA ? " " : "", w, i == N - 1 ? 2u : 1u), ERR_OK);
    }
    char *got = encode(text.data, text.len);
    assert_string_equal(got, buf_str(&want));
    free(got);
    buf_release(&text);
    buf_release(&want);
}

static void test_count_cap(void **state)
{
    (void)state;
    struct buf text;
    buf_init(&text, 0);
    for (int i = 0; i < TERMVEC_MAX_COUNT + 5; i++)
        assert_int_equal(buf_append_str(&text, "zebra "), ERR_OK);
    assert_int_equal(buf_append_str(&text, "yak"), ERR_OK);
    char *got = encode(text.data, text.len);
    char want[64];
    snprintf(want, sizeof want, "yak:1 zebra:%d", TERMVEC_MAX_COUNT);
    assert_string_equal(got, want);
    free(got);
    buf_release(&text);
}

/* Decoding back to text: the pairs joined as the text form writes them. */
struct collect {
    struct buf b;
    int calls;
    int fail_at; /* the call that returns ERR_INTERRUPT, 0 = none */
};

static enum err collect_pair(void *ctx, const char *term, size_t len, uint32_t count)
{
    struct collect *c = ctx;
    if (++c->calls == c->fail_at)
        return ERR_INTERRUPT;
    enum err e = buf_appendf(&c->b, "%s%.*s:%u", c->calls > 1 ? " " : "", (int)len, term, count);
    return e;
}

static void test_decode_round_trip(void **state)
{
    (void)state;
    static const char *texts[] = {
        "Cats running; the cats ran. Zebra apples and an Apple, 3D \xce\xb1\xce\xb2\xce\xb3",
        "zebra",
        "",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char *form = encode(texts[i], strlen(texts[i]));
        struct collect c = {.calls = 0};
        buf_init(&c.b, 0);
        assert_int_equal(termvec_decode(form, collect_pair, &c), ERR_OK);
        assert_string_equal(buf_str(&c.b), form);
        buf_release(&c.b);
        free(form);
    }
    /* The largest count and a long term pass through unchanged. */
    char max[64];
    snprintf(max, sizeof max, "abcdefghijklmnopqrstuvwxyz0123456789:%d b:1", TERMVEC_MAX_COUNT);
    struct collect c = {.calls = 0};
    buf_init(&c.b, 0);
    assert_int_equal(termvec_decode(max, collect_pair, &c), ERR_OK);
    assert_string_equal(buf_str(&c.b), max);
    assert_int_equal(c.calls, 2);
    buf_release(&c.b);
}

static void test_decode_null_and_empty(void **state)
{
    (void)state;
    struct collect c = {.calls = 0};
    buf_init(&c.b, 0);
    assert_int_equal(termvec_decode(NULL, collect_pair, &c), ERR_OK);
    assert_int_equal(termvec_decode("", collect_pair, &c), ERR_OK);
    assert_int_equal(c.calls, 0);
    buf_release(&c.b);
}

static void test_decode_refuses_malformed(void **state)
{
    (void)state;
    char above[32];
    snprintf(above, sizeof above, "a:%d", TERMVEC_MAX_COUNT + 1);
    const char *bad[] = {
        "abc",                       /* no colon */
        "a:1 bc",                    /* a later pair without its colon */
        ":3",                        /* empty term */
        "a:1 :3",                    /* empty term later */
        "a:",                        /* no count */
        "a:0",                       /* count 0 */
        "a:00",                      /* count 0 */
        above,                       /* count above the cap */
        "a:99999999999999999999999", /* far above: no overflow back into range */
        "a:4294967297",              /* 2^32 + 1 */
        "a:1  b:2",                  /* double space */
        "a:1 ",                      /* trailing space */
        " a:1",                      /* leading space */
        " ",                         /* a space alone */
        "a:x",                       /* non-digit count */
        "a:1x",                      /* non-digit after the count */
        "a:-1",                      /* sign */
        "a:+1",                      /* sign */
        "a:1:2",                     /* two colons */
        "a:1\tb:2",                  /* another separator */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct collect c = {.calls = 0};
        buf_init(&c.b, 0);
        enum err e = termvec_decode(bad[i], collect_pair, &c);
        if (e != ERR_PARSE)
            fail_msg("termvec_decode(\"%s\") = %d, want ERR_PARSE", bad[i], e);
        buf_release(&c.b);
    }
}

static void test_decode_callback_error_stops(void **state)
{
    (void)state;
    struct collect c = {.fail_at = 2};
    buf_init(&c.b, 0);
    assert_int_equal(termvec_decode("a:1 b:2 c:3 d:4", collect_pair, &c), ERR_INTERRUPT);
    assert_int_equal(c.calls, 2);
    assert_string_equal(buf_str(&c.b), "a:1");
    buf_release(&c.b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_known_text),
        cmocka_unit_test(test_encode_empty),
        cmocka_unit_test(test_encode_appends),
        cmocka_unit_test(test_term_cap_keeps_first_met),
        cmocka_unit_test(test_count_cap),
        cmocka_unit_test(test_decode_round_trip),
        cmocka_unit_test(test_decode_null_and_empty),
        cmocka_unit_test(test_decode_refuses_malformed),
        cmocka_unit_test(test_decode_callback_error_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
