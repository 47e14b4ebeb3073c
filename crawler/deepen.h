/*
 * Relevant websites kept in memory, examination and all, for a second and deeper read
 * of their links when the border runs low (issue 13). The website crawler reads a
 * relevant website only until LinkRank is content; while the border is rich that is
 * what finds the most relevant websites per page. When it runs low, the links deeper
 * in the relevant websites read so far are the best left to follow, and reading them
 * costs no second download of the pages read before.
 *
 * The list owns what it keeps; it holds at most `max` websites and lets the least
 * confident go when full. Kept only in memory: a resumed job starts with none.
 */
#ifndef SITESCOUT_CRAWLER_DEEPEN_H
#define SITESCOUT_CRAWLER_DEEPEN_H

#include <stddef.h>

#include "common/err.h"

struct sitecrawl;

struct deepen_site {
    struct sitecrawl *sc;
    char *host;
    double confidence;
    size_t pages_stored, edges_stored; /* what the store holds of it already */
    int fetches_stored;
};

struct deepen {
    struct deepen_site *sites;
    size_t n, cap, max;
    unsigned long taken; /* websites handed out for a deeper read so far */
};

void deepen_init(struct deepen *d, size_t max);
/* Keep *site (ownership passes, also on error; when full, the least confident goes). */
enum err deepen_keep(struct deepen *d, struct deepen_site *site) WARN_UNUSED;
/* Hand out the most confident website kept (the earliest kept among equals): 0 if none. */
int deepen_take(struct deepen *d, struct deepen_site *out);
size_t deepen_count(const struct deepen *d);
void deepen_site_release(struct deepen_site *site);
void deepen_release(struct deepen *d);

#endif
