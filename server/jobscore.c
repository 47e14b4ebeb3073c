/* A crawl job's relevant websites against ground-truth labels (precision, recall). */
#include "server/jobscore.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server/labels.h"
#include "store/crawlstore.h"

/* A relevant test site of the topic by the labels. */
static int is_truth(const struct labels_site *ls, const char *topic)
{
    return ls && labels_role(ls, topic) == LABELS_ROLE_TEST && strcmp(ls->topic, topic) == 0;
}

enum err jobscore_get(struct store *s, int64_t job, const struct labels *labels, const char *topic,
                      struct jobscore *out)
{
    memset(out, 0, sizeof *out);
    out->precision = out->recall = NAN;
    struct crawlstore_found *found;
    size_t n;
    enum err e = crawlstore_found(s, job, 0, &found, &n);
    if (e)
        return e;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(found[i].role, "discovered") != 0)
            continue; /* start sites were given, not found */
        out->found++;
        out->single_page += found[i].pages == 1;
        if (labels && is_truth(labels_find(labels, found[i].host), topic))
            out->hits++;
    }
    free(found);
    if (!labels)
        return ERR_OK;
    for (size_t i = 0; i < labels_count(labels); i++)
        out->truth += is_truth(labels_get(labels, i), topic);
    out->precision = out->found ? (double)out->hits / (double)out->found : NAN;
    out->recall = out->truth ? (double)out->hits / (double)out->truth : NAN;
    return ERR_OK;
}

double jobscore_f1(const struct jobscore *sc)
{
    double p = sc->precision, r = sc->recall;
    if (isnan(p) || isnan(r))
        return NAN;
    return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}
