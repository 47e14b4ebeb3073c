/*
 * crawler/trainset against a real `sitescout replay` of the demo web (started here on a
 * free port): BFS from the homepage, intrinsic links only, at most k pages, robots.txt
 * obeyed, an alias homepage followed to its www twin, transversal links kept, a dead
 * host gives an empty site, progress reported. Needs SITESCOUT_BIN and SITESCOUT_SRC.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/trainset.h"
#include "crawler/url.h"
#include "testreplay.h"

struct progress_log {
    int calls;
    size_t last_done, last_expected, max_expected;
    int monotonic;
};

static int on_progress(void *ctx, const struct trainset_progress *p)
{
    struct progress_log *l = ctx;
    if (p->pages_done < l->last_done)
        l->monotonic = 0;
    l->calls++;
    l->last_done = p->pages_done;
    l->last_expected = p->pages_expected;
    if (p->pages_expected > l->max_expected)
        l->max_expected = p->pages_expected;
    return 0;
}

static const struct trainset_site *site_of(const struct trainset *ts, const char *home)
{
    for (size_t i = 0; i < trainset_count(ts); i++)
        if (strcmp(trainset_site(ts, i)->homepage, home) == 0)
            return trainset_site(ts, i);
    fail_msg("no site %s", home);
    return NULL;
}

static void test_collect_demo_sites(void **state)
{
    struct testreplay *r = *state;
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = r->proxy;
    fc.delay_ms = 0;
    struct fetcher *f;
    assert_int_equal(fetcher_new(&fc, &f), ERR_OK);
    static const char *const homes[] = {
        "http://www.dawn-olive.com/",      /* robots.txt disallows /members/ */
        "http://motherremote.com/",        /* alias: 301 to www.motherremote.com */
        "http://www.horizonanchor.info/x", /* frameset homepage, 27 pages; any URL: the site */
        "http://no-such-host.invalid/",    /* not in the archive */
    };
    struct trainset_params p;
    trainset_params_default(&p);
    p.pages_per_site = 10;
    p.tag_base = 1000;
    struct progress_log log = {0, 0, 0, 0, 1};
    p.progress = on_progress;
    p.progress_ctx = &log;
    struct trainset *ts;
    assert_int_equal(trainset_new(homes, 4, &p, &ts), ERR_OK);
    assert_int_equal(trainset_run(ts, f), ERR_OK);
    assert_true(trainset_done(ts));
    assert_int_equal(trainset_count(ts), 4);

    size_t total = 0;
    for (size_t i = 0; i < 4; i++) {
        const struct trainset_site *s = trainset_site(ts, i);
        total += s->n_pages;
        assert_true(s->n_pages <= 10);
        for (size_t j = 0; j < s->n_pages; j++) {
            /* Intrinsic only: every page is on the website read. */
            assert_true(url_same_site(s->pages[j].url, s->site));
            assert_non_null(s->pages[j].text);
            for (size_t k = 0; k < s->pages[j].n_transversal; k++)
                assert_false(url_same_site(s->pages[j].transversal[k], s->site));
            /* No page twice. */
            for (size_t k = 0; k < j; k++)
                assert_string_not_equal(s->pages[j].url, s->pages[k].url);
        }
    }

    const struct trainset_site *s = site_of(ts, "http://www.dawn-olive.com/");
    assert_int_equal(s->n_pages, 10);
    assert_int_equal(s->home_status, FETCH_OK);
    assert_false(s->redirected);
    assert_string_equal(s->pages[0].url, "http://www.dawn-olive.com/"); /* BFS from the homepage */
    for (size_t j = 0; j < s->n_pages; j++)
        assert_null(strstr(s->pages[j].url, "/members/")); /* robots.txt obeyed */
    size_t links = 0;
    for (size_t j = 0; j < s->n_pages; j++)
        links += s->pages[j].n_transversal;
    assert_true(links > 0); /* transversal links kept for the job's border */

    s = site_of(ts, "http://motherremote.com/");
    assert_true(s->redirected);
    assert_string_equal(s->site, "http://www.motherremote.com/");
    assert_int_equal(s->home_status, FETCH_OK);
    assert_int_equal(s->n_pages, 10);
    assert_true(strncmp(s->pages[0].url, "http://www.motherremote.com/", 28) == 0);

    s = site_of(ts, "http://www.horizonanchor.info/");
    assert_int_equal(s->n_pages, 10); /* the frames are links: the BFS goes on */
    assert_true(s->fetches >= 10);
    assert_true(s->fetches <= 30); /* the cap: 3k attempts */

    s = site_of(ts, "http://no-such-host.invalid/");
    assert_int_equal(s->n_pages, 0);
    assert_int_not_equal(s->home_status, FETCH_OK);

    /* Progress: called, never backwards, and it ends at what was read. */
    assert_true(log.calls > 0);
    assert_true(log.monotonic);
    assert_int_equal(log.last_done, total);
    assert_int_equal(log.last_expected, total);
    assert_int_equal(log.max_expected, 40);
    assert_int_equal(fetcher_outstanding(f), 0);
    trainset_free(ts);
    fetcher_free(f);
}

static int stop_at_once(void *ctx, const struct trainset_progress *p)
{
    (void)ctx;
    return p->fetches >= 1;
}

static void test_stop_and_errors(void **state)
{
    struct testreplay *r = *state;
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = r->proxy;
    fc.delay_ms = 0;
    struct fetcher *f;
    assert_int_equal(fetcher_new(&fc, &f), ERR_OK);
    static const char *const homes[] = {"http://www.dawn-olive.com/", "http://www.redarch.com/"};
    struct trainset_params p;
    trainset_params_default(&p);
    p.progress = stop_at_once;
    struct trainset *ts;
    assert_int_equal(trainset_new(homes, 2, &p, &ts), ERR_OK);
    assert_int_equal(trainset_run(ts, f), ERR_INTERRUPT);
    assert_false(trainset_done(ts));
    trainset_free(ts);
    fetcher_free(f); /* drops what is still queued */

    static const char *const bad[] = {"http://ok.com/", "mailto:x@y"};
    assert_int_equal(trainset_new(bad, 2, &p, &ts), ERR_INVAL);
    assert_non_null(strstr(err_msg(), "training site 1"));
    p.pages_per_site = 0;
    assert_int_equal(trainset_new(homes, 2, &p, &ts), ERR_INVAL);
    trainset_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collect_demo_sites),
        cmocka_unit_test(test_stop_and_errors),
    };
    return cmocka_run_group_tests(tests, testreplay_group_setup, testreplay_group_teardown);
}
