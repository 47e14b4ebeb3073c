/* A crawl job's relevant websites against ground-truth labels (precision, recall). */
#include "eval/jobscore.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/labels.h"
#include "store/crawlstore.h"

/* A relevant test site of the topic by the labels. */
static int is_truth(const struct labels_site *ls, const char *topic)
{
    return ls && labels_role(ls, topic) == LABELS_ROLE_TEST && strcmp(ls->topic, topic) == 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_verdict(const void *a, const void *b)
{
    const struct jobscore_verdict *x = a, *y = b;
    return (x->pages > y->pages) - (x->pages < y->pages);
}

void jobscore_release(struct jobscore *sc)
{
    free(sc->hit_pages);
    sc->hit_pages = NULL;
    sc->n_hit_pages = 0;
    free(sc->verdicts);
    sc->verdicts = NULL;
    sc->n_verdicts = 0;
}

int64_t jobscore_pages_to_recall(const struct jobscore *sc, double recall)
{
    if (!sc->truth)
        return -1;
    double need = recall * (double)sc->truth;
    for (size_t i = 0; i < sc->n_hit_pages; i++)
        if ((double)(i + 1) >= need - 1e-9)
            return sc->hit_pages[i];
    return -1;
}

/* Score the relevant websites found[0..n) (jobscore_get); takes found (frees it). */
static enum err score(struct crawlstore_found *found, size_t n, const struct labels *labels,
                      const char *topic, struct jobscore *out)
{
    out->hit_pages = malloc((n ? n : 1) * sizeof *out->hit_pages);
    out->verdicts = malloc((n ? n : 1) * sizeof *out->verdicts);
    if (!out->hit_pages || !out->verdicts) {
        free(found);
        jobscore_release(out);
        return err_set(ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        int start = strcmp(found[i].role, "discovered") != 0;
        int truly = labels && is_truth(labels_find(labels, found[i].host), topic);
        if (found[i].found_pages >= 0)
            out->verdicts[out->n_verdicts++] =
                (struct jobscore_verdict){found[i].found_pages, start, truly};
        if (start)
            continue; /* start sites were given, not found */
        out->found++;
        out->single_page += found[i].pages == 1;
        if (truly) {
            out->hits++;
            if (found[i].found_pages >= 0)
                out->hit_pages[out->n_hit_pages++] = found[i].found_pages;
        }
    }
    free(found);
    qsort(out->hit_pages, out->n_hit_pages, sizeof *out->hit_pages, cmp_i64);
    qsort(out->verdicts, out->n_verdicts, sizeof *out->verdicts, cmp_verdict);
    if (!labels)
        return ERR_OK;
    for (size_t i = 0; i < labels_count(labels); i++)
        out->truth += is_truth(labels_get(labels, i), topic);
    out->precision = out->found ? (double)out->hits / (double)out->found : NAN;
    out->recall = out->truth ? (double)out->hits / (double)out->truth : NAN;
    return ERR_OK;
}

enum err jobscore_get(struct store *s, int64_t job, const struct labels *labels, const char *topic,
                      struct jobscore *out)
{
    return jobscore_get_changed(s, job, labels, topic, NULL, 0, out);
}

/* The change of host in c[0..n) (NULL: none). */
static const struct jobscore_change *change_of(const struct jobscore_change *c, size_t n,
                                               const char *host)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(c[i].host, host) == 0)
            return &c[i];
    return NULL;
}

enum err jobscore_get_changed(struct store *s, int64_t job, const struct labels *labels,
                              const char *topic, const struct jobscore_change *c, size_t n_c,
                              struct jobscore *out)
{
    memset(out, 0, sizeof *out);
    out->precision = out->recall = NAN;
    struct crawlstore_found *found;
    size_t n, kept = 0;
    enum err e = crawlstore_found(s, job, 0, &found, &n);
    if (e)
        return e;
    struct crawlstore_found *all = malloc((n + n_c ? n + n_c : 1) * sizeof *all);
    if (!all) {
        free(found);
        return err_set(ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) { /* the stored verdicts that stay */
        const struct jobscore_change *ch = change_of(c, n_c, found[i].host);
        if (!ch || ch->relevant)
            all[kept++] = found[i];
    }
    free(found);
    for (size_t i = 0; i < n_c; i++) { /* and the websites the changes make relevant */
        int stored = 0;
        for (size_t k = 0; k < kept && !stored; k++)
            stored = strcmp(all[k].host, c[i].host) == 0;
        if (!c[i].relevant || stored)
            continue;
        struct crawlstore_found *f = &all[kept++];
        *f = (struct crawlstore_found){.pages = -1, .found_pages = -1};
        snprintf(f->host, sizeof f->host, "%s", c[i].host);
        snprintf(f->role, sizeof f->role, "%s", c[i].role);
    }
    return score(all, kept, labels, topic, out);
}
