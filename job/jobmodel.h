/*
 * Internal to job/: a crawl model kept to judge websites as they are read (jobjudge.h's
 * struct jobjudge_model): its layout and the page views that jobjudge.c (a judging's model,
 * a website scored) and jobmodel.c (a stored model loaded) share.
 */
#ifndef SITESCOUT_JOB_JOBMODEL_H
#define SITESCOUT_JOB_JOBMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/nbem.h"
#include "classifier/sitelike.h"
#include "classifier/termvec.h"
#include "classifier/vocab.h"

struct jobjudge_model {
    struct vocab v; /* the model's term ids */
    struct nbem *m;
    double threshold, weight_cap;
    double exam_links; /* jobjudge_model_exam_links's */
    /* The judging's rejected and relevant websites (loaded: the job's labels now; NULL:
     * none rejected), and the hosts of the rejected ones by their numbers there (NULL for
     * the others): a website read later is vetoed as judged. */
    struct sitelike_rows *like;
    char **rejected_host;
    size_t n_sites;
};

/* A page's terms as the model's ids (the terms it does not know left out). */
struct page_ids {
    const struct vocab *v;
    uint32_t term[TERMVEC_MAX_TERMS], count[TERMVEC_MAX_TERMS];
    uint32_t n;
};

/* A website's pages' terms as the model's ids, all together (the rejected websites'
 * likeness: sitelike_rows_match); failed: out of memory while gathering them. */
struct site_ids {
    uint32_t *term, *count;
    size_t n, cap_term, cap_count;
    int failed;
};

/* A page's terms (as stored) as the model's ids into pi; 0 when they are none or do not
 * decode. */
int jobmodel_page_ids(const struct jobjudge_model *jm, struct page_ids *pi, const char *terms);
/* One page as jobjudge_model_pages sees it (pi: scratch, its ids); 0 when its terms are none
 * or do not decode. */
int jobmodel_page_view(const struct jobjudge_model *jm, struct page_ids *pi, const char *terms,
                       double *pr, double *weight);
/* A page's ids (pi) added to a website's (ids->failed: out of memory, ids left so). */
void jobmodel_site_ids_add(struct site_ids *ids, const struct page_ids *pi);

#endif
