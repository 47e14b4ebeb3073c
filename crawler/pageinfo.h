/*
 * What the crawlers need of a fetched page: the text to classify and its links,
 * resolved, normalised, de-duplicated and split into intrinsic (same website) and
 * transversal (other websites) as the paper defines them. Training and crawling both
 * go through here, so that the classifier sees the same text in both.
 */
#ifndef SITESCOUT_CRAWLER_PAGEINFO_H
#define SITESCOUT_CRAWLER_PAGEINFO_H

#include <stddef.h>

#include "common/err.h"

struct fetch_result;

struct pageinfo {
    char *text; /* title, newline, visible text (UTF-8); never NULL */
    size_t text_len;
    char **intrinsic; /* links to other pages of the same website */
    size_t n_intrinsic;
    char **transversal; /* links to pages of other websites */
    size_t n_transversal;
    /* With anchors asked for (pageinfo_from_fetch_anchors): the anchor text of each link,
     * parallel to intrinsic and transversal ("" if none; the anchors of a URL linked
     * more than once joined by a space, up to PAGEINFO_MAX_ANCHOR bytes). NULL otherwise. */
    char **intrinsic_anchor;
    char **transversal_anchor;
};

#define PAGEINFO_MAX_ANCHOR 1024

/*
 * Extract a page fetched with status FETCH_OK. Links resolve against <base href> (if
 * any, itself resolved against the page's final URL) or the final URL; links that
 * are not http(s), too long, or point at the page itself are dropped. On success
 * *out is the caller's (pageinfo_free); ERR_TOOBIG when the HTML parser gave up.
 */
enum err pageinfo_from_fetch(const struct fetch_result *r, struct pageinfo **out) WARN_UNUSED;

/* Same, keeping each link's anchor text (the strategies that read it; the others do
 * without the copies). */
enum err pageinfo_from_fetch_anchors(const struct fetch_result *r,
                                     struct pageinfo **out) WARN_UNUSED;

void pageinfo_free(struct pageinfo *p);

#endif
