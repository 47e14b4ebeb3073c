/* A border of a million websites (issue 15): claim and edge-update latency, RSS, table sizes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/monotime.h"
#include "common/num.h"
#include "store/crawlstore.h"
#include "store/dbopen.h"
#include "store/store.h"

#define NUM(buf, v) (snprintf((buf), sizeof(buf), "%lld", (long long)(v)), (buf))

#define EDGES_PER_SOURCE 50 /* out-links of each examined site of the filled job */
#define DONE_EDGES       30 /* out-links of each site recorded by the measuring loop */
#define DONE_PAGES       5

struct opts {
    const char *db, *dir;
    int64_t sites, edges, job;
    int claims, fill_only, no_fill;
};

static void usage(void)
{
    fprintf(stderr,
            "usage: border_bench [--db URL | --dir DIR] [--sites N] [--edges M]\n"
            "                    [--claims K] [--job ID] [--fill-only | --no-fill]\n"
            "Fills job ID (default: a new job) with N border websites (default 1000000) and\n"
            "M edges (default 10 N), then times K claims (default 2000), each followed by\n"
            "the examined website's record, and the crawl's counts; prints table sizes.\n"
            "--dir DIR: an embedded cluster of its own there (an absolute path); --db: a\n"
            "scratch database (the fill drops and rebuilds an index of edges).\n");
    exit(2);
}

static int parse(int argc, char **argv, struct opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
        if (!strcmp(a, "--fill-only"))
            o->fill_only = 1;
        else if (!strcmp(a, "--no-fill"))
            o->no_fill = 1;
        else if (!v)
            return -1;
        else if (!strcmp(a, "--db"))
            o->db = v;
        else if (!strcmp(a, "--dir"))
            o->dir = v;
        else if (!strcmp(a, "--sites"))
            ok = num_parse_i64(v, 1, INT32_MAX, &o->sites);
        else if (!strcmp(a, "--edges"))
            ok = num_parse_i64(v, EDGES_PER_SOURCE, INT32_MAX, &o->edges);
        else if (!strcmp(a, "--claims"))
            ok = num_parse_int(v, 1, 1000000, &o->claims);
        else if (!strcmp(a, "--job"))
            ok = num_parse_i64(v, 1, INT64_MAX, &o->job);
        else
            return -1;
        if (!ok)
            return -1;
        if (strcmp(a, "--fill-only") && strcmp(a, "--no-fill"))
            i++;
    }
    if (o->edges < 0)
        o->edges = o->sites * 10;
    return 0;
}

/* Peak resident set of this process, in KiB (VmHWM). */
static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) { /* "VmHWM:   12345 kB" */
            const char *v = line + 6 + strspn(line + 6, " \t");
            size_t d = strspn(v, "0123456789");
            char digits[24];
            int64_t n;
            if (d && d < sizeof digits) {
                memcpy(digits, v, d);
                digits[d] = '\0';
                if (num_parse_i64(digits, 0, INT64_MAX, &n))
                    kb = (long)n;
            }
        }
    if (f)
        fclose(f);
    return kb;
}

/*
 * The job's border: sources examined sites with EDGES_PER_SOURCE out-links each to
 * websites b0000001 .. bN drawn with a skew (index = N * u^3: a few websites have tens of
 * thousands of in-links, most a handful, some none), as a crawl's link graph. Each
 * source's edge weight is its confidence rounded to 0.01 (the global mode's weight), so
 * ranks tie as in a crawl; the websites found by one examination share discovered_at.
 * The border's sums and ranks are those the edges give.
 */
static enum err fill(struct store *s, const struct opts *o)
{
    char job[32], n[32], src[32];
    const char *p[] = {NUM(job, o->job), NUM(n, o->sites), NUM(src, o->edges / EDGES_PER_SOURCE)};
    const char *q[] = {job, src};
    double t0 = monotime_s();
    /*
     * Kept up to date row by row, the index on the edges' destinations (random order)
     * makes the insert several times slower than building it afterwards: the edges'
     * non-unique indexes are dropped, their definitions kept, and built again. (The
     * primary key stays: ON CONFLICT needs it; rows come in its order.)
     */
    enum err e = store_begin(s); /* a failure leaves the indexes as they were */
    if (!e)
        e = store_exec(s,
                       "CREATE TEMP TABLE bench_edges_idx AS "
                       "SELECT indexrelid::regclass::text AS name,"
                       " pg_get_indexdef(indexrelid) AS def "
                       "FROM pg_index WHERE indrelid = 'edges'::regclass AND NOT indisunique",
                       0, NULL);
    if (!e)
        e = store_exec(s,
                       "DO $$ DECLARE r record; BEGIN"
                       " FOR r IN SELECT name FROM bench_edges_idx LOOP"
                       "  EXECUTE format('DROP INDEX %s', r.name);"
                       " END LOOP; END $$",
                       0, NULL);
    if (!e)
        e = store_exec(
            s,
            "INSERT INTO edges (job_id, src_host, dst_host, conf_sum, page_count, weight) "
            "SELECT $1, 's' || lpad(i::text, 8, '0') || '.bench',"
            " 'b' || lpad((1 + floor($2::int * power(random(), 3)))::int::text, 8, '0') || "
            "'.bench',"
            " 1, 1, (i % 100) / 100.0 "
            "FROM generate_series(1, $3::int) i, generate_series(1, 50) k "
            "ON CONFLICT DO NOTHING",
            3, p);
    if (!e)
        e = store_exec(s,
                       "DO $$ DECLARE r record; BEGIN"
                       " FOR r IN SELECT def FROM bench_edges_idx LOOP EXECUTE r.def; END LOOP;"
                       " DROP TABLE bench_edges_idx; END $$",
                       0, NULL);
    if (!e)
        e = store_commit(s);
    else
        store_rollback(s);
    double t1 = monotime_s();
    if (!e)
        e = store_exec(s,
                       "INSERT INTO sites (job_id, host, homepage, state, confidence, relevant,"
                       " pages_visited, examined_at) "
                       "SELECT $1, 's' || lpad(i::text, 8, '0') || '.bench',"
                       " 'http://s' || lpad(i::text, 8, '0') || '.bench/', 'examined',"
                       " (i % 100) / 100.0, i % 100 >= 50, 5, now() "
                       "FROM generate_series(1, $2::int) i",
                       2, q);
    if (!e)
        e = store_exec(
            s,
            "INSERT INTO sites (job_id, host, homepage, in_sites, global_sum, local_sum,"
            " weight_sum, rank, discovered_at) "
            "SELECT $1, g.h, 'http://' || g.h || '/', coalesce(a.n, 0), coalesce(a.ws, 0),"
            " coalesce(a.n, 0), coalesce(a.ws, 0), coalesce(a.ws / a.n, 0),"
            " now() - ((g.i::bigint * 7919) % ($2::int / 30 + 1)) * interval '10 ms' "
            "FROM (SELECT i, 'b' || lpad(i::text, 8, '0') || '.bench' AS h"
            "  FROM generate_series(1, $2::int) i) g "
            "LEFT JOIN (SELECT dst_host, count(*) AS n, sum(weight) AS ws FROM edges"
            "  WHERE job_id = $1 GROUP BY dst_host) a ON a.dst_host = g.h "
            "ON CONFLICT DO NOTHING",
            2, p);
    double t2 = monotime_s();
    /* A long crawl's tables have been vacuumed and analysed by autovacuum. */
    if (!e)
        e = store_exec(s, "VACUUM ANALYZE sites", 0, NULL);
    if (!e)
        e = store_exec(s, "VACUUM ANALYZE edges", 0, NULL);
    if (!e)
        printf("fill: edges %.1f s, sites %.1f s, vacuum analyze %.1f s\n", t1 - t0, t2 - t1,
               monotime_s() - t2);
    return e;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_ms(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    printf("%-26s n=%d p50 %.2f ms  p99 %.2f ms  max %.2f ms\n", what, n, v[n / 2] * 1e3,
           v[(int)(n * 0.99)] * 1e3, v[n - 1] * 1e3);
}

/* The result of examining host: a few pages and DONE_EDGES out-links (most to known websites). */
static void fake_result(const struct opts *o, const char *host, int i,
                        struct crawlstore_site_result *r, struct crawlstore_page *pages,
                        struct crawlstore_edge *edges, char (*names)[64], char (*homes)[80],
                        char (*urls)[96])
{
    for (int k = 0; k < DONE_PAGES; k++) {
        snprintf(urls[k], sizeof urls[k], "http://%s/p%d", host, k);
        pages[k] = (struct crawlstore_page){urls[k], "ok", 200, 10000, 0.5, NAN, NULL};
    }
    for (int k = 0; k < DONE_EDGES; k++) {
        if (k % 6 == 5) /* a website nobody linked to before */
            snprintf(names[k], sizeof names[k], "n%d-%d.bench", i, k);
        else /* one edge per destination, as the crawler aggregates them */
            for (int dup = 1; dup;) {
                snprintf(names[k], sizeof names[k], "b%08lld.bench",
                         1 + (long long)((double)o->sites * pow(drand48(), 3)));
                dup = 0;
                for (int j = 0; j < k; j++)
                    dup |= !strcmp(names[j], names[k]);
            }
        snprintf(homes[k], sizeof homes[k], "http://%.63s/", names[k]);
        edges[k] = (struct crawlstore_edge){names[k], homes[k], 0.7, 2, 0.7};
    }
    *r = (struct crawlstore_site_result){.host = host,
                                         .confidence = 0.7,
                                         .relevant = i % 3 == 0,
                                         .pages_to_decide = 3,
                                         .fetches = DONE_PAGES,
                                         .purpose = "crawl",
                                         .pages = pages,
                                         .n_pages = DONE_PAGES,
                                         .edges = edges,
                                         .n_edges = DONE_EDGES,
                                         .prior = NAN,
                                         .verdict_by = "threshold"};
}

/* A crawl's turn, o->claims times: claim the best website, then record it examined. */
static enum err measure(struct store *s, const struct opts *o)
{
    double *claim = calloc((size_t)o->claims, sizeof *claim);
    double *done = calloc((size_t)o->claims, sizeof *done);
    double counts[20];
    enum err e = claim && done ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    int n = 0;
    srand48(15);
    for (; !e && n < o->claims; n++) {
        char *host, *home;
        double t0 = monotime_s();
        e = crawlstore_claim(s, o->job, "bench", &host, &home, NULL);
        double t1 = monotime_s();
        if (e)
            break;
        struct crawlstore_page pages[DONE_PAGES];
        struct crawlstore_edge edges[DONE_EDGES];
        char names[DONE_EDGES][64], homes[DONE_EDGES][80], urls[DONE_PAGES][96];
        struct crawlstore_site_result r;
        fake_result(o, host, n, &r, pages, edges, names, homes, urls);
        e = crawlstore_site_done(s, o->job, &r);
        claim[n] = t1 - t0;
        done[n] = monotime_s() - t1;
        free(host);
        free(home);
    }
    /* The crawler's poll of the job (every second; crawler/crawlrun.c). */
    for (int i = 0; !e && i < 20; i++) {
        struct crawlstore_counts c;
        double t0 = monotime_s();
        e = crawlstore_counts(s, o->job, &c);
        counts[i] = monotime_s() - t0;
        if (!e && i == 0)
            printf("border %lld, examined %lld\n", (long long)c.border, (long long)c.examined);
    }
    if (!e) {
        print_ms("claim", claim, n);
        print_ms("site_done (30 edges)", done, n);
        print_ms("counts (border count)", counts, 20);
    }
    free(claim);
    free(done);
    return e;
}

static enum err sizes(struct store *s)
{
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT c.relname, pg_size_pretty(pg_total_relation_size(c.oid)),"
                             " pg_size_pretty(pg_relation_size(c.oid)), c.reltuples::bigint "
                             "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                             "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')"
                             " AND (c.relname LIKE 'sites%' OR c.relname LIKE 'edges%') "
                             "ORDER BY c.relkind DESC, c.relname",
                             0, NULL, &r);
    if (e)
        return e;
    printf("%-24s %10s %10s %10s\n", "relation", "total", "itself", "rows");
    for (int i = 0; i < store_rows_count(r); i++)
        printf("%-24s %10s %10s %10s\n", store_rows_get(r, i, 0), store_rows_get(r, i, 1),
               store_rows_get(r, i, 2), store_rows_get(r, i, 3));
    store_rows_free(r);
    return ERR_OK;
}

int main(int argc, char **argv)
{
    struct opts o = {.sites = 1000000, .edges = -1, .claims = 2000};
    if (parse(argc, argv, &o))
        usage();
    struct store *s = NULL;
    enum err e = dbopen_open(o.db, o.dir, &s);
    if (!e && !o.job)
        e = crawlstore_job_create(s, "border_bench", "{}", "{}", &o.job);
    if (!e)
        printf("job %lld: %lld border websites, %lld edges asked\n", (long long)o.job,
               (long long)o.sites, (long long)o.edges);
    if (!e && !o.no_fill)
        e = fill(s, &o);
    if (!e && !o.fill_only)
        e = measure(s, &o);
    if (!e)
        e = sizes(s);
    printf("bench peak RSS %ld KiB\n", peak_rss_kb());
    store_free(s);
    if (e) {
        fprintf(stderr, "border_bench: %s\n", err_msg());
        return 1;
    }
    return 0;
}
