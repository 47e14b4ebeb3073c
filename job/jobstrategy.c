/* The crawl strategies' table (jobstrategy.h). */
#include "job/jobstrategy.h"

#include "classifier/pagecls.h"
#include "job/jobspec.h"

#define PAGES JOBSTRATEGY_PAGES

/* docs/crawl.md, Strategies, says where each comes from. */
static const struct jobstrategy strategies[] = {
    [JOBSPEC_WEBSITE] = {.name = "website"},
    [JOBSPEC_PAGE] = {.name = "page", .flags = PAGES, .order = pageorder_page},
    [JOBSPEC_BFS] = {.name = "bfs", .flags = PAGES, .order = pageorder_bfs},
    [JOBSPEC_HOMEPAGE] = {.name = "homepage", .flags = JOBSTRATEGY_HOMEPAGES},
    [JOBSPEC_PAGE_HOMEPAGE] = {.name = "page_homepage",
                               .flags = PAGES | JOBSTRATEGY_HOMEPAGES,
                               .order = pageorder_page},
    [JOBSPEC_BESTFIRST] = {.name = "bestfirst", .flags = PAGES, .order = pageorder_bestfirst},
    [JOBSPEC_HISTORY] = {.name = "history", .flags = PAGES, .order = pageorder_history},
    [JOBSPEC_HOTWORDS] = {.name = "hotwords",
                          .flags = PAGES | JOBSTRATEGY_HOT_WORDS,
                          .order = pageorder_hotwords,
                          .refuses = 1u << PAGECLS_SVM,
                          .refuses_why = "its hot words are the terms the target class's "
                                         "centroids weigh most, and an SVM has no centroids, so "
                                         "it would crawl as bestfirst"},
    [JOBSPEC_RELEVANCE_DEGREE] = {.name = "relevance_degree",
                                  .flags = PAGES | JOBSTRATEGY_OWN_HOST_LAST,
                                  .order = pageorder_relevance_degree,
                                  .model = JOBSTRATEGY_KEYPHRASES},
    [JOBSPEC_WEIGHT_TABLE] = {.name = "weight_table",
                              .flags = PAGES,
                              .order = pageorder_weight_table,
                              .model = JOBSTRATEGY_WEIGHTTABLE},
    [JOBSPEC_LEARNING_ANCHOR] = {.name = "learning_anchor",
                                 .flags = PAGES | JOBSTRATEGY_LEARN_ANCHORS,
                                 .order = pageorder_learning_anchor},
    [JOBSPEC_CONTEXT_GRAPH] = {.name = "context_graph",
                               .flags = PAGES,
                               .order = pageorder_context_graph,
                               .model = JOBSTRATEGY_CTXGRAPH,
                               .refuses = 1u << PAGECLS_SVM,
                               .refuses_why = "its layer classifier tells the context graph's "
                                              "layers apart, and an SVM tells two classes apart, "
                                              "so it would keep layer 0 and other alone"},
};
_Static_assert(sizeof strategies / sizeof strategies[0] == JOBSPEC_N_STRATEGIES,
               "a row for each strategy");
_Static_assert(PAGECLS_N_KINDS <= 8 * sizeof(unsigned), "refuses holds every classifier");

const struct jobstrategy *jobstrategy_get(size_t strategy)
{
    return strategy < JOBSPEC_N_STRATEGIES ? &strategies[strategy] : NULL;
}
