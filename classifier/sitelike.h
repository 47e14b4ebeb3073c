/*
 * Websites alike by their words: each website one vector, 1 + ln(count) of each term over
 * its pages, compared by cosine. The crawl model's judging (classifier/sitejudge.c) uses it
 * to cluster the "other" examples and to find the websites more like one the user rejected
 * than like any relevant one.
 */
#ifndef SITESCOUT_CLASSIFIER_SITELIKE_H
#define SITESCOUT_CLASSIFIER_SITELIKE_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/tfidf.h"
#include "common/err.h"

/* n websites: website s's (term id, count) entries are [at[s], at[s + 1]) of term and
 * count (a term may come more than once: one entry a page), ids below n_terms; label[s]
 * its label (the caller's). */
struct sitelike_sites {
    const uint32_t *term, *count;
    const size_t *at;
    const uint32_t *label;
    size_t n;
    uint32_t n_terms;
};

/* Website s's vector into v (initialised here; the caller releases it): 1 + ln(count) of
 * each term over its entries, unit length, by term id (a scan of sum, not a sort: a vector
 * of a few thousand terms sorted by qsort cost more than the scan of the vocabulary); sum
 * is n_terms zeros, left so. */
enum err sitelike_vector(const struct sitelike_sites *w, size_t s, double *sum,
                         struct tfidf_vec *v) WARN_UNUSED;

/*
 * The websites of w labelled rejected or relevant, kept to compare other websites with
 * (sitelike_rows_match, read-only: any number of threads at once); *out NULL when none
 * is labelled rejected.
 */
struct sitelike_rows;
enum err sitelike_rows_new(const struct sitelike_sites *w, uint32_t rejected, uint32_t relevant,
                           struct sitelike_rows **out) WARN_UNUSED;
void sitelike_rows_free(struct sitelike_rows *r);
/* A website as its n (term id, count) entries (a term may come more than once; ids not
 * below w's n_terms are not known): the number in w of the rejected website most like it
 * when that one is more like it than every relevant one, else SIZE_MAX (also with no
 * term of theirs). scratch: sitelike_rows_scratch(r) doubles, zeros, left so. */
size_t sitelike_rows_match(const struct sitelike_rows *r, const uint32_t *term,
                           const uint32_t *count, size_t n, double *scratch);
size_t sitelike_rows_scratch(const struct sitelike_rows *r);

/*
 * For each website s labelled judged: like[s] the website labelled rejected it is most
 * like, when that one is more like it (cosine) than every website labelled relevant;
 * SIZE_MAX otherwise (all, with no website labelled rejected; also a website with no
 * term of theirs). like[0..w->n). keep, if not NULL, gets the rows it compared with
 * (sitelike_rows_new's, the caller's; NULL with none rejected).
 */
enum err sitelike_rejected(const struct sitelike_sites *w, uint32_t rejected, uint32_t relevant,
                           uint32_t judged, size_t *like, struct sitelike_rows **keep) WARN_UNUSED;

#endif
