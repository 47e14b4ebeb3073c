/* The border before a crawl: training websites recorded, start sites first. */
#include "crawler/seed.h"

#include <math.h>
#include <stdlib.h>

#include "classifier/pagecls.h"
#include "crawler/trainset.h"
#include "crawler/url.h"
#include "crawler/verdict.h"
#include "store/crawlstore.h"

/* Classify the site's pages into pages[]; a relevant site's links go into es. */
static enum err classify_pages(const struct trainset_site *site, int relevant,
                               const struct pagecls *model, struct pagecls_scratch *scratch,
                               struct crawlstore_page *pages, struct edgeset *es)
{
    enum err e = ERR_OK;
    for (size_t i = 0; !e && i < site->n_pages; i++) {
        const struct trainset_page *pg = &site->pages[i];
        struct pagecls_result r;
        e = pagecls_classify(model, scratch, pg->text, pg->text_len, &r);
        if (e)
            break;
        struct buf terms;
        buf_init(&terms, 0);
        e = pagecls_term_counts(scratch, pg->text, pg->text_len, &terms);
        pages[i] = (struct crawlstore_page){
            pg->url, "ok", 200, pg->text_len, r.pr[PAGECLS_TARGET], NAN, buf_detach(&terms)};
        buf_release(&terms);
        if (e)
            break;
        /* Only the relevant training sites seed the border (DESIGN §3.4). */
        if (relevant)
            e = edgeset_add_page(es, pg->transversal, pg->n_transversal, r.pr[PAGECLS_TARGET]);
    }
    return e;
}

/* One training website, examined: its verdict known, its pages, a relevant one's links. */
static enum err seed_site(struct store *s, int64_t job, const struct trainset_site *site,
                          int relevant, const struct pagecls *model,
                          struct pagecls_scratch *scratch, enum edges_weights mode)
{
    char *host = NULL, *home = NULL;
    struct edgeset es;
    edgeset_init(&es);
    struct crawlstore_page *pages = calloc(site->n_pages ? site->n_pages : 1, sizeof *pages);
    enum err e = pages ? url_host(site->site, &host) : err_set(ERR_NOMEM, "out of memory");
    if (!e)
        e = url_homepage(site->site, &home);
    if (!e)
        e = classify_pages(site, relevant, model, scratch, pages, &es);
    if (!e)
        e = crawlstore_site_add(s, job, host, home, relevant ? "train" : "train_other", "claimed",
                                NAN, -1, 0);
    if (!e) {
        struct verdict v = {
            .host = host,
            .confidence = relevant ? 1.0 : 0.0, /* known, not guessed */
            .relevant = relevant,
            .pages_to_decide = (int)site->n_pages,
            .fetches = site->fetches,
            .purpose = "train",
            .prior = NAN, /* no website classifier: the verdict is known */
            .pages = pages,
            .n_pages = site->n_pages,
            .edges = es.edges,
            .n_edges = es.n,
        };
        e = verdict_store(s, job, mode, &v);
        if (e == ERR_CONFLICT)
            e = ERR_OK; /* recorded by an earlier run of this job */
    }
    for (size_t i = 0; i < site->n_pages; i++)
        free((char *)pages[i].terms);
    free(pages);
    edgeset_release(&es);
    free(host);
    free(home);
    return e;
}

enum err seed_training_sites(struct store *s, int64_t job, const struct trainset *ts,
                             size_t n_relevant, const struct pagecls *model,
                             enum edges_weights mode)
{
    struct pagecls_scratch *scratch;
    enum err e = pagecls_scratch_new(model, &scratch);
    for (size_t i = 0; !e && i < trainset_count(ts); i++) {
        const struct trainset_site *site = trainset_site(ts, i);
        if (site->n_pages) /* a website that gave no page is not examined */
            e = seed_site(s, job, site, i < n_relevant, model, scratch, mode);
    }
    pagecls_scratch_free(scratch);
    return e;
}

enum err seed_start_sites(struct store *s, int64_t job, char *const *urls, size_t n)
{
    enum err e = ERR_OK;
    for (size_t i = 0; !e && i < n; i++) {
        char *host = NULL;
        e = url_host(urls[i], &host);
        if (!e)
            e = crawlstore_site_add(s, job, host, urls[i], "start", "border", NAN, -1,
                                    SEED_START_RANK);
        free(host);
    }
    return e;
}
