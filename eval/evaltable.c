/* The table `sitescout eval` prints: training, the Table 2 row, the counts and times. */
#include "eval/evaltable.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "classifier/pagecls.h"

#include "eval/evalstats.h"

void evaltable_print(const struct jobspec *job, const struct evaluate_result *r)
{
    const struct jobspec_params *p = &job->params;
    if (r->mode == EVALUATE_CV)
        printf("%s: %u-fold cross-validation over %zu training websites (%zu relevant, %zu "
               "other)\n",
               job->topic, r->folds, r->train_sites, r->train_relevant,
               r->train_sites - r->train_relevant);
    else
        printf("%s: trained on %zu websites (%zu relevant), tested on %zu held-out websites "
               "(%u relevant)\n",
               job->topic, r->train_sites, r->train_relevant, r->n_sites,
               r->website.tp + r->website.fn);
    bool svm = p->classifier == PAGECLS_SVM;
    printf("training: %zu pages (%.1f per website, first %d BFS pages); %s page classifier, "
           "page accuracy %.3f (p_err %.3f)\n",
           r->train_pages, r->train_sites ? (double)r->train_pages / (double)r->train_sites : 0,
           p->train_pages_per_site, svm ? "svm" : "knn", r->page_cv.accuracy, r->page_cv.p_err);
    if (r->n_excluded)
        printf("excluded: %zu training websites gave no page (first: %s)\n", r->n_excluded,
               r->excluded[0]);
    printf("website classifier: prior Pr[target] %.2f, p_threshold %.2f, at most %d fetches per "
           "site, ",
           r->prior_target, p->p_threshold, r->page_cap);
    if (r->l_threshold > 0)
        printf("read on until LinkRank %g (as a crawl reads)\n", r->l_threshold);
    else
        printf("no LinkRank continuation\n");
    if (r->judge)
        printf(
            "website verdicts: the crawl model's (the 'web' columns), learnt from %zu pages (%zu "
            "of the held-out websites), %u terms, topic share %.3f; threshold %.3g from %zu "
            "spies; %zu websites without a known term\n",
            r->crawl.pages, r->crawl.unlabelled_pages, r->crawl.terms, r->crawl.target_prior,
            r->crawl.threshold, r->crawl.spies, r->crawl.unscored);
    printf("\n");

    double fw = evalstats_f1(&r->website), fh = evalstats_f1(&r->homepage);
    printf("%-24s %6s %6s %6s %6s %6s %6s | %6s %6s %6s | %7s\n", "", "page", "", "pages", "web",
           "web", "web", "home", "home", "home", "F");
    printf("%-24s %6s %6s %6s %6s %6s %6s | %6s %6s %6s | %7s\n", "topic", "acc", "p_thr", "/site",
           "prec", "rec", "F", "prec", "rec", "F", "improve");
    /* The svm's and the crawl model's rows are marked, so that Table 2 rows of every
     * classifier can sit together. */
    char label[32];
    const char *mark = svm && r->judge ? " (svm, crawl)"
                       : svm           ? " (svm)"
                       : r->judge      ? " (crawl)"
                                       : "";
    snprintf(label, sizeof label, "%.*s%s", 24 - (int)strlen(mark), job->topic, mark);
    printf("%-24.24s %6.3f %6.2f %6.1f %6.3f %6.3f %6.3f | %6.3f %6.3f %6.3f | %+7.3f\n\n", label,
           r->page_cv.accuracy, p->p_threshold, r->pages_per_site, evalstats_precision(&r->website),
           evalstats_recall(&r->website), fw, evalstats_precision(&r->homepage),
           evalstats_recall(&r->homepage), fh, fw - fh);
    printf("%-20s tp %u fp %u fn %u tn %u; decided %zu of %zu sites; %.2f "
           "pages per site, %.2f to decide\n",
           r->judge ? "crawl model:" : "website classifier:", r->website.tp, r->website.fp,
           r->website.fn, r->website.tn, r->decided, r->n_sites, r->pages_per_site,
           r->pages_to_decide);
    if (r->judge) {
        const struct evalstats *x = &r->crawl.with_examination;
        printf("crawl model and examination (a crawl's rule): tp %u fp %u fn %u tn %u; precision "
               "%.3f, recall %.3f, F %.3f\n",
               x->tp, x->fp, x->fn, x->tn, evalstats_precision(x), evalstats_recall(x),
               evalstats_f1(x));
    }
    printf("homepage classifier: tp %u fp %u fn %u tn %u; %zu homepages unreadable\n",
           r->homepage.tp, r->homepage.fp, r->homepage.fn, r->homepage.tn, r->no_homepage);
    printf("time: %.1f s collecting, %.1f s training, %.1f s classifying, %.1f s judging; %llu "
           "requests\n",
           r->seconds_collect, r->seconds_train, r->seconds_classify, r->seconds_judge,
           (unsigned long long)r->fetch.requests);
}
