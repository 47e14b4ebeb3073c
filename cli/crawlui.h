/*
 * What `sitescout crawl` shows of a running job: the progress line on a terminal, a
 * curve of precision and recall by pages (its points' pages sampled while it crawls,
 * their figures exact from the stored verdicts at the end), the summary at the end and
 * the JSON report.
 *
 * Ownership: crawlui_new hands out a struct crawlui the caller frees with crawlui_free;
 * the store, params, labels and topic it is given are borrowed for its life.
 */
#ifndef SITESCOUT_CLI_CRAWLUI_H
#define SITESCOUT_CLI_CRAWLUI_H

#include <stdint.h>

struct store;
struct jobspec_params;
struct labels;
struct jobrun_progress;

/* labels may be NULL (no precision or recall then). The clock starts now. NULL on OOM. */
struct crawlui *crawlui_new(struct store *s, int64_t job, const struct jobspec_params *params,
                            const struct labels *labels, const char *topic);

/* Seconds since crawlui_new. */
double crawlui_elapsed(const struct crawlui *ui);

/* Take one progress report of jobrun_run: sample the curve, redraw the line. */
void crawlui_progress(struct crawlui *ui, const struct jobrun_progress *p);

/* End the progress line (if one is drawn) before other output. */
void crawlui_end_line(const struct crawlui *ui);

/* The job's state, counts, score against the labels and top sites, on stdout. */
void crawlui_summary(struct crawlui *ui, double seconds);

/* Write the JSON report to path; CLI_OK, or CLI_FAIL after "sitescout crawl: ...". */
int crawlui_report(struct crawlui *ui, const char *path, double seconds);

void crawlui_free(struct crawlui *ui);

#endif
