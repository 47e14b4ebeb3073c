/* summary.md of `sitescout experiment`: comparisons, figures against targets, runs, plots, Table 2.
 */
#include "eval/reportsummary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "crawler/edges.h"
#include "eval/reportfigs.h"
#include "eval/reportio.h"

/* The names of the weightings whose harvest rate is v ("global and local"); h is indexed
 * by enum edges_weights. */
static void names_at(const double *h, double v, char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; i < EDGES_N_WEIGHTS; i++) {
        if (h[i] != v)
            continue;
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%s%s", len ? " and " : "", edges_weights_name((size_t)i));
    }
}

/* What reportfigs compared the weightings by. */
static void measure(FILE *f, const struct reportfigs *c)
{
    if (c->from_curve)
        fprintf(f,
                "the mean windowed website harvest rate (the Figure 6 curve) over %.0f to %.0f "
                "websites examined",
                c->range[0], c->range[1]);
    else
        fprintf(f, "the website harvest rate (relevant / examined) at the end of each run (too few "
                   "samples for the curve)");
}

/* Truly relevant websites found within the budget, by the exact found curves. */
static void summary_truly(FILE *f, const struct report *r, const struct reportfigs *c)
{
    if (!c->truly_known)
        return;
    char b[32];
    fprintf(f,
            "  Truly relevant websites found within the budget (%lld pages; `found.csv`): "
            "website crawler %lld, page crawler %lld, ratio %s.\n",
            (long long)r->budget, (long long)c->web_truly, (long long)c->page_truly,
            reportio_num(b, sizeof b, c->truly_ratio, 2, "- (the page crawler found none)"));
}

static void summary_pprs(FILE *f, const struct report *r, const struct reportfigs *c)
{
    const struct report_run *web = r->runs[REPORT_WEB_COMBINED], *page = r->runs[REPORT_PAGE];
    char b[4][32];
    fprintf(f, "- **Website crawler at p_threshold %.2f against the page crawler",
            web->p_threshold);
    if (!c->pprs_known) {
        fprintf(f, ": cannot be compared** — %s.\n",
                !web->ran || !page->ran ? "a run is missing"
                                        : "the website crawler found no relevant website");
        summary_truly(f, r, c);
        return;
    }
    fprintf(f,
            ".** At the budget the website crawler (p_threshold %.2f) has pprs %s and "
            "precision %s; the page crawler pprs %s and precision %s: pprs ratio %.2f, "
            "precision %s.\n",
            web->p_threshold, reportio_num(b[0], sizeof b[0], report_run_pprs(web), 1, "-"),
            reportio_num(b[1], sizeof b[1], c->web_precision, 3, "-"),
            reportio_num(b[2], sizeof b[2], report_run_pprs(page), 1, "none found"),
            reportio_num(b[3], sizeof b[3], c->page_precision, 3, "-"), c->pprs_ratio,
            c->web_precision >= c->page_precision ? "equal or better" : "worse");
    summary_truly(f, r, c);
}

static void summary_weights(FILE *f, const struct reportfigs *c)
{
    fprintf(f, "- **Edge weights");
    if (!c->weights_known) {
        fprintf(f, ": cannot be compared** — a run is missing or examined no website.\n\n");
        return;
    }
    fprintf(f, ".** By ");
    measure(f, c);
    fprintf(f, ": global %.3f, local %.3f, combined %.3f.", c->harvest[0], c->harvest[1],
            c->harvest[2]);
    if (c->from_curve)
        fprintf(f,
                " At the end of each run (relevant / examined): global %.3f, local %.3f, "
                "combined %.3f.",
                c->harvest_end[0], c->harvest_end[1], c->harvest_end[2]);
    fprintf(f, "\n\n");
}

/* One row of the figures table: a target for figure i, or none (t NULL). */
static void target_row(FILE *f, size_t i, double v, const struct targets_item *t)
{
    char b[32];
    fprintf(f, "| `%s` | %s |", reportfigs_name(i),
            reportio_num(b, sizeof b, v, reportfigs_decimals(i), "-"));
    if (t)
        fprintf(f, " %s %s | %s |\n", targets_op_name(t->op), t->value_text,
                targets_verdict_name(targets_check(t, v)));
    else
        fprintf(f, " | |\n");
}

/* The named figures, each with the targets the user gave for it. */
static void summary_targets(FILE *f, const struct reportfigs *c, const struct targets *t)
{
    fprintf(f, "## Figures and targets\n\n");
    if (t)
        fprintf(f, "The named figures (docs/experiment.md) and the targets of `%s`:\n\n", t->path);
    else
        fprintf(f, "The named figures (docs/experiment.md); no targets given "
                   "(`--targets FILE`).\n\n");
    fprintf(f, "| figure | measured | target | result |\n|---|---|---|---|\n");
    for (size_t i = 0; i < REPORTFIGS_NAMED; i++) {
        double v = reportfigs_value(c, i);
        int rows = 0;
        for (size_t k = 0; t && k < t->n; k++) {
            if (t->items[k].figure != i)
                continue;
            target_row(f, i, v, &t->items[k]);
            rows++;
        }
        if (!rows)
            target_row(f, i, v, NULL);
    }
    fputc('\n', f);
}

/* The figures of the runs table, per repeat; NaN when undefined. */
typedef double (*run_figure_fn)(const struct report_run *run);
static double fig_pages(const struct report_run *run)
{
    return (double)run->pages;
}
static double fig_examined(const struct report_run *run)
{
    return (double)run->examined;
}
static double fig_relevant(const struct report_run *run)
{
    return (double)run->relevant;
}
static double fig_truly(const struct report_run *run)
{
    return (double)run->score.hits;
}
static double fig_precision(const struct report_run *run)
{
    return run->score.precision;
}
static double fig_recall(const struct report_run *run)
{
    return run->score.recall;
}

static const struct {
    run_figure_fn get;
    int decimals; /* of a single value; a mean gets one more when it is a count */
} run_figures[] = {
    {fig_pages, 0},  {fig_examined, 0},    {fig_relevant, 0},
    {fig_truly, 0},  {report_run_pprs, 1}, {fig_precision, 3},
    {fig_recall, 3}, {report_run_f1, 3},   {report_run_single_share, 2},
};

/* One cell of the runs table: the figure of the repeats that ran, or with several of
 * them "mean (min–max)" over those where it is defined; "-" where none is. */
static void runs_cell(FILE *f, const struct report_run *runs, unsigned n, size_t fig)
{
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    unsigned defined = 0, ran = 0;
    for (unsigned k = 0; k < n; k++) {
        if (!runs[k].ran)
            continue;
        ran++;
        double v = run_figures[fig].get(&runs[k]);
        if (!isfinite(v))
            continue;
        defined++;
        sum += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    int d = run_figures[fig].decimals;
    if (!defined)
        fprintf(f, " - |");
    else if (ran == 1)
        fprintf(f, " %.*f |", d, sum);
    else
        fprintf(f, " %.*f (%.*f–%.*f) |", d ? d : 1, sum / defined, d, lo, d, hi);
}

/* The jobs (end 0) or the ends (end 1) of a run's repeats; one end when all ended alike. */
static void runs_jobs_end(FILE *f, const struct report_run *runs, unsigned n, int end)
{
    int alike = 1;
    for (unsigned k = 1; k < n; k++)
        alike &= runs[k].ran && strcmp(runs[k].state, runs[0].state) == 0 &&
                 strcmp(runs[k].stop_reason, runs[0].stop_reason) == 0;
    const char *sep = " ";
    for (unsigned k = 0; k < n; k++) {
        if (!runs[k].ran)
            continue;
        if (!end) {
            fprintf(f, "%s%lld", sep, (long long)runs[k].job_id);
            sep = ", ";
        } else if (alike) {
            fprintf(f, " %s: %s", runs[k].state, runs[k].stop_reason);
            break;
        } else {
            fprintf(f, "%s#%u %s: %s", sep, runs[k].repeat, runs[k].state, runs[k].stop_reason);
            sep = "; ";
        }
    }
    fprintf(f, " |");
}

static void summary_runs(FILE *f, const struct report *r)
{
    fprintf(f,
            "## Runs\n\nEvery run had the same page budget (%lld pages, never exceeded; a "
            "website crawler claims no website the budget cannot pay for, so it may stop "
            "up to max_pages_per_site pages short). "
            "Precision and recall count the relevant websites found (start and training "
            "sites excluded) against the relevant test sites of the labels, and truly relevant "
            "those of them that are such test sites; the single-page share is the share of "
            "them judged from one page.",
            (long long)r->budget);
    if (r->repeat > 1)
        fprintf(f,
                " Each run was made %u times (`--repeat`), each a job of its own: a cell gives "
                "the mean over the repeats and, in brackets, the lowest and the highest. The "
                "comparisons and Figures 6 and 7 are those of the first repeat.",
                r->repeat);
    fprintf(f,
            "\n\n| run | %s | strategy | edge weights | p_threshold | pages | sites examined | "
            "relevant | truly relevant | pprs | precision | recall | F1 | single-page share "
            "| end |\n",
            r->repeat > 1 ? "jobs" : "job");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < REPORT_RUNS; i++) {
        const struct report_run *run = r->runs[i];
        if (!run->ran && !run->selected && i >= REPORT_DEFAULT_RUNS)
            continue; /* made only when asked for: no row unless it was */
        if (!run->ran) {
            fprintf(f, "| %s | | %s | %s | %.2f | | | | | | | | | | %s |\n", run->name,
                    run->strategy, run->edge_weights, run->p_threshold,
                    run->selected ? "not run" : "not selected (`--runs`)");
            continue;
        }
        fprintf(f, "| %s |", run->name);
        runs_jobs_end(f, run, r->repeat, 0);
        fprintf(f, " %s | %s | %.2f |", run->strategy, run->edge_weights, run->p_threshold);
        for (size_t k = 0; k < sizeof run_figures / sizeof run_figures[0]; k++)
            runs_cell(f, run, r->repeat, k);
        runs_jobs_end(f, run, r->repeat, 1);
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* A plot's image line, or why it was skipped and where its data is. */
static void plot_or_note(FILE *f, const char *plots_note, const char *alt, const char *png,
                         const char *csv)
{
    if (plots_note)
        fprintf(f, "Plot skipped: %s. The data is in `%s`.\n\n", plots_note, csv);
    else
        fprintf(f, "![%s](%s)\n\n", alt, png);
}

/* Pages until a run had found half and 80% of the relevant test sites. */
static void summary_recall(FILE *f, const struct report *r, const char *plots_note)
{
    plot_or_note(f, plots_note, "Recall over pages downloaded", "fig7b_recall.png", "recall.csv");
    fprintf(f, "Recall of the relevant test sites against pages downloaded (`recall.csv`; a "
               "website counts from the page at which it was judged relevant). Pages until "
               "recall 0.5 / 0.8:\n\n| run | recall 0.5 | recall 0.8 | final recall |\n"
               "|---|---|---|---|\n");
    for (int k = 0; k < REPORT_RUNS; k++) {
        const struct report_run *run = r->runs[k];
        if (!run->ran)
            continue;
        char b[3][32];
        int64_t half = jobscore_pages_to_recall(&run->score, 0.5),
                most = jobscore_pages_to_recall(&run->score, 0.8);
        fprintf(f, "| %s | %s | %s | %s |\n", run->name,
                half < 0 ? "not reached" : reportio_num(b[0], sizeof b[0], (double)half, 0, ""),
                most < 0 ? "not reached" : reportio_num(b[1], sizeof b[1], (double)most, 0, ""),
                reportio_num(b[2], sizeof b[2], run->score.recall, 3, "-"));
    }
    fprintf(f, "\n");
}

/* The exact curves of websites found over pages (found.csv, fig_found.png). */
static void summary_found(FILE *f, const char *plots_note)
{
    fprintf(f, "## Websites found over pages\n\n");
    plot_or_note(f, plots_note, "Truly relevant websites found over pages downloaded",
                 "fig_found.png", "found.csv");
    fprintf(f, "The truly relevant websites (judged relevant, and relevant test sites by the "
               "labels) each run had found against pages downloaded, exact from the stored "
               "verdicts: a website counts from the page count at which it was judged relevant "
               "(`found.csv` also gives all the websites judged relevant; start sites "
               "excluded).\n\n");
}

static void summary_figures(FILE *f, const struct report *r, const struct reportfigs *c,
                            const char *plots_note)
{
    fprintf(f, "## Figure 6: edge weights\n\n");
    plot_or_note(f, plots_note, "Website harvest rate over websites examined", "fig6_harvest.png",
                 "fig6_harvest.csv");
    fprintf(f,
            "The website harvest rate over the last %lld pages (`fig6_harvest.csv`), for the "
            "website crawler at p_threshold %.2f with each edge weighting. ",
            (long long)r->pprs_window, r->runs[REPORT_WEB_COMBINED]->p_threshold);
    if (c->weights_known && c->best >= 0) {
        char best[64], worst[64];
        names_at(c->harvest, c->harvest[c->best], best, sizeof best);
        names_at(c->harvest, c->harvest[c->worst], worst, sizeof worst);
        fprintf(f, "Best weighting: %s (%.3f); worst: %s (%.3f); by ", best, c->harvest[c->best],
                worst, c->harvest[c->worst]);
        measure(f, c);
        fprintf(f, ".\n\n");
    } else if (c->weights_known) {
        fprintf(f, "The three weightings did equally well (%.3f) by ", c->harvest[0]);
        measure(f, c);
        fprintf(f, ".\n\n");
    } else {
        fprintf(f, "\n\n");
    }

    fprintf(f, "## Figure 7: page crawler against website crawler\n\n");
    plot_or_note(f, plots_note, "pprs-rate over pages downloaded", "fig7_pprs.png",
                 "fig7_pprs.csv");
    fprintf(f,
            "The pprs-rate (pages downloaded per relevant website found) over the last %lld "
            "pages (`fig7_pprs.csv`), from the exact found curves: of the websites judged "
            "relevant (solid), and of the truly relevant ones (dashed). ",
            (long long)r->fig7_window);
    if (r->fig7_window < r->fig7_asked)
        fprintf(f,
                "The window asked for (`--fig7-window %lld`) is capped to a third of the "
                "budget, %lld pages. ",
                (long long)r->fig7_asked, (long long)r->fig7_window);
    if (c->pprs_known)
        fprintf(f, "pprs ratio website (p_threshold %.2f) / page crawler at the budget: %.2f.",
                r->runs[REPORT_WEB_COMBINED]->p_threshold, c->pprs_ratio);
    const struct report_run *page = r->runs[REPORT_PAGE];
    if (page->ran && page->score.found)
        fprintf(f,
                " Single-page share of the page crawler: %.0f%% (%zu of the %zu relevant "
                "websites it found were judged from one page; the paper found about 50%%).",
                100.0 * (double)page->score.single_page / (double)page->score.found,
                page->score.single_page, page->score.found);
    else if (page->ran)
        fprintf(f, " The page crawler found no relevant website, so it has no single-page "
                   "share.");
    fprintf(f, "\n\n");
    summary_recall(f, r, plots_note);
    summary_found(f, plots_note);
}

static void summary_table2(FILE *f, const struct report *r)
{
    fprintf(f, "## Table 2: website classifier against homepage classifier\n\n");
    const struct report_table2 *t = r->table2;
    if (!t) {
        fprintf(f, "Skipped (`--skip-eval`).\n");
        return;
    }
    char b[10][32], improve[32];
    snprintf(improve, sizeof improve, "%+.3f", t->web_f1 - t->home_f1);
    fprintf(f,
            "%u-fold cross-validation over the %zu training websites of the job, as "
            "`sitescout eval --mode cv` (`table2.csv`, %.1f s).\n\n",
            t->folds, t->sites, t->seconds);
    fprintf(f, "| topic | p_err | p_threshold | pages per site | website prec. | website rec. | "
               "website F | homepage prec. | homepage rec. | homepage F | F improvement |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n");
    fprintf(
        f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", t->topic,
        reportio_num(b[0], 32, t->p_err, 3, "-"), reportio_num(b[1], 32, t->p_threshold, 2, "-"),
        reportio_num(b[2], 32, t->pages_per_site, 1, "-"),
        reportio_num(b[3], 32, t->web_precision, 3, "-"),
        reportio_num(b[4], 32, t->web_recall, 3, "-"), reportio_num(b[5], 32, t->web_f1, 3, "-"),
        reportio_num(b[6], 32, t->home_precision, 3, "-"),
        reportio_num(b[7], 32, t->home_recall, 3, "-"), reportio_num(b[8], 32, t->home_f1, 3, "-"),
        isfinite(t->web_f1 - t->home_f1) ? improve : "-");
}

enum err reportsummary_write(const struct report *r, const struct targets *t, const char *dir,
                             const char *plots_note)
{
    struct buf path;
    buf_init(&path, 0);
    FILE *f;
    enum err e = reportio_open(&path, dir, "summary.md", &f);
    if (e) {
        buf_release(&path);
        return e;
    }
    struct reportfigs c;
    reportfigs_compute(r, &c);
    fprintf(f, "# sitescout experiment: %s, %lld pages per run\n\n", r->topic,
            (long long)r->budget);
    fprintf(f, "```\n%s\n```\n\n", r->command_line);
    fprintf(f, "The paper's crawling experiments (Ester, Kriegel & Schubert, VLDB 2004, §5.1 "
               "and §5.3) on one topic; see docs/experiment.md for how to read this.\n\n");
    fprintf(f, "## Comparisons\n\n");
    summary_pprs(f, r, &c);
    summary_weights(f, &c);
    summary_targets(f, &c, t);
    summary_runs(f, r);
    summary_figures(f, r, &c, plots_note);
    summary_table2(f, r);
    e = reportio_close(f, buf_str(&path));
    buf_release(&path);
    return e;
}
