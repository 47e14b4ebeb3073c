/*
 * Training pages (paper §4.3.1, DESIGN §3.1): for each training website, the first k
 * pages of a breadth-first traversal from its homepage, intrinsic links only, through
 * the fetcher (so robots.txt and the per-host delay are obeyed). Many websites are
 * read at once: each site has one fetch in flight, and its next BFS page is
 * submitted when the previous one completes (the fetcher runs different hosts in
 * parallel). Used by `sitescout eval` and by a crawl job's training phase.
 *
 * Per page it keeps the text exactly as the internal crawler will see it (through
 * crawler/pageinfo, so training text == crawling text) and the page's links: a job
 * seeds its border from the relevant training sites' transversal links, weighted by
 * the trained model's Pr[p|target] of each page; strategy context_graph builds its
 * layers from all of them (trainset_links).
 *
 * Counting: only FETCH_OK pages whose HTML could be read count towards k; a page
 * reached again under another URL (same-site redirects) counts once. A site stops
 * when k pages are read, its BFS queue is empty, or max_fetches fetch attempts were
 * made (robots-refused URLs are not attempts). If the homepage itself redirects to
 * another host (an alias such as x.com -> www.x.com), that redirect is followed once
 * and the target's website is read instead (trainset_site.site says which).
 *
 * Ownership: everything in a struct trainset belongs to it (trainset_free). The
 * fetcher is borrowed. Not thread-safe.
 */
#ifndef SITESCOUT_CRAWLER_TRAINSET_H
#define SITESCOUT_CRAWLER_TRAINSET_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "crawler/fetch.h"

struct trainset_page {
    char *url;  /* final URL (after same-site redirects) */
    char *text; /* pageinfo text: title, newline, visible text; never NULL */
    size_t text_len;
    char **transversal; /* links to other websites (normalised, unique on the page) */
    size_t n_transversal;
    char **intrinsic; /* links to pages of the same website (the context graph's) */
    size_t n_intrinsic;
};

struct trainset_site {
    char *homepage; /* as given, normalised */
    char *site;     /* homepage of the website read (differs after an offsite redirect) */
    struct trainset_page *pages; /* BFS order; pages[0] is the homepage when n_pages > 0 */
    size_t n_pages;
    int fetches;                   /* fetch attempts made */
    enum fetch_status home_status; /* of the homepage fetch (of the target, if redirected) */
    int home_http_status;
    int redirected;   /* 1 when the homepage redirected to another host (followed) */
    char *home_error; /* why the homepage fetch failed (fetch_result.error), or NULL */
};

struct trainset_progress {
    size_t pages_done;     /* training pages read so far */
    size_t pages_expected; /* k per unfinished site + pages of finished ones */
    size_t sites_done, sites;
    size_t fetches; /* fetch results received */
};

/* Return nonzero to stop collecting (trainset_run then returns ERR_INTERRUPT). */
typedef int (*trainset_progress_fn)(void *ctx, const struct trainset_progress *p);

/* Website i is read (checkpoint it); an error ends the collection with it. */
typedef enum err (*trainset_site_done_fn)(void *ctx, size_t i, const struct trainset_site *s);

struct trainset_params {
    int pages_per_site;            /* k (>= 1); default 25 */
    int max_fetches;               /* fetch attempts per site; default (0) 3k */
    uint64_t tag_base;             /* fetch tags used: tag_base + site index; default 0 */
    trainset_progress_fn progress; /* called after every result and about once a second */
    void *progress_ctx;
    trainset_site_done_fn site_done; /* may be NULL; called with progress_ctx */
};

void trainset_params_default(struct trainset_params *p);

struct trainset;

/*
 * Prepare to read the websites of n homepages (absolute http(s) URLs; any page URL
 * stands for its website's homepage). ERR_INVAL (naming the index) for a bad URL.
 */
enum err trainset_new(const char *const *homepages, size_t n, const struct trainset_params *p,
                      struct trainset **out) WARN_UNUSED;
void trainset_free(struct trainset *ts);

/*
 * Website i was read before (a checkpoint of an interrupted job): take its record over
 * (*from is left empty) and do not read it again. Before trainset_start only; i < n, and
 * from->homepage must be i's homepage (ERR_INVAL, the record is left alone, otherwise).
 */
enum err trainset_restore(struct trainset *ts, size_t i, struct trainset_site *from) WARN_UNUSED;

/* Free what a trainset_site record holds (one not owned by a trainset). */
void trainset_site_release(struct trainset_site *s);

/* Every website read (or failed). */
int trainset_done(const struct trainset *ts);
void trainset_get_progress(const struct trainset *ts, struct trainset_progress *out);

/*
 * Or all at once: start, then take results from f until every site is done. The
 * fetcher must not be used by anyone else meanwhile (a result that is not ours is
 * ERR_CONFLICT). ERR_INTERRUPT if the progress callback asked to stop; the fetcher
 * may then still hold requests of ours: free it or drain it.
 */
enum err trainset_run(struct trainset *ts, struct fetcher *f) WARN_UNUSED;

size_t trainset_count(const struct trainset *ts);

/*
 * Of websites [from, to): how many gave no page (*unread), and into why[cap] the most
 * common cause among them ("connection refused by the proxy 127.0.0.1:9", "HTTP status
 * 503", "no readable HTML"), empty when none is unread.
 */
void trainset_unread(const struct trainset *ts, size_t from, size_t to, size_t *unread, char *why,
                     size_t cap);

struct pagecls_doc;

/*
 * The pages read, as page classifier training documents: the first n_relevant
 * websites are the target class, the others the other class; doc.site is the
 * website's index. The documents borrow the pages' text (valid while ts is); *docs
 * is the caller's to free. ERR_INVAL when a class has no page at all.
 */
enum err trainset_docs(const struct trainset *ts, size_t n_relevant, struct pagecls_doc **docs,
                       size_t *n_docs) WARN_UNUSED;

/* The same with each website's homepage only (pages[0]): the homepage classifier's. */
enum err trainset_home_docs(const struct trainset *ts, size_t n_relevant, struct pagecls_doc **docs,
                            size_t *n_docs) WARN_UNUSED;
const struct trainset_site *trainset_site(const struct trainset *ts, size_t i);

struct ctxgraph_edge;

/*
 * The training crawl's link graph, its pages numbered as trainset_docs numbers them: an
 * edge (i, j) when page i links to page j's URL, or to any URL of a website among the
 * first n_relevant whose read page j is that website's homepage (pages[0]): every page
 * of a relevant website is a target (the context graph's layer 0), read or not.
 * *edges is the caller's to free; each edge once.
 */
enum err trainset_links(const struct trainset *ts, size_t n_relevant, struct ctxgraph_edge **edges,
                        size_t *n_edges) WARN_UNUSED;

#endif
