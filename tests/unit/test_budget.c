/*
 * The page budget is hard and every download counts (issue 13), for every strategy:
 * crawls of the demo web with a budget far below what 64 websites in flight would
 * take, checked against the fetcher's own count of the fetches it answered. The
 * website crawler may stop short of the budget by less than one website's page cap
 * (it claims no website the budget cannot pay for); the page crawlers spend it all.
 * And the website crawler's deeper reads of relevant websites count like any page.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/anchorcls.h"
#include "classifier/keyphrases.h"
#include "classifier/pagecls.h"
#include "classifier/weighttable.h"
#include "crawler/crawlrun.h"
#include "crawler/extcrawl.h"
#include "crawler/fetch.h"
#include "crawler/pagecrawl.h"
#include "crawler/seed.h"
#include "crawler/sitecrawl.h"
#include "store/crawlstore.h"
#include "store/joblease.h"
#include "store/store.h"
#include "testdb.h"
#include "testreplay.h"

#define BUDGET      60
#define CONCURRENCY 64
#define SITE_CAP    25 /* max_pages_per_site */

/* The demo web's sci.space start sites (demo/demo.jobs.json). */
static char *const starts[] = {
    "http://www.veneralander.com/",    "http://users.componentattitude.net/",
    "http://www.dimensions-ssto.com/", "http://homepages.telemetrygibbons.net/",
    "http://www.canyonmist.com/",
};

struct fixture {
    struct testreplay *replay;
    struct store *s;
    struct pagecls *model;
};

static int setup(void **state)
{
    static const char *texts[] = {
        "space shuttle orbit launch nasa",           "rocket orbit launch moon",
        "satellite planet shuttle telescope rocket", "recipe bake flour oven",
        "sugar butter dinner kitchen recipe",        "engine bike motorcycle ride road",
    };
    struct pagecls_doc docs[6];
    for (int i = 0; i < 6; i++)
        docs[i] = (struct pagecls_doc){texts[i], strlen(texts[i]),
                                       i < 3 ? PAGECLS_TARGET : PAGECLS_OTHER, (uint32_t)i};
    struct pagecls_params p;
    pagecls_params_default(&p);
    p.centroids = 1;
    p.min_df = 1;
    p.min_sites = 1;
    struct fixture *f = calloc(1, sizeof *f);
    if (!f || testreplay_group_setup((void **)&f->replay) != 0 || testdb_open(&f->s) != 0 ||
        pagecls_train(&p, docs, 6, &f->model) != ERR_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    pagecls_free(f->model);
    store_free(f->s);
    testreplay_group_teardown((void **)&f->replay);
    free(f);
    return 0;
}

/* A job on the demo web's start sites, and a fetcher through the replay. */
static int64_t new_job(struct fixture *f, struct fetcher **fetcher)
{
    int64_t job;
    assert_int_equal(crawlstore_job_create(f->s, "sci.space", "{}", "{}", &job), ERR_OK);
    assert_int_equal(joblease_take(f->s, job, "budget-test"), ERR_OK); /* as jobrun does */
    assert_int_equal(seed_start_sites(f->s, job, starts, sizeof starts / sizeof *starts), ERR_OK);
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = f->replay->proxy;
    fc.delay_ms = 0;
    fc.max_in_flight = CONCURRENCY;
    assert_int_equal(fetcher_new(&fc, fetcher), ERR_OK);
    return job;
}

static struct crawlrun_config config(struct fixture *f, int64_t job, struct fetcher *fetcher,
                                     int64_t budget)
{
    return (struct crawlrun_config){
        .s = f->s,
        .job = job,
        .f = fetcher,
        .worker = "budget-test",
        .limits = {.max_pages = budget, .pprs_window = 1000},
    };
}

/* The fetches that went out and count as pages, by the fetcher's own count. */
static int64_t fetched(struct fetcher *fetcher)
{
    struct fetch_stats st;
    fetcher_stats(fetcher, &st);
    uint64_t n = 0;
    for (int s = 0; s < FETCH_STATUS_COUNT; s++)
        if (fetch_status_downloaded((enum fetch_status)s))
            n += st.by_status[s];
    return (int64_t)n;
}

/* What every strategy owes: the budget held and used, every answered fetch counted. */
static void check_accounts(struct fixture *f, int64_t job, struct fetcher *fetcher,
                           enum crawl_stop why)
{
    assert_int_equal(why, CRAWL_MAX_PAGES);
    struct crawlstore_counts c;
    assert_int_equal(crawlstore_counts(f->s, job, &c), ERR_OK);
    assert_int_equal(c.pages, fetched(fetcher)); /* every fetch answered counts */
    assert_true(c.pages <= BUDGET);
    /* The budget is used: what is left could not pay for one more website. */
    assert_true(c.pages > BUDGET - SITE_CAP);
    assert_int_equal(c.claimed, 0); /* nothing left claimed */
    assert_true(c.examined > 0);
}

/* The website crawler at the job defaults that matter here. */
static struct extcrawl_params website_params(void)
{
    return (struct extcrawl_params){
        .weights = EDGES_COMBINED,
        .site = {.prior_target = 0.5,
                 .p_threshold = 0.9,
                 .l_threshold = 10,
                 .c = 1,
                 .max_pages = SITE_CAP},
        .p_err = 0.1,
        .concurrency = CONCURRENCY,
    };
}

static void website_crawler_keeps_the_budget(void **state)
{
    struct fixture *f = *state;
    struct fetcher *fetcher;
    int64_t job = new_job(f, &fetcher);
    struct crawlrun_config c = config(f, job, fetcher, BUDGET);
    struct extcrawl_params p = website_params();
    enum crawl_stop why;
    assert_int_equal(extcrawl_run(&c, f->model, &p, &why), ERR_OK);
    check_accounts(f, job, fetcher, why);
    fetcher_free(fetcher);
}

/* A budget below one website's page cap still examines websites, and holds. */
static void website_crawler_with_a_tiny_budget(void **state)
{
    struct fixture *f = *state;
    struct fetcher *fetcher;
    int64_t job = new_job(f, &fetcher);
    struct crawlrun_config c = config(f, job, fetcher, 10);
    struct extcrawl_params p = website_params();
    enum crawl_stop why;
    assert_int_equal(extcrawl_run(&c, f->model, &p, &why), ERR_OK);
    assert_int_equal(why, CRAWL_MAX_PAGES);
    struct crawlstore_counts n;
    assert_int_equal(crawlstore_counts(f->s, job, &n), ERR_OK);
    assert_true(n.pages >= 1 && n.pages <= 10);
    assert_int_equal(n.claimed, 0);
    fetcher_free(fetcher);
}

/* One number from the store, about job ($1). */
static int64_t scalar(struct fixture *f, const char *sql, int64_t job)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)job);
    const char *p[] = {id};
    struct store_rows *r;
    assert_int_equal(store_query(f->s, sql, 1, p, &r), ERR_OK);
    int64_t v = store_rows_i64(r, 0, 0, -1);
    store_rows_free(r);
    return v;
}

/* The website crawler run on job as asked, stopped for `want`: its pages, every answered
 * fetch counted. */
static int64_t run_website(struct fixture *f, int64_t job, struct fetcher *fetcher,
                           const struct crawlrun_config *c, const struct extcrawl_params *p,
                           enum crawl_stop want)
{
    enum crawl_stop why;
    assert_int_equal(extcrawl_run(c, f->model, p, &why), ERR_OK);
    assert_int_equal(why, want);
    struct crawlstore_counts n;
    assert_int_equal(crawlstore_counts(f->s, job, &n), ERR_OK);
    assert_int_equal(n.pages, fetched(fetcher)); /* every fetch answered counts */
    return n.pages;
}

/* A crawl model that agrees with every examination: it changes no read (sitecrawl.h).
 * ctx: its row's id (the verdicts name it). */
static int model_agrees(void *ctx, const struct sitecrawl_page *pages, size_t n, double *conf,
                        int64_t *model, const char **like_rejected)
{
    (void)pages, (void)n;
    if (like_rejected)
        *like_rejected = NULL;
    *conf = 1;
    *model = *(const int64_t *)ctx;
    return 1;
}

/*
 * With a crawl model judging the job, the budget keeps the pages a website judged
 * relevant needs for the model's verdict: none is cut by the budget before its
 * SITECRAWL_MODEL_PAGES-th page. Without one, the budget cuts such websites (the
 * control: the demo web's relevant websites have more pages than that).
 */
static void website_crawler_keeps_the_crawl_models_pages(void **state)
{
    struct fixture *f = *state;
    char cut_early[200];
    snprintf(cut_early, sizeof cut_early,
             "SELECT count(*) FROM sites WHERE job_id = $1 AND relevant AND read_stop = "
             "'job_max_pages' AND pages_visited < %d",
             SITECRAWL_MODEL_PAGES);
    int64_t cut[2];
    for (int with_model = 0; with_model < 2; with_model++) {
        struct fetcher *fetcher;
        int64_t job = new_job(f, &fetcher);
        struct crawlrun_config c = config(f, job, fetcher, 3 * BUDGET);
        struct extcrawl_params p = website_params();
        p.site.l_threshold = 1e9;       /* relevant websites read on until cut ... */
        p.site.max_pages_to_decide = 3; /* ... and many at once, ... */
        p.site.prior_target = 0.95;     /* ... most of them relevant */
        int64_t model = 0; /* a crawl model's row for the verdicts to name (a database of its
                            * own has no row 1) */
        if (with_model) {
            model = scalar(f,
                           "INSERT INTO models (job_id, format_version, p_err, data, kind)"
                           " VALUES ($1, 1, 0, ''::bytea, 'crawl') RETURNING id",
                           job);
            p.site.model_conf = model_agrees;
            p.site.model_conf_ctx = &model;
        }
        assert_true(run_website(f, job, fetcher, &c, &p, CRAWL_MAX_PAGES) <= 3 * BUDGET);
        cut[with_model] = scalar(f, cut_early, job);
        fetcher_free(fetcher);
    }
    print_message("relevant websites cut before the model's pages: without a model %lld, with "
                  "%lld\n",
                  (long long)cut[0], (long long)cut[1]);
    assert_true(cut[0] > 0);
    assert_int_equal(cut[1], 0);
}

/* A whole crawl of the demo web, no budget: the job's id; pages_downloaded in *pages. */
static int64_t crawl_all(struct fixture *f, int deepen_sites, int linkrank_fixed, int64_t *pages)
{
    struct fetcher *fetcher;
    int64_t job = new_job(f, &fetcher);
    struct crawlrun_config c = config(f, job, fetcher, 0);
    struct extcrawl_params p = website_params();
    p.deepen_sites = deepen_sites;
    p.linkrank_fixed = linkrank_fixed;
    p.concurrency = 2; /* a border of more than 8 websites per website in flight: LinkRank
                        * as the paper has it, until the border runs low */
    *pages = run_website(f, job, fetcher, &c, &p, CRAWL_BORDER_EMPTY);
    /* Each website's pages are its own fetches, deeper reads included ... */
    assert_int_equal(scalar(f, "SELECT sum(pages_visited) FROM sites WHERE job_id = $1", job),
                     *pages);
    /* ... and no page was downloaded twice. */
    assert_int_equal(scalar(f,
                            "SELECT count(*) FROM (SELECT host, url FROM pages WHERE job_id = $1"
                            " GROUP BY 1, 2 HAVING count(*) > 1) d",
                            job),
                     0);
    fetcher_free(fetcher);
    return job;
}

/*
 * Relevant websites are read deeper for their links when the border runs low: where the
 * crawl without deeper reads left pages of relevant websites unread (LinkRank ended their
 * reads), more of their pages read; never fewer; more websites known, nothing read
 * twice, every page counted once. (How many reads LinkRank ends depends on how low the
 * border is as they are read: with a fast build none on this small web, and then there
 * is nothing to read deeper.)
 */
static void website_crawler_reads_relevant_websites_deeper(void **state)
{
    struct fixture *f = *state;
    int64_t flat_pages, deep_pages;
    int64_t flat = crawl_all(f, 0, 0, &flat_pages);
    int64_t deep = crawl_all(f, 4096, 0, &deep_pages);
    static const char relevant_pages[] =
        "SELECT coalesce(sum(pages_visited), 0) FROM sites WHERE job_id = $1 AND relevant";
    static const char ended[] = "SELECT count(*) FROM sites WHERE job_id = $1 AND relevant"
                                " AND read_stop = 'linkrank'";
    int64_t left = scalar(f, ended, flat);
    print_message("relevant pages %lld -> %lld, pages %lld -> %lld; relevant websites LinkRank "
                  "ended without deeper reads: %lld\n",
                  (long long)scalar(f, relevant_pages, flat),
                  (long long)scalar(f, relevant_pages, deep), (long long)flat_pages,
                  (long long)deep_pages, (long long)left);
    assert_true(scalar(f, relevant_pages, deep) >= scalar(f, relevant_pages, flat));
    assert_true(deep_pages >= flat_pages);
    if (left) {
        assert_true(scalar(f, relevant_pages, deep) > scalar(f, relevant_pages, flat));
        assert_true(deep_pages > flat_pages);
    }
    static const char known[] = "SELECT count(*) FROM sites WHERE job_id = $1";
    assert_true(scalar(f, known, deep) >= scalar(f, known, flat));
}

/*
 * linkrank_threshold=fixed, the paper's §4.3.4: LinkRank's threshold stays l_threshold
 * however low the border runs, and no website is read deeper. A relevant website whose
 * verdict was final then stops when LinkRank reaches 10, long before the page cap; with
 * the growing threshold (and the deeper reads at an empty border), on a web this small,
 * relevant websites are read to the cap.
 */
static void website_crawler_with_the_papers_linkrank(void **state)
{
    struct fixture *f = *state;
    int64_t fixed_pages, growing_pages;
    int64_t fixed = crawl_all(f, 4096, 1, &fixed_pages);
    int64_t growing = crawl_all(f, 4096, 0, &growing_pages);
    static const char capped[] =
        "SELECT count(*) FROM sites WHERE job_id = $1 AND relevant AND verdict_by = "
        "'threshold' AND read_stop = 'max_pages_per_site'";
    static const char linkrank[] = "SELECT count(*) FROM sites WHERE job_id = $1 AND relevant"
                                   " AND read_stop = 'linkrank'";
    print_message("relevant websites read to the cap: fixed %lld, growing %lld; stopped by "
                  "LinkRank: fixed %lld; pages %lld, %lld\n",
                  (long long)scalar(f, capped, fixed), (long long)scalar(f, capped, growing),
                  (long long)scalar(f, linkrank, fixed), (long long)fixed_pages,
                  (long long)growing_pages);
    assert_int_equal(scalar(f, capped, fixed), 0);
    assert_true(scalar(f, linkrank, fixed) > 0);
    assert_true(scalar(f, capped, growing) > 0);
}

static void page_crawlers_keep_the_budget(void **state)
{
    struct fixture *f = *state;
    pageorder_fn orders[] = {pageorder_page, pageorder_bfs, pageorder_bestfirst, pageorder_history,
                             pageorder_hotwords};
    for (size_t i = 0; i < sizeof orders / sizeof *orders; i++) {
        struct fetcher *fetcher;
        int64_t job = new_job(f, &fetcher);
        struct crawlrun_config c = config(f, job, fetcher, BUDGET);
        struct pagecrawl_params p = {.priority = orders[i],
                                     .prior_target = 0.5,
                                     .p_err = 0.1,
                                     .p_threshold = 0.9,
                                     .max_pages_per_site = SITE_CAP,
                                     .concurrency = CONCURRENCY};
        enum crawl_stop why;
        assert_int_equal(pagecrawl_run(&c, f->model, &p, &why), ERR_OK);
        check_accounts(f, job, fetcher, why);
        fetcher_free(fetcher);
    }
}

/*
 * The strategies of seeds 001, 002 and 004 with what they read pages with: a few key
 * phrases, a small weight table, an untrained anchor classifier. weight_table (links
 * above a threshold) may run out of links before the budget: the crawl then says so, and
 * the accounts still hold. relevance_degree reads links within websites once those to
 * other hosts are spent (issue 32), so it spends the budget.
 */
static void seed_strategies_keep_the_budget(void **state)
{
    struct fixture *f = *state;
    struct tokenize_opts tok;
    tokenize_opts_default(&tok);
    static const char keys_text[] = "space\norbit\nlaunch\n";
    static const char table_text[] = "space 1 1.5\norbit 0.6 2\nlaunch 0.4 1.2\n";
    for (int i = 0; i < 3; i++) {
        struct fetcher *fetcher;
        int64_t job = new_job(f, &fetcher);
        struct crawlrun_config c = config(f, job, fetcher, BUDGET);
        struct pagecrawl_params p = {.prior_target = 0.5,
                                     .p_err = 0.1,
                                     .p_threshold = 0.9,
                                     .max_pages_per_site = SITE_CAP,
                                     .concurrency = CONCURRENCY,
                                     .rho = PAGEORDER_RHO,
                                     .admit_above = PAGEORDER_LINK_THRESHOLD,
                                     .learn_margin = 0.1,
                                     .rescore_every = 10};
        if (i == 0) {
            p.priority = pageorder_relevance_degree;
            p.own_host_last = 1;
            assert_int_equal(keyphrases_parse(&tok, keys_text, strlen(keys_text), &p.keys), ERR_OK);
        } else if (i == 1) {
            p.priority = pageorder_weight_table;
            assert_int_equal(weighttable_parse(&tok, table_text, strlen(table_text), &p.table),
                             ERR_OK);
        } else {
            p.priority = pageorder_learning_anchor;
            assert_int_equal(anchorcls_new(&tok, &p.learn), ERR_OK);
        }
        enum crawl_stop why;
        assert_int_equal(pagecrawl_run(&c, f->model, &p, &why), ERR_OK);
        struct crawlstore_counts n;
        assert_int_equal(crawlstore_counts(f->s, job, &n), ERR_OK);
        assert_true(why == CRAWL_MAX_PAGES || (i != 0 && why == CRAWL_BORDER_EMPTY));
        assert_int_equal(n.pages, fetched(fetcher)); /* every fetch answered counts */
        assert_true(n.pages <= BUDGET);
        if (why == CRAWL_MAX_PAGES)
            assert_true(n.pages > BUDGET - SITE_CAP);
        assert_int_equal(n.claimed, 0);
        assert_true(n.examined > 0);
        print_message("strategy %d: %lld pages, %s\n", i, (long long)n.pages, crawl_stop_name(why));
        keyphrases_free(p.keys);
        weighttable_free(p.table);
        anchorcls_free(p.learn);
        fetcher_free(fetcher);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(website_crawler_keeps_the_budget),
        cmocka_unit_test(website_crawler_with_a_tiny_budget),
        cmocka_unit_test(website_crawler_reads_relevant_websites_deeper),
        cmocka_unit_test(website_crawler_with_the_papers_linkrank),
        cmocka_unit_test(website_crawler_keeps_the_crawl_models_pages),
        cmocka_unit_test(page_crawlers_keep_the_budget),
        cmocka_unit_test(seed_strategies_keep_the_budget),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
