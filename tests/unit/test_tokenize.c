/* Unit tests for classifier/tokenize: case, accents, apostrophes, digits, stop words, stems. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/tokenize.h"
#include "common/buf.h"

struct tcase {
    const char *in;
    bool stem;
    bool numbers;
    const char *want; /* tokens joined by single spaces */
};

static enum err join(void *ctx, const char *tok, size_t len)
{
    struct buf *b = ctx;
    enum err e = ERR_OK;
    if (b->len)
        e = buf_append_char(b, ' ');
    return e ? e : buf_append(b, tok, len);
}

static void check(const struct tcase *c)
{
    struct tokenize_opts o = {.stem = c->stem, .keep_numbers = c->numbers};
    struct tokenizer *t = NULL;
    assert_int_equal(tokenize_new(&o, &t), ERR_OK);
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(tokenize_text(t, c->in, strlen(c->in), join, &b), ERR_OK);
    if (strcmp(buf_str(&b), c->want) != 0)
        fail_msg("tokenize(\"%s\", stem=%d, numbers=%d) = \"%s\", want \"%s\"", c->in, c->stem,
                 c->numbers, buf_str(&b), c->want);
    buf_release(&b);
    tokenize_free(t);
}

static void test_table(void **state)
{
    (void)state;
    static const struct tcase cases[] = {
        {"Hello World", false, false, "hello world"},
        {"  MiXeD\tcase\nLINES  ", false, false, "mixed case lines"},
        {"The cat and the hat", false, false, "cat hat"},
        {"", false, false, ""},
        {"a I x", false, false, ""}, /* single characters are dropped */
        /* accents: Latin-1 and Latin Extended-A fold to ASCII */
        {"Café Müller ÉCOLE naïve", false, false, "cafe muller ecole naive"},
        {"Straße Œuvre Æsir Þing", false, false, "strasse oeuvre aesir thing"},
        {"Łódź Dvořák", false, false, "lodz dvorak"},
        {"e\xcc\x81te\xcc\x81", false, false, "ete"}, /* decomposed accents */
        {"co\xc2\xad"
         "op\xc2\xad"
         "erate",
         false, false, "cooperate"}, /* soft hyphens */
        {"55\xc3\x97"
         "33 aa\xc3\xb7"
         "bb",
         false, true, "55 33 aa bb"}, /* × and ÷ separate */
        /* apostrophes: joined inside words, "'s" clitic dropped, quotes separate */
        {"don't John's O'Neill", false, false, "john oneill"},
        {"'quoted' rock''n roll", false, false, "quoted rock roll"},
        {"it\xe2\x80\x99s Mary\xe2\x80\x99s", false, false, "mary"},
        {"students' books", false, false, "students books"},
        {"rock'n'roll", false, false, "rocknroll"},
        /* digits: mixed tokens always stay, digit-only ones only with keep_numbers */
        {"1997 mp3 3d 42 x86-64", false, false, "mp3 3d x86"},
        {"1997 mp3 3d 42 x86-64", false, true, "1997 mp3 3d 42 x86 64"},
        {"1990's", false, true, "1990"},
        {"1990's", false, false, ""},
        /* hyphens and punctuation separate */
        {"e-mail, state-of-the-art!", false, false, "mail state art"},
        /* other scripts: Greek and Cyrillic lower-cased, others kept */
        {"ΑΘΗΝΑ Москва", false, false, "αθηνα москва"},
        {"\xef\xbc\xa1\xef\xbc\xa2\xef\xbc\xa3", false, false, "abc"}, /* fullwidth ABC */
        {"emoji\xf0\x9f\x98\x80rocket", false, false, "emoji rocket"},
        /* stemming (Snowball English) after stop-word removal */
        {"The running connections of cats", true, false, "run connect cat"},
        {"Generalizations generously", true, false, "general generous"},
        {"running", false, false, "running"},
        /* invalid UTF-8 separates and never crashes */
        {"ab\xff"
         "cd \xc3 ef\xe2\x82",
         false, false, "ab cd ef"},
        {"x\xc0\xafy zz", false, false, "zz"},           /* overlong '/' */
        {"qq\xed\xa0\x80rr", false, false, "qq rr"},     /* UTF-16 surrogate */
        {"ss\xf4\x90\x80\x80tt", false, false, "ss tt"}, /* beyond U+10FFFF */
        {"\x80\x80\x80", false, false, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(&cases[i]);
}

static void test_length_limits(void **state)
{
    (void)state;
    char in[2 * TOKENIZE_MAX_BYTES + 8];
    memset(in, 'k', TOKENIZE_MAX_BYTES);
    memcpy(in + TOKENIZE_MAX_BYTES, " ok", 4);
    struct tcase keep = {in, false, false, NULL};
    char want[TOKENIZE_MAX_BYTES + 8];
    memset(want, 'k', TOKENIZE_MAX_BYTES);
    memcpy(want + TOKENIZE_MAX_BYTES, " ok", 4);
    keep.want = want;
    check(&keep);

    memset(in, 'k', TOKENIZE_MAX_BYTES + 1);
    memcpy(in + TOKENIZE_MAX_BYTES + 1, " ok", 4);
    struct tcase drop = {in, false, false, "ok"};
    check(&drop);
}

static void test_stopwords(void **state)
{
    (void)state;
    assert_true(tokenize_is_stopword("the", 3));
    assert_true(tokenize_is_stopword("yourselves", 10));
    assert_true(tokenize_is_stopword("dont", 4));
    assert_false(tokenize_is_stopword("space", 5));
    assert_false(tokenize_is_stopword("shell", 5)); /* "she'll" joined, but a content word */
    assert_false(tokenize_is_stopword("", 0));
    assert_false(tokenize_is_stopword("thereabouts", 11));
    assert_true(tokenize_is_stopword("them!", 4)); /* only len bytes are read */
}

static enum err stop_after_two(void *ctx, const char *tok, size_t len)
{
    (void)tok;
    (void)len;
    int *n = ctx;
    return ++*n == 2 ? ERR_INTERRUPT : ERR_OK;
}

static void test_callback_error_stops(void **state)
{
    (void)state;
    struct tokenize_opts o;
    tokenize_opts_default(&o);
    struct tokenizer *t = NULL;
    assert_int_equal(tokenize_new(&o, &t), ERR_OK);
    int n = 0;
    const char *s = "alpha beta gamma delta";
    assert_int_equal(tokenize_text(t, s, strlen(s), stop_after_two, &n), ERR_INTERRUPT);
    assert_int_equal(n, 2);
    tokenize_free(t);
    tokenize_free(NULL);
}

/* Every byte value in every position: no crash, tokens are never longer than the cap. */
static enum err check_len(void *ctx, const char *tok, size_t len)
{
    (void)ctx;
    (void)tok;
    assert_true(len > 0 && len <= TOKENIZE_MAX_BYTES);
    return ERR_OK;
}

static void test_all_bytes(void **state)
{
    (void)state;
    struct tokenize_opts o = {.stem = true, .keep_numbers = true};
    struct tokenizer *t = NULL;
    assert_int_equal(tokenize_new(&o, &t), ERR_OK);
    unsigned char s[4];
    for (unsigned a = 0; a < 256; a++)
        for (unsigned b = 0; b < 256; b += 3) {
            s[0] = 'q';
            s[1] = (unsigned char)a;
            s[2] = (unsigned char)b;
            s[3] = 'z';
            assert_int_equal(tokenize_text(t, (const char *)s, sizeof s, check_len, NULL), ERR_OK);
        }
    tokenize_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),     cmocka_unit_test(test_length_limits),
        cmocka_unit_test(test_stopwords), cmocka_unit_test(test_callback_error_stops),
        cmocka_unit_test(test_all_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
