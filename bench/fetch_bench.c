/*
 * Breadth-first fetch of a whole web through the fetcher and the HTML extractor:
 * the issue-4 throughput benchmark, also used by the fetcher's integration tests.
 *
 * usage: fetch_bench --sites SITES.tsv [--proxy URL] [--max-in-flight N] [--delay-ms N]
 *                    [--max-pages N] [--allow-private] [--results FILE] [--timeout-ms N]
 *                    [--max-body BYTES] [--no-robots] [--robots-retry-ms N] [--retries N]
 * Starts at the homepage of every host in SITES.tsv (first column), follows every
 * link (intrinsic and transversal) once, prints figures. --results writes one line
 * per fetch: status name, HTTP status, URL, final URL, body bytes, truncated, error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/log.h"
#include "common/monotime.h"
#include "common/num.h"
#include "common/strmap.h"
#include "crawler/crawlloop.h"
#include "crawler/fetch.h"
#include "crawler/html.h"
#include "crawler/url.h"

struct bfs {
    struct fetcher *f;
    struct strmap seen;
    long submitted, max_pages;
};

/* Submit url (normalised) unless seen or over budget. Takes ownership of url. */
static void visit(struct bfs *b, char *url)
{
    size_t n = strlen(url);
    if (b->submitted >= b->max_pages || strmap_get(&b->seen, url, n)) {
        free(url);
        return;
    }
    if (strmap_put(&b->seen, url, n, (void *)1) != ERR_OK ||
        fetcher_submit(b->f, url, 0) != ERR_OK) {
        fprintf(stderr, "fetch_bench: %s\n", err_msg());
        exit(1);
    }
    b->submitted++;
    free(url);
}

static void follow_links(struct bfs *b, const struct fetch_result *r, uint64_t *links)
{
    struct html_page *page;
    if (html_extract(r->body, r->body_len, r->content_type, NULL, &page) != ERR_OK)
        return;
    char *base = NULL;
    if (!page->base_href || url_resolve(r->final_url, page->base_href, &base) != ERR_OK)
        base = strdup(r->final_url);
    for (size_t i = 0; base && i < page->n_links; i++) {
        char *u;
        if (url_resolve(base, page->links[i].href, &u) == ERR_OK) {
            (*links)++;
            visit(b, u);
        }
    }
    free(base);
    html_page_free(page);
}

/* Option values: whole non-negative numbers, or a one-line error. */
static int long_arg(const char *v, long *out)
{
    int64_t n;
    if (!num_parse_i64(v, 0, INT64_MAX, &n)) {
        fprintf(stderr, "fetch_bench: '%s' is not a non-negative integer\n", v);
        return 0;
    }
    *out = (long)n;
    return 1;
}

static int int_arg(const char *v, int *out)
{
    long n;
    if (!long_arg(v, &n) || n > 1000000000L)
        return 0;
    *out = (int)n;
    return 1;
}

static int size_arg(const char *v, size_t *out)
{
    long n;
    if (!long_arg(v, &n))
        return 0;
    *out = (size_t)n;
    return 1;
}

struct args {
    struct fetch_config cfg;
    const char *sites, *results;
    long max_pages;
};

/* 0 when the command line is good, else the exit code. */
static int parse_args(int argc, char **argv, struct args *a)
{
    static const struct option opts[] = {
        {"sites", required_argument, NULL, 's'},
        {"proxy", required_argument, NULL, 'p'},
        {"max-in-flight", required_argument, NULL, 'n'},
        {"delay-ms", required_argument, NULL, 'd'},
        {"max-pages", required_argument, NULL, 'm'},
        {"allow-private", no_argument, NULL, 'a'},
        {"results", required_argument, NULL, 'r'},
        {"timeout-ms", required_argument, NULL, 't'},
        {"max-body", required_argument, NULL, 'b'},
        {"no-robots", no_argument, NULL, 'R'},
        {"robots-retry-ms", required_argument, NULL, 'T'},
        {"retries", required_argument, NULL, 'x'},
        {NULL, 0, NULL, 0},
    };
    struct fetch_config *cfg = &a->cfg;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            a->sites = optarg;
            break;
        case 'p':
            cfg->proxy = optarg;
            break;
        case 'n':
            if (!int_arg(optarg, &cfg->max_in_flight))
                return 2;
            break;
        case 'd':
            if (!int_arg(optarg, &cfg->delay_ms))
                return 2;
            break;
        case 'm':
            if (!long_arg(optarg, &a->max_pages))
                return 2;
            break;
        case 'a':
            cfg->allow_private = 1;
            break;
        case 'r':
            a->results = optarg;
            break;
        case 't':
            if (!int_arg(optarg, &cfg->timeout_ms))
                return 2;
            break;
        case 'b':
            if (!size_arg(optarg, &cfg->max_body))
                return 2;
            break;
        case 'R':
            cfg->obey_robots = 0;
            break;
        case 'T':
            if (!int_arg(optarg, &cfg->robots_retry_ms))
                return 2;
            break;
        case 'x': /* transient failures asked again per page (fetch.h); default 2 */
            if (!int_arg(optarg, &cfg->max_retries))
                return 2;
            break;
        default:
            fprintf(stderr, "usage: see the top of bench/fetch_bench.c\n");
            return 2;
        }
    }
    if (!a->sites) {
        fprintf(stderr, "fetch_bench: --sites SITES.tsv is required\n");
        return 2;
    }
    return 0;
}

/* Submit the homepage of every host of the sites file. */
static void visit_homepages(struct bfs *b, FILE *in)
{
    char line[4096];
    int first = 1;
    while (fgets(line, sizeof line, in)) {
        if (first-- > 0 && strncmp(line, "host\t", 5) == 0)
            continue;
        line[strcspn(line, "\t\r\n")] = '\0';
        char home[4200], *u;
        snprintf(home, sizeof home, "http://%s/", line);
        if (line[0] && url_normalize(home, &u) == ERR_OK)
            visit(b, u);
    }
}

/* The crawl on the refill loop (crawler/crawlloop): every answer read, its links visited. */
struct walk {
    struct bfs *b;
    FILE *out;
    uint64_t pages, bytes, links;
    double last_result;
};

static int walk_finished(void *arg)
{
    return fetcher_outstanding(((struct walk *)arg)->b->f) == 0;
}

static enum err walk_feed(void *arg, struct fetch_result *r)
{
    struct walk *w = arg;
    w->last_result = monotime_s();
    if (w->out)
        fprintf(w->out, "%s\t%d\t%s\t%s\t%zu\t%d\t%s\n", fetch_status_name(r->status),
                r->http_status, r->url, r->final_url, r->body_len, r->truncated,
                r->error ? r->error : "");
    if (r->status == FETCH_OK) {
        w->pages++;
        w->bytes += r->body_len;
        follow_links(w->b, r, &w->links);
    } else if (r->status == FETCH_REDIRECT && r->redirect_url) {
        visit(w->b, strdup(r->redirect_url));
    }
    return ERR_OK;
}

static enum err walk_tick(void *arg)
{
    struct walk *w = arg;
    if (monotime_s() - w->last_result < 60)
        return ERR_OK;
    return err_set(ERR_TIMEOUT, "no result for 60 s; giving up");
}

static void print_figures(const struct walk *w, double secs)
{
    struct fetch_stats st;
    fetcher_stats(w->b->f, &st);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("pages_ok %llu\nrequests %llu\nrobots_requests %llu\nlinks %llu\nseconds %.2f\n"
           "pages_per_s %.0f\nmb_per_s %.2f\npeak_rss_mb %.1f\n",
           (unsigned long long)w->pages, (unsigned long long)st.requests,
           (unsigned long long)st.robots_requests, (unsigned long long)w->links, secs,
           w->pages / secs, w->bytes / secs / 1e6, ru.ru_maxrss / 1024.0);
    for (int s = 0; s < FETCH_STATUS_COUNT; s++)
        if (st.by_status[s])
            printf("status_%s %llu\n", fetch_status_name((enum fetch_status)s),
                   (unsigned long long)st.by_status[s]);
}

int main(int argc, char **argv)
{
    struct args a = {.max_pages = 10000000};
    fetch_config_defaults(&a.cfg);
    a.cfg.delay_ms = 0;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    FILE *in = fopen(a.sites, "r");
    FILE *out = a.results ? fopen(a.results, "w") : NULL;
    if (!in || (a.results && !out)) {
        fprintf(stderr, "fetch_bench: cannot open %s\n", !in ? a.sites : a.results);
        return 1;
    }
    struct bfs b = {NULL, {0}, 0, a.max_pages};
    strmap_init(&b.seen);
    if (fetcher_new(&a.cfg, &b.f) != ERR_OK) {
        fprintf(stderr, "fetch_bench: %s\n", err_msg());
        return 1;
    }
    double t0 = monotime_s();
    visit_homepages(&b, in);
    fclose(in);
    static const struct crawlloop_hooks hooks = {
        .finished = walk_finished, .feed = walk_feed, .tick = walk_tick};
    struct walk w = {.b = &b, .out = out, .last_result = t0};
    int gave_up = crawlloop_run(b.f, &hooks, &w) != ERR_OK;
    if (gave_up)
        fprintf(stderr, "fetch_bench: %s\n", err_msg());
    print_figures(&w, monotime_s() - t0);
    if (out)
        fclose(out);
    fetcher_free(b.f);
    strmap_release(&b.seen);
    return gave_up;
}
