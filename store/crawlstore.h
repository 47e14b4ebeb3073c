/*
 * The crawl's durable state in PostgreSQL: jobs, the sites of a job (examined and
 * border), edges, pages and metrics. The external crawler's border lives here, so
 * memory stays flat however large it grows, and claiming a border site is atomic
 * (FOR UPDATE SKIP LOCKED) so that several workers can share a job.
 * Built on store.h only; all values are passed as statement parameters.
 */
#ifndef SITESCOUT_STORE_CRAWLSTORE_H
#define SITESCOUT_STORE_CRAWLSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct store;
struct bgexec;

/* Create a job (state queued); body and params are JSON texts. */
enum err crawlstore_job_create(struct store *s, const char *topic, const char *body_json,
                               const char *params_json, int64_t *id) WARN_UNUSED;
/* The same with the job's lease held by worker from the start (store/joblease.h): for a
 * job its creator runs at once, which no other runner may take up first (worker NULL:
 * none); warnings_json (NULL: none) is the job's warnings (job/jobwarn.h). */
enum err crawlstore_job_create_leased(struct store *s, const char *topic, const char *body_json,
                                      const char *params_json, const char *warnings_json,
                                      const char *worker, int64_t *id) WARN_UNUSED;

struct crawlstore_job {
    int64_t id;
    char topic[256];
    char state[16];
    char stop_requested[8]; /* "", "stop" or "pause" */
    char *body_json;        /* malloc'd */
    char *params_json;      /* malloc'd */
    char stop_reason[32];   /* "" while it runs */
    char *error;            /* malloc'd; "" unless it failed */
    char *proxy;            /* malloc'd; the proxy its runs fetch through, "" for none */
};
enum err crawlstore_job_get(struct store *s, int64_t id, struct crawlstore_job *out) WARN_UNUSED;
void crawlstore_job_release(struct crawlstore_job *j);

/* ERR_OK when job exists, else ERR_NOTFOUND ("no job N"). */
enum err crawlstore_job_exists(struct store *s, int64_t job) WARN_UNUSED;

/* Add a warning {code, message} to the job's warnings (job/jobwarn.h), once per code. */
enum err crawlstore_job_add_warning(struct store *s, int64_t id, const char *code,
                                    const char *message) WARN_UNUSED;

/* Record the HTTP proxy the job's runs fetch through (NULL: none). */
enum err crawlstore_job_set_proxy(struct store *s, int64_t id, const char *proxy) WARN_UNUSED;

/* Set the state; stop_reason and error may be NULL. Sets started/finished times. */
enum err crawlstore_job_set_state(struct store *s, int64_t id, const char *state,
                                  const char *stop_reason, const char *error) WARN_UNUSED;

/*
 * A runner that cannot go on for a passing reason (the database went away) notes why
 * in the job's error, keeps its state (training, crawling) and lets its lease go: the
 * next runner takes it up and clears the note.
 */
enum err crawlstore_job_interrupted(struct store *s, int64_t id, const char *worker,
                                    const char *why) WARN_UNUSED;

/* Ask a running job to stop or pause ("stop", "pause"), or clear the request (NULL). */
enum err crawlstore_job_request(struct store *s, int64_t id, const char *what) WARN_UNUSED;

/*
 * Name this connection after worker (PostgreSQL's application_name), so that whoever
 * takes the job's lease over can end its sessions (store/joblease.h).
 */
enum err crawlstore_set_worker(struct store *s, const char *worker) WARN_UNUSED;

/*
 * The border is counted up to this many websites: a running crawl reads the counts every
 * second, and counting a border of a million websites took a second or two each time
 * (BENCHMARKS.md, "A border of a million websites"). The API's job view counts it all.
 */
#define CRAWLSTORE_BORDER_COUNT_MAX 10000

/* Counters of a job's crawl (training sites excluded). */
struct crawlstore_counts {
    int64_t pages;    /* crawl fetches (training excluded) */
    int64_t examined; /* sites examined */
    int64_t relevant; /* of them relevant */
    int64_t border;   /* sites waiting, at most CRAWLSTORE_BORDER_COUNT_MAX */
    int64_t claimed;  /* sites being examined */
};
enum err crawlstore_counts(struct store *s, int64_t job, struct crawlstore_counts *out) WARN_UNUSED;

/*
 * Add a site the job knows before crawling: a training site (role "train" or
 * "train_other", examined with the given confidence) or a start site (role "start",
 * on the border with the given rank). A site only known from links so far takes the
 * given role and state; other existing rows are left alone. Role "discovered" adds a
 * border site found some other way (e.g. the target of an alias's redirect).
 */
enum err crawlstore_site_add(struct store *s, int64_t job, const char *host, const char *homepage,
                             const char *role, const char *state, double confidence, int relevant,
                             double rank) WARN_UNUSED;

/*
 * Claim the best border site for worker: highest rank first, then the earliest
 * found. ERR_NOTFOUND when the border is empty. host and homepage are malloc'd;
 * *rank is the site's rank (may be NULL).
 */
enum err crawlstore_claim(struct store *s, int64_t job, const char *worker, char **host,
                          char **homepage, double *rank) WARN_UNUSED;

/*
 * Claim up to n (1..CRAWLSTORE_CLAIM_MAX) of the best border sites for worker in one
 * statement, best first as crawlstore_claim takes them, into out[0..*got) (host and
 * homepage malloc'd: crawlstore_claimed_release). *got is 0 when the border is empty.
 */
#define CRAWLSTORE_CLAIM_MAX 32
struct crawlstore_claimed {
    char *host, *homepage;
    double rank;
};
enum err crawlstore_claim_many(struct store *s, int64_t job, const char *worker, int n,
                               struct crawlstore_claimed *out, int *got) WARN_UNUSED;
void crawlstore_claimed_release(struct crawlstore_claimed *c);

/*
 * Give claimed but unfinished sites back to the border: those of worker, or all of
 * the job's when worker is NULL (resuming after a crash). *count may be NULL.
 */
enum err crawlstore_unclaim(struct store *s, int64_t job, const char *worker,
                            int *count) WARN_UNUSED;

/*
 * Give back to the border the websites claimed by worker but for held[0..n_held): claims
 * the worker lost track of. A claim sent again after a lost connection may have claimed
 * websites twice (the first answer lost), and a database crash may lose a website's
 * acknowledged examination (synchronous_commit = off), leaving it claimed by a runner
 * that is done with it. Idempotent. *count (may be NULL): how many went back.
 */
enum err crawlstore_unclaim_lost(struct store *s, int64_t job, const char *worker,
                                 const char *const *held, size_t n_held, int *count) WARN_UNUSED;

struct crawlstore_page {
    const char *url;
    const char *status; /* fetch status name, "ok", "http_error", ... */
    int http_status;    /* 0 for none */
    size_t bytes;
    double pr_target;  /* NaN: not classified */
    double posterior;  /* Pr[target|W] after this page; NaN: not known (stored NULL) */
    const char *terms; /* its term counts (classifier/termvec.h); NULL: not kept */
};

struct crawlstore_edge {
    const char *host; /* destination website */
    const char *homepage;
    double conf_sum; /* sum of the linking pages' Pr[p|target] */
    int page_count;
    double weight; /* weight(V, W) with the job's edge-weight mode */
};

struct crawlstore_site_result {
    const char *host;
    double confidence;
    int relevant;
    int pages_to_decide;
    int fetches;
    const char *purpose; /* "crawl" or "train" (for the pages table) */
    const struct crawlstore_page *pages;
    size_t n_pages;
    const struct crawlstore_edge *edges;
    size_t n_edges;
    const char *homepage; /* crawlstore_sites_update: for a site not yet in the table */
    int64_t found_pages;  /* crawlstore_sites_update: the job's pages when it was judged
                           * relevant (site_done works it out itself) */
    /* Why the verdict (issue 17; site_done, and read_stop for site_more too): the prior
     * Pr[target] (NaN: not known), how the verdict was reached and why the reading
     * stopped (sitecrawl_verdict_by, sitecrawl_stop_name, ...); NULL: not known. The
     * prior is stored only with a read_stop. */
    double prior;
    const char *verdict_by;
    const char *read_stop;
    const char *error; /* sitewriter_failed: why the site was not examined */
    /* A write may be sent again after a lost connection although its commit went through
     * (store_pipeline); these make that write nothing twice. A claimed site given up on
     * (sitewrite.h: FAILED, ABANDON) leaves only the claim of claimed_by (NULL: anyone's).
     * A deeper read (crawlstore_site_more) is written only over a site whose
     * pages_visited is at most fetches_before: the fetches stored of it before. */
    const char *claimed_by;
    int fetches_before;
    /* The job's crawl model that gave the verdict (issue 30: the last judging's, for a
     * website examined after it; sitewrite's site_done only), or 0: the examination
     * gave it. With a model, exam_relevant is the examination's own verdict
     * (sites.examined_relevant). */
    int64_t model_id;
    int exam_relevant;
    /* With a model: the website the user rejected that this one is more like than any
     * relevant one, which vetoed the model's verdict (sites.like_rejected); NULL: none. */
    const char *like_rejected;
};

/*
 * Record an examined site in one transaction: its pages, its edges, the site's
 * verdict, and the border: every destination not yet known joins it, and each
 * destination's rank becomes the average weight of the examined sites linking to it.
 * A site that is already examined is not examined twice: then nothing is written
 * and ERR_CONFLICT is returned.
 */
enum err crawlstore_site_done(struct store *s, int64_t job,
                              const struct crawlstore_site_result *r) WARN_UNUSED;

/*
 * More of a website examined before (a second, deeper read for its links): in one
 * transaction its new pages r->pages and its new links r->edges join the tables (each
 * destination's rank takes the new link as above; a link the site had before is not
 * counted twice), and the fetches count in the site's pages_visited and the job's
 * pages_downloaded. The verdict is left as it is (r->relevant and the rest unused);
 * r->read_stop, when set, replaces the site's (why this read ended). Written already (its
 * pages_visited past r->fetches_before: this write sent again), nothing is written twice
 * and ERR_OK is returned. A site found not
 * examined (its examination lost to a database crash) is examined now, as by
 * crawlstore_site_done with r (whose verdict must then be set: relevant, confidence).
 */
enum err crawlstore_site_more(struct store *s, int64_t job,
                              const struct crawlstore_site_result *r) WARN_UNUSED;

/*
 * The page crawlers (strategies page and bfs) judge a website from whatever pages of
 * it they have downloaded so far, so its verdict changes as pages come in. In one
 * transaction: each site of r[0..n) becomes (or stays) examined with the verdict as
 * it stands (pages_visited = r->fetches so far; a site new to the table joins with
 * r->homepage), r->pages (the pages since the last update) are added, and the job's
 * counters become pages_downloaded + pages_delta and the count of examined and of
 * relevant sites. Training sites are left alone. The websites of border[0..n_border)
 * (known from links, not judged yet) join the border if new, so that a resumed crawl
 * can start from them.
 */
struct crawlstore_border {
    const char *host, *homepage;
    double rank;
};
enum err crawlstore_sites_update(struct store *s, int64_t job,
                                 const struct crawlstore_site_result *r, size_t n,
                                 const struct crawlstore_border *border, size_t n_border,
                                 int64_t pages_delta) WARN_UNUSED;

/* Add n (may be negative: requests counted ahead and not made) to jobs.requests, the
 * crawl's page requests (sql/017_job_requests.sql). */
enum err crawlstore_job_add_requests(struct store *s, int64_t job, int64_t n) WARN_UNUSED;

/* A site row of a job, as crawlstore_sites_list hands them out. */
struct crawlstore_site_row {
    char *host, *homepage; /* malloc'd */
    char state[12];        /* border, claimed, examined, failed */
    char role[16];
    double rank;
};

/* Every site of a job (*out malloc'd; free with crawlstore_site_rows_free). */
enum err crawlstore_sites_list(struct store *s, int64_t job, struct crawlstore_site_row **out,
                               size_t *n) WARN_UNUSED;
void crawlstore_site_rows_free(struct crawlstore_site_row *rows, size_t n);

/*
 * Start refreshing the planner's statistics of the table the crawl reads (sites: its
 * columns job_id and state, sampled small, migration 012) on b's connection, unless the
 * last refresh still runs (then 0). A new job's rows are invisible to the planner until
 * autovacuum's analyze runs (after 10% of a table changed), and until then its claims
 * and border updates can take plans made for an empty job: several times slower (issue
 * 13). pages and edges are only written during a crawl (edges by its primary key), and
 * are the largest tables: their statistics wait for autovacuum.
 */
int crawlstore_analyze_start(struct bgexec *b);

struct crawlstore_metrics {
    double elapsed_s;
    int64_t pages, examined, relevant;
    double harvest_rate, harvest_rate_window, pprs, pprs_window; /* NaN: undefined yet */
};
enum err crawlstore_metrics_add(struct store *s, int64_t job,
                                const struct crawlstore_metrics *m) WARN_UNUSED;

/*
 * What a resumed crawl's metrics go on from: the job's rows of its last `window` pages
 * (pages >= the last row's - window; only elapsed_s and the counters filled), oldest
 * first, and the last row's elapsed_s (0 without rows). *out is the caller's to free.
 */
enum err crawlstore_metrics_tail(struct store *s, int64_t job, int64_t window,
                                 struct crawlstore_metrics **out, size_t *n,
                                 double *elapsed_s) WARN_UNUSED;

/* A relevant website a job found (relevant_websites, best first). */
struct crawlstore_found {
    char host[256];
    char homepage[300];
    char role[16]; /* "discovered" or "start" */
    double confidence;
    int pages;
    int64_t found_pages; /* the job's pages downloaded when it was judged relevant; -1: unknown */
};

/*
 * The relevant websites of a job, best first (at most limit; 0 = all), training sites
 * excluded. *out is malloc'd (free it), *n its length.
 */
enum err crawlstore_found(struct store *s, int64_t job, int limit, struct crawlstore_found **out,
                          size_t *n) WARN_UNUSED;

#endif
