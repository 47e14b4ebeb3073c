/* Relevant websites kept for a deeper read of their links when the border runs low. */
#include "crawler/deepen.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "crawler/sitecrawl.h"

void deepen_init(struct deepen *d, size_t max)
{
    memset(d, 0, sizeof *d);
    d->max = max;
}

void deepen_site_release(struct deepen_site *site)
{
    sitecrawl_free(site->sc);
    free(site->host);
    memset(site, 0, sizeof *site);
}

/* The index of the least (best = 0) or most (best = 1) confident site; the earliest
 * kept among equals. n > 0. */
static size_t pick(const struct deepen *d, int best)
{
    size_t at = 0;
    for (size_t i = 1; i < d->n; i++) {
        double a = d->sites[i].confidence, b = d->sites[at].confidence;
        if (best ? a > b : a < b)
            at = i;
    }
    return at;
}

/* Remove the site at i, keeping the order of the rest (ties go to the earliest). */
static void remove_at(struct deepen *d, size_t i)
{
    memmove(&d->sites[i], &d->sites[i + 1], (d->n - i - 1) * sizeof *d->sites);
    d->n--;
}

enum err deepen_keep(struct deepen *d, struct deepen_site *site)
{
    if (!d->max) {
        deepen_site_release(site);
        return ERR_OK;
    }
    if (d->n == d->max) {
        size_t least = pick(d, 0);
        if (d->sites[least].confidence >= site->confidence) {
            deepen_site_release(site); /* no better than any kept */
            return ERR_OK;
        }
        deepen_site_release(&d->sites[least]);
        remove_at(d, least);
    }
    enum err e = grow_array((void **)&d->sites, &d->cap, d->n + 1, sizeof *d->sites);
    if (e) {
        deepen_site_release(site);
        return e;
    }
    d->sites[d->n++] = *site;
    memset(site, 0, sizeof *site);
    return ERR_OK;
}

int deepen_take(struct deepen *d, struct deepen_site *out)
{
    if (!d->n)
        return 0;
    size_t best = pick(d, 1);
    *out = d->sites[best];
    remove_at(d, best);
    d->taken++;
    return 1;
}

size_t deepen_count(const struct deepen *d)
{
    return d->n;
}

void deepen_release(struct deepen *d)
{
    for (size_t i = 0; i < d->n; i++)
        deepen_site_release(&d->sites[i]);
    free(d->sites);
    memset(d, 0, sizeof *d);
}
