/* The table of `sitescout eval --all-topics`: a row per topic, then mean and worst F1. */
#include "eval/evalalltable.h"

#include <stdio.h>
#include <string.h>

#include "eval/evalstats.h"

#define TUNED_MARK " (tuned)"

/* The topic column: wide enough for every name and its mark, never under "topic". */
static int topic_width(const struct evalall *a)
{
    size_t w = strlen("topic");
    for (size_t i = 0; i < a->n_topics; i++) {
        size_t n = strlen(a->topics[i].topic) + (a->topics[i].tuned ? strlen(TUNED_MARK) : 0);
        if (n > w)
            w = n;
    }
    return (int)w;
}

static void print_row(const struct evalall_topic *t, int w)
{
    char name[512];
    snprintf(name, sizeof name, "%s%s", t->topic, t->tuned ? TUNED_MARK : "");
    if (!t->res) {
        printf("%-*s %8zu  FAILED: %s\n", w, name, t->relevant_sites,
               t->error ? t->error : "out of memory");
        return;
    }
    const struct evaluate_result *r = t->res;
    double fw = evalstats_f1(&r->website), fh = evalstats_f1(&r->homepage);
    printf("%-*s %8zu %8.3f %8.3f %8.3f %10.2f %8.3f %9.3f %+9.3f\n", w, name, t->relevant_sites,
           evalstats_precision(&r->website), evalstats_recall(&r->website), fw, r->pages_per_site,
           evalstats_precision(&r->homepage), fh, fw - fh);
}

static void print_part(const char *what, const struct evalall_part *p)
{
    if (!p->topics) {
        printf("%s: no topic evaluated\n", what);
        return;
    }
    printf("%s, %zu topic%s: mean website F1 %.3f, worst %.3f (%s); %.2f pages per website; "
           "mean homepage F1 %.3f\n",
           what, p->topics, p->topics == 1 ? "" : "s", p->mean_f1, p->worst_f1, p->worst_topic,
           p->mean_pages_per_site, p->mean_home_f1);
    if (p->worst_rule_topic)
        printf("%s, a crawl's rule (the crawl model and the examination, or links that overrule "
               "it): mean "
               "website F1 %.3f, worst %.3f (%s)\n",
               what, p->mean_rule_f1, p->worst_rule_f1, p->worst_rule_topic);
}

void evalalltable_print(const struct evalall *a, const char *source)
{
    printf("%s: %s over %zu topics", source,
           a->mode == EVALUATE_CV ? "cross-validation" : "held-out test websites", a->n_topics);
    if (a->judge)
        printf(", website verdicts by the crawl model");
    if (a->n_skipped)
        printf(" (%zu skipped: fewer than %d relevant training websites)", a->n_skipped,
               a->min_relevant);
    printf("; marked" TUNED_MARK ": the topics the parameters were chosen on\n\n");
    int w = topic_width(a);
    printf("%-*s %8s %8s %8s %8s %10s %8s %9s %9s\n", w, "", "relevant", "web", "web", "web",
           "pages", "home", "home", "F");
    printf("%-*s %8s %8s %8s %8s %10s %8s %9s %9s\n", w, "topic", "sites", "prec", "rec", "F",
           "/website", "prec", "F", "improve");
    for (size_t i = 0; i < a->n_topics; i++)
        print_row(&a->topics[i], w);
    printf("\n");
    print_part("all", &a->all);
    print_part("untuned", &a->untuned);
    if (a->failed)
        printf("%zu topic%s failed (not in the figures above)\n", a->failed,
               a->failed == 1 ? "" : "s");
}

void evalalltable_progress(const struct evalall_topic *t, size_t i, size_t n)
{
    if (t->skipped)
        fprintf(stderr, "[%zu/%zu] %s: skipped, %zu relevant training website%s\n", i + 1, n,
                t->topic, t->relevant_sites, t->relevant_sites == 1 ? "" : "s");
    else if (t->res)
        fprintf(stderr, "[%zu/%zu] %s: website F1 %.3f, %.2f pages per website (%.1f s)\n", i + 1,
                n, t->topic, evalstats_f1(&t->res->website), t->res->pages_per_site, t->seconds);
    else
        fprintf(stderr, "[%zu/%zu] %s: FAILED: %s\n", i + 1, n, t->topic,
                t->error ? t->error : "out of memory");
}
