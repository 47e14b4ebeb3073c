/*
 * The training checkpoint's two halves: job/trainsave (a training website's record as
 * JSON and back, NUL and non-ASCII text included) and crawler/trainset's site_done /
 * trainset_restore, against a real `sitescout replay` of the demo web: websites read
 * once and restored are not fetched again and come back page for page. Needs
 * SITESCOUT_BIN and SITESCOUT_SRC.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "crawler/trainset.h"
#include "job/trainsave.h"
#include "testreplay.h"

static void assert_same_site(const struct trainset_site *a, const struct trainset_site *b)
{
    assert_string_equal(a->homepage, b->homepage);
    assert_string_equal(a->site, b->site);
    assert_int_equal(a->fetches, b->fetches);
    assert_int_equal(a->home_status, b->home_status);
    assert_int_equal(a->home_http_status, b->home_http_status);
    assert_int_equal(a->redirected, b->redirected);
    assert_int_equal(a->n_pages, b->n_pages);
    for (size_t j = 0; j < a->n_pages; j++) {
        const struct trainset_page *p = &a->pages[j], *q = &b->pages[j];
        assert_string_equal(p->url, q->url);
        assert_int_equal(p->text_len, q->text_len);
        assert_memory_equal(p->text, q->text, p->text_len);
        assert_int_equal(p->n_transversal, q->n_transversal);
        for (size_t k = 0; k < p->n_transversal; k++)
            assert_string_equal(p->transversal[k], q->transversal[k]);
        assert_int_equal(p->n_intrinsic, q->n_intrinsic);
        for (size_t k = 0; k < p->n_intrinsic; k++)
            assert_string_equal(p->intrinsic[k], q->intrinsic[k]);
    }
}

/* A record by hand: a NUL and UTF-8 in the text, an empty page, a redirected homepage. */
static void test_record_round_trip(void **state)
{
    (void)state;
    static char text0[] = "Title\nsp\0ace \xc3\xa9t\xc3\xa9", text1[] = "";
    char *links0[] = {"http://a.example/", "http://b.example/x?y=1"};
    char *own0[] = {"http://www.x.example/p"};
    struct trainset_page pages[] = {
        {"http://www.x.example/", text0, sizeof text0 - 1, links0, 2, own0, 1},
        {"http://www.x.example/p", text1, 0, NULL, 0, NULL, 0},
    };
    struct trainset_site s = {
        "http://x.example/", "http://www.x.example/", pages, 2, 7, FETCH_OK, 200, 1, NULL};
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(trainsave_write(&s, &b), ERR_OK);
    struct trainset_site back;
    assert_int_equal(trainsave_read(buf_str(&b), &back), ERR_OK);
    assert_same_site(&s, &back);
    trainset_site_release(&back);
    buf_release(&b);

    /* A record written before intrinsic links were kept reads with none. */
    static const char old[] = "{\"homepage\": \"h\", \"site\": \"s\", \"pages\": "
                              "[{\"url\": \"u\", \"text\": \"t\", \"links\": [\"l\"]}]}";
    assert_int_equal(trainsave_read(old, &back), ERR_OK);
    assert_int_equal(back.n_pages, 1);
    assert_int_equal(back.pages[0].n_transversal, 1);
    assert_int_equal(back.pages[0].n_intrinsic, 0);
    trainset_site_release(&back);

    static const char *const bad[] = {"",
                                      "[]",
                                      "{\"homepage\": \"h\"}",
                                      "{\"homepage\": \"h\", \"site\": \"s\", \"pages\": [{}]}",
                                      "{\"homepage\": \"h\", \"site\": \"s\", \"pages\": "
                                      "[{\"url\": \"u\", \"text\": \"t\", \"links\": [1]}]}",
                                      "{\"homepage\": \"h\", \"site\": \"s\", \"pages\": "
                                      "[{\"url\": \"u\", \"text\": \"t\", \"links\": [], "
                                      "\"intrinsic\": [1]}]}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(trainsave_read(bad[i], &back), ERR_PARSE);

    static char bad_utf8[] = "\xff\xfe";
    pages[1].text = bad_utf8;
    pages[1].text_len = 2;
    buf_init(&b, 0);
    assert_int_equal(trainsave_write(&s, &b), ERR_PARSE); /* not checkpointed: read again */
    buf_release(&b);
}

struct saved {
    char *records[4];
    int calls;
};

static enum err on_site_done(void *ctx, size_t i, const struct trainset_site *s)
{
    struct saved *sv = ctx;
    sv->calls++;
    struct buf b;
    buf_init(&b, 0);
    enum err e = trainsave_write(s, &b);
    if (!e)
        sv->records[i] = strdup(buf_str(&b));
    buf_release(&b);
    return e;
}

static int count_fetches(void *ctx, const struct trainset_progress *p)
{
    *(size_t *)ctx = p->fetches;
    return 0;
}

static void test_checkpoint_and_restore(void **state)
{
    struct testreplay *r = *state;
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = r->proxy;
    fc.delay_ms = 0;
    struct fetcher *f;
    assert_int_equal(fetcher_new(&fc, &f), ERR_OK);
    static const char *const homes[] = {"http://www.dawn-olive.com/", "http://motherremote.com/",
                                        "http://www.horizonanchor.info/"};
    struct trainset_params p;
    trainset_params_default(&p);
    p.pages_per_site = 6;
    struct saved sv = {0};
    p.site_done = on_site_done;
    p.progress_ctx = &sv;
    struct trainset *first;
    assert_int_equal(trainset_new(homes, 3, &p, &first), ERR_OK);
    assert_int_equal(trainset_run(first, f), ERR_OK);
    assert_int_equal(sv.calls, 3); /* each website checkpointed once, when read */

    /* A second run with websites 0 and 1 restored fetches only website 2. */
    struct trainset_params q;
    trainset_params_default(&q);
    q.pages_per_site = 6;
    size_t fetches = 0;
    q.progress = count_fetches;
    q.progress_ctx = &fetches;
    struct trainset *again;
    assert_int_equal(trainset_new(homes, 3, &q, &again), ERR_OK);
    struct trainset_site site;
    assert_int_equal(trainsave_read(sv.records[0], &site), ERR_OK);
    assert_int_equal(trainset_restore(again, 1, &site), ERR_INVAL); /* another website's */
    assert_int_equal(trainset_restore(again, 0, &site), ERR_OK);
    assert_null(site.homepage); /* taken over */
    assert_int_equal(trainsave_read(sv.records[1], &site), ERR_OK);
    assert_int_equal(trainset_restore(again, 1, &site), ERR_OK);
    assert_int_equal(trainset_run(again, f), ERR_OK);
    assert_true(trainset_done(again));
    assert_int_equal(fetches, (size_t)trainset_site(first, 2)->fetches);
    for (size_t i = 0; i < 3; i++)
        assert_same_site(trainset_site(first, i), trainset_site(again, i));

    for (size_t i = 0; i < 3; i++)
        free(sv.records[i]);
    trainset_free(first);
    trainset_free(again);
    fetcher_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_round_trip),
        cmocka_unit_test(test_checkpoint_and_restore),
    };
    return cmocka_run_group_tests(tests, testreplay_group_setup, testreplay_group_teardown);
}
