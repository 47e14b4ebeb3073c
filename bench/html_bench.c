/* html_bench: HTML extraction speed over a WARC's HTML pages, against gumbo parsing alone. */
/*
 * Usage: html_bench FILE.warc.gz [ROUNDS]
 *
 * Loads every 200 text/html response of the (multi-member gzip) WARC into memory, then
 * times, best of ROUNDS (default 3):
 *   - html_extract on one thread and on two (pages split between the threads);
 *   - gumbo_parse + gumbo_destroy_output with gumbo's defaults, on the raw bytes.
 * The baseline is why this file includes gumbo.h: elsewhere only crawler/html.c does.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <gumbo.h>
#include <zlib.h>

#include "common/grow.h"
#include "common/num.h"
#include "crawler/html.h"

struct page {
    const char *url, *body;
    size_t url_len, len;
    char content_type[128];
};

struct corpus {
    char *data; /* the whole decompressed WARC */
    size_t size;
    struct page *pages;
    size_t n, cap;
    size_t bytes; /* sum of body lengths */
};

static double clock_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now_s(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

/* Per-page times in CPU time: on a shared machine wall time mostly measures preemption. */
static double cpu_s(void)
{
    return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

/* gzread reads the members of a multi-member gzip file one after another. */
static int load(const char *path, struct corpus *c)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        fprintf(stderr, "html_bench: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 0, first = (size_t)64 << 20;
    c->data = NULL;
    for (;;) {
        /* 64 MiB to start with, then twice the room each time it is full */
        if (grow_array((void **)&c->data, &cap, c->size < first ? first : c->size + 1, 1) !=
            ERR_OK) {
            free(c->data);
            c->data = NULL;
            break;
        }
        unsigned want = cap - c->size > (1u << 30) ? 1u << 30 : (unsigned)(cap - c->size);
        int r = gzread(f, c->data + c->size, want);
        if (r <= 0)
            break;
        c->size += (size_t)r;
    }
    gzclose(f);
    return c->data ? 0 : -1;
}

/* The first CRLF CRLF in [p, p + n), or NULL. */
static const char *find_blank_line(const char *p, size_t n)
{
    for (const char *end = p + n; n >= 4 && (p = memchr(p, '\r', (size_t)(end - p) - 3)); p++)
        if (p[1] == '\n' && p[2] == '\r' && p[3] == '\n')
            return p;
    return NULL;
}

/* Value of header `name` in [p, end) (lines end in CRLF), or NULL. */
static const char *header(const char *p, const char *end, const char *name, size_t *len)
{
    size_t k = strlen(name);
    while (p < end) {
        const char *eol = memchr(p, '\r', (size_t)(end - p));
        if (!eol)
            eol = end;
        if ((size_t)(eol - p) > k && p[k] == ':' && strncasecmp(p, name, k) == 0) {
            const char *v = p + k + 1;
            while (v < eol && *v == ' ')
                v++;
            *len = (size_t)(eol - v);
            return v;
        }
        p = eol + 2;
    }
    return NULL;
}

static void add_page(struct corpus *c, const char *url, size_t url_len, const char *block, size_t n)
{
    const char *hend = find_blank_line(block, n);
    if (!hend || n < 12 || memcmp(block + 8, " 200", 4) != 0)
        return;
    size_t ctl;
    const char *ct = header(block, hend, "Content-Type", &ctl);
    if (!ct || ctl < 9 || strncasecmp(ct, "text/html", 9) != 0)
        return;
    if (grow_array((void **)&c->pages, &c->cap, c->n + 1, sizeof *c->pages) != ERR_OK) {
        fprintf(stderr, "html_bench: out of memory\n");
        exit(1);
    }
    struct page *p = &c->pages[c->n++];
    p->url = url;
    p->url_len = url_len;
    p->body = hend + 4;
    p->len = n - (size_t)(p->body - block);
    snprintf(p->content_type, sizeof p->content_type, "%.*s", (int)ctl, ct);
    c->bytes += p->len;
}

static void index_pages(struct corpus *c)
{
    const char *p = c->data, *end = c->data + c->size;
    while (p < end) {
        const char *hend = find_blank_line(p, (size_t)(end - p));
        if (!hend)
            break;
        size_t n = 0, tl = 0, ul = 0;
        const char *cl = header(p, hend, "Content-Length", &n);
        const char *type = header(p, hend, "WARC-Type", &tl);
        const char *url = header(p, hend, "WARC-Target-URI", &ul);
        char digits[24];
        uint64_t len = 0;
        if (cl && n < sizeof digits) {
            memcpy(digits, cl, n);
            digits[n] = '\0';
        }
        const char *block = hend + 4;
        if (!cl || n >= sizeof digits || !num_parse_u64(digits, &len) ||
            len > (uint64_t)(end - block))
            break;
        if (type && tl == 8 && memcmp(type, "response", 8) == 0)
            add_page(c, url, ul, block, len);
        p = block + len + 4; /* the record's closing CRLF CRLF */
    }
}

struct run {
    const struct corpus *c;
    size_t first, step; /* this thread's pages: first, first + step, ... */
    size_t links, text, errors, truncated, slow_i;
    double slow_s;
};

static void *extract_pages(void *arg)
{
    struct run *r = arg;
    for (size_t i = r->first; i < r->c->n; i += r->step) {
        const struct page *pg = &r->c->pages[i];
        struct html_page *p;
        double t = cpu_s();
        if (html_extract(pg->body, pg->len, pg->content_type, NULL, &p) != ERR_OK) {
            r->errors++;
            continue;
        }
        t = cpu_s() - t;
        if (t > r->slow_s)
            r->slow_s = t, r->slow_i = i;
        r->links += p->n_links;
        r->text += p->text_len;
        r->truncated += p->truncated != 0;
        html_page_free(p);
    }
    return NULL;
}

/* Wall and CPU seconds (all threads) of one timed run; best() keeps the fastest of each. */
struct timing {
    double wall, cpu;
};

static struct timing timing_start(void)
{
    return (struct timing){now_s(), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
}

static struct timing timing_since(struct timing t0)
{
    return (struct timing){now_s() - t0.wall, clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0.cpu};
}

static void best(struct timing *b, struct timing t)
{
    b->wall = t.wall < b->wall ? t.wall : b->wall;
    b->cpu = t.cpu < b->cpu ? t.cpu : b->cpu;
}

/* html_extract over all pages on `threads` threads; totals in *sum. */
static struct timing time_extract(const struct corpus *c, size_t threads, struct run *sum)
{
    struct run runs[8];
    pthread_t tid[8];
    struct timing t = timing_start();
    for (size_t i = 0; i < threads; i++) {
        runs[i] = (struct run){.c = c, .first = i, .step = threads};
        if (pthread_create(&tid[i], NULL, extract_pages, &runs[i]) != 0) {
            fprintf(stderr, "html_bench: pthread_create failed\n");
            exit(1);
        }
    }
    *sum = (struct run){0};
    for (size_t i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        sum->links += runs[i].links;
        sum->text += runs[i].text;
        sum->errors += runs[i].errors;
        sum->truncated += runs[i].truncated;
        if (runs[i].slow_s > sum->slow_s)
            sum->slow_s = runs[i].slow_s, sum->slow_i = runs[i].slow_i;
    }
    return timing_since(t);
}

static struct timing time_gumbo(const struct corpus *c)
{
    struct timing t = timing_start();
    for (size_t i = 0; i < c->n; i++) {
        GumboOutput *o =
            gumbo_parse_with_options(&kGumboDefaultOptions, c->pages[i].body, c->pages[i].len);
        gumbo_destroy_output(&kGumboDefaultOptions, o);
    }
    return timing_since(t);
}

/* Wall-clock rates, and pages per CPU second (what a core does when it is not shared). */
static void report(const char *what, const struct corpus *c, struct timing t)
{
    printf("%-27s %7.0f pages/s %6.1f MB/s wall | %7.0f pages/s %6.1f MB/s per CPU-second\n", what,
           c->n / t.wall, c->bytes / t.wall / 1e6, c->n / t.cpu, c->bytes / t.cpu / 1e6);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: html_bench FILE.warc.gz [ROUNDS]\n");
        return 2;
    }
    int rounds = 3;
    if (argc > 2 && !num_parse_int(argv[2], 1, 1000, &rounds)) {
        fprintf(stderr, "html_bench: ROUNDS wants 1..1000, not '%s'\n", argv[2]);
        return 2;
    }
    struct corpus c = {0};
    if (load(argv[1], &c) != 0)
        return 1;
    index_pages(&c);
    if (c.n == 0) {
        fprintf(stderr, "html_bench: no HTML responses in %s\n", argv[1]);
        return 1;
    }
    printf("%s: %zu HTML pages, %.1f MB of bodies, best of %d rounds\n", argv[1], c.n,
           c.bytes / 1e6, rounds);

    struct timing one = {1e9, 1e9}, two = {1e9, 1e9}, gum = {1e9, 1e9};
    struct run sum = {0};
    for (int r = 0; r < rounds; r++) {
        best(&one, time_extract(&c, 1, &sum));
        best(&two, time_extract(&c, 2, &sum));
        best(&gum, time_gumbo(&c));
    }
    report("html_extract, 1 thread", &c, one);
    report("html_extract, 2 threads", &c, two);
    report("gumbo parse+destroy alone", &c, gum);
    printf("links %zu, text %.1f MB, errors %zu, truncated %zu, slowest page %.1f ms CPU (%.*s)\n",
           sum.links, sum.text / 1e6, sum.errors, sum.truncated, sum.slow_s * 1e3,
           (int)c.pages[sum.slow_i].url_len, c.pages[sum.slow_i].url);
    free(c.pages);
    free(c.data);
    return 0;
}
