/*
 * What judging a job again reads and writes (issue 30, job/jobjudge.h): the term counts
 * of its examined websites' pages, and the verdicts a newer model gives them.
 */
#ifndef SITESCOUT_STORE_JUDGESTORE_H
#define SITESCOUT_STORE_JUDGESTORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct store;
struct store_rows;

/*
 * Who gave the verdict of the sites row s, as SQL, for what users read (the API, the
 * exports; the view relevant_websites says the same): 'user' (a label, store/labelstore.h),
 * 'examination' (the page classifier as the website was read) or 'crawl_model' (the
 * crawl model s.model_id, judging again what was read); and when.
 */
#define JUDGESTORE_SQL_BY                                                                          \
    "CASE WHEN s.label IS NOT NULL THEN 'user' WHEN s.model_id IS NULL THEN 'examination'"         \
    " ELSE 'crawl_model' END"
#define JUDGESTORE_SQL_AT                                                                          \
    "CASE WHEN s.label IS NOT NULL THEN s.labelled_at"                                             \
    " ELSE coalesce(s.judged_at, s.examined_at) END"

/* The job $1's relevant websites counted again, as SQL (jobs.relevant_found). */
#define JUDGESTORE_SQL_RECOUNT                                                                     \
    "UPDATE jobs SET relevant_found = (SELECT count(*) FROM sites"                                 \
    " WHERE job_id = $1 AND state = 'examined' AND relevant"                                       \
    " AND role NOT IN ('train', 'train_other')), updated_at = now()"                               \
    " WHERE id = $1 RETURNING relevant_found"

/*
 * The pages with term counts of job's examined websites, the websites in the byte order
 * of their hosts (strcmp's, whatever the database's collation), a website's pages
 * together in the order read: columns 0 host, 1 role ('train', 'train_other', 'start',
 * 'discovered'; a website the user labelled is 'train' when relevant, 'rejected' when not: an
 * example the model learns from, whose verdict no judging changes),
 * 2 terms (classifier/termvec.h), 3 its examination's verdict ('t'/'f': the page
 * classifier's, kept in sites.examined_relevant once a crawl model judged it), 4 its
 * verdict now ('t'/'f'), 5 the page's id (a stored page's terms never change).
 * *out is the caller's (store_rows_free).
 */
enum err judgestore_pages(struct store *s, int64_t job, struct store_rows **out) WARN_UNUSED;

/* The pages of job's websites labelled relevant or not and of its relevant examples, as
 * judgestore_pages gives them, when the job has a website labelled not relevant; no rows
 * otherwise. */
enum err judgestore_labelled_pages(struct store *s, int64_t job,
                                   struct store_rows **out) WARN_UNUSED;

/* The links between job's examined websites (source host, destination host; none from a
 * website to itself): what the verdicts' link evidence is from. */
enum err judgestore_links(struct store *s, int64_t job, struct store_rows **out) WARN_UNUSED;

/*
 * The pages of job's website host as its verdict by the crawl model model_id saw them, in
 * the order read: column 0 the url, 1 the page's terms, NULL for a page without or stored
 * after the verdict (read deeper since: it had no part in it). No rows when the job has
 * no such website, or its verdict is not (or no longer) that model's.
 * *out is the caller's (store_rows_free).
 */
enum err judgestore_site_terms(struct store *s, int64_t job, const char *host, int64_t model_id,
                               struct store_rows **out) WARN_UNUSED;

/* Whether job judges its websites with a crawl model: its params say judge crawl_model
 * and strategy website (only the website crawler judges, job/jobrun.c). ERR_NOTFOUND: no
 * job. */
enum err judgestore_learns(struct store *s, int64_t job, int *learns) WARN_UNUSED;

/* job's topic (its name in the job file), into out (cap bytes); ERR_NOTFOUND: no job. */
enum err judgestore_topic(struct store *s, int64_t job, char *out, size_t cap) WARN_UNUSED;

/* A job's crawl models: how many, and the last one's figures (models.cv). */
struct judgestore_summary {
    int64_t models; /* 0: none (then the rest is 0) */
    int64_t last_id;
    int64_t pages;      /* the last model learnt from this many pages ... */
    double threshold;   /* ... and judged at this threshold */
    double cpu_seconds; /* the CPU all the job's judgings took (their models' cv) */
};
enum err judgestore_summary(struct store *s, int64_t job,
                            struct judgestore_summary *out) WARN_UNUSED;

/* A website's verdict by a crawl model. */
struct judgestore_verdict {
    const char *host;
    double confidence; /* sigma(its text's evidence + its links'), at most 1/2 if vetoed */
    int relevant;
    double link_evidence; /* its links' (classifier/linkjudge.h); NaN: none (the three NULL) */
    uint32_t link_count, link_relevant;
    const char *like_rejected; /* the website the user rejected it is more like than any
                                * relevant one, which vetoes it (sites.like_rejected); NULL */
};

/*
 * In one transaction (safe to run twice): give job's examined, non-training websites
 * the verdicts v (each marked as given by model_id, now; the confidence always, the
 * verdict where it changed), then count the job's relevant websites again. A website
 * newly relevant gets the job's pages now as its found_pages. *relevant gets the job's
 * relevant websites after, *changed how many verdicts changed.
 */
enum err judgestore_write(struct store *s, int64_t job, int64_t model_id,
                          const struct judgestore_verdict *v, size_t n, int64_t *relevant,
                          int64_t *changed) WARN_UNUSED;

#endif
