/* The CSV files of `sitescout experiment`: the figures' series, runs, recall, found, Table 2. */
#include "eval/reportcsv.h"

#include <string.h>

#include "eval/reportio.h"

/* A CSV field, quoted when it has a comma, quote or line break (RFC 4180). */
static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* fig6 (harvest) or fig7 (pprs): one row per sample of each run of the figure. Figure
 * 7's rates come from the exact found curve at the sample's pages, over its own window. */
static enum err write_series(const struct report *r, struct buf *path, const char *dir,
                             const char *name, const enum report_role *roles, int pprs)
{
    FILE *f;
    enum err e = reportio_open(path, dir, name, &f);
    if (e)
        return e;
    fprintf(f, "run,pages,examined,relevant,%s\n",
            pprs ? "pprs_window,pprs_window_truly" : "harvest_rate_window");
    for (int k = 0; k < 3; k++) {
        const struct report_run *run = r->runs[roles[k]];
        for (size_t i = 0; i < run->n_points; i++) {
            const struct report_point *p = &run->points[i];
            char b[2][32];
            fprintf(f, "%s,%lld,%lld,%lld,", run->name, (long long)p->pages, (long long)p->examined,
                    (long long)p->relevant);
            if (pprs)
                fprintf(f, "%s,%s\n",
                        reportio_num(b[0], 32, report_fig7_pprs(r, run, p->pages, 0), 6, ""),
                        reportio_num(b[1], 32, report_fig7_pprs(r, run, p->pages, 1), 6, ""));
            else
                fprintf(f, "%s\n", reportio_num(b[0], 32, p->harvest_window, 6, ""));
        }
    }
    return reportio_close(f, buf_str(path));
}

/* Recall against pages: one row per relevant test site found, for every run. */
static enum err write_recall(const struct report *r, struct buf *path, const char *dir)
{
    FILE *f;
    enum err e = reportio_open(path, dir, "recall.csv", &f);
    if (e)
        return e;
    fprintf(f, "run,pages,recall\n");
    for (int k = 0; k < REPORT_RUNS; k++) {
        const struct jobscore *sc = &r->runs[k]->score;
        if (!r->runs[k]->ran || !sc->truth)
            continue;
        for (size_t i = 0; i < sc->n_hit_pages; i++)
            fprintf(f, "%s,%lld,%.6f\n", r->runs[k]->name, (long long)sc->hit_pages[i],
                    (double)(i + 1) / (double)sc->truth);
    }
    return reportio_close(f, buf_str(path));
}

/* The exact found curves: one row per website found by each run, and one at its end. */
static enum err write_found(const struct report *r, struct buf *path, const char *dir)
{
    FILE *f;
    enum err e = reportio_open(path, dir, "found.csv", &f);
    if (e)
        return e;
    fprintf(f, "run,repeat,pages,judged_relevant,truly_relevant\n");
    for (int k = 0; k < REPORT_RUNS; k++)
        for (unsigned rep = 0; rep < r->repeat; rep++) {
            const struct report_run *run = &r->runs[k][rep];
            if (!run->ran)
                continue;
            for (size_t i = 0; i < run->found.n; i++) {
                const struct foundcurve_point *p = &run->found.points[i];
                fprintf(f, "%s,%u,%lld,%lld,%lld\n", run->name, run->repeat, (long long)p->pages,
                        (long long)p->judged, (long long)p->truly);
            }
        }
    return reportio_close(f, buf_str(path));
}

/* One row of runs.csv. */
static void write_run_row(FILE *f, const struct report_run *run)
{
    char b[6][32];
    fprintf(f, "%s,%u,%lld,%s,%s,%s,%lld,%lld,%lld,%s,%s,%s,%s,%s,%s,", run->name, run->repeat,
            (long long)run->job_id, run->strategy, run->edge_weights,
            reportio_num(b[0], sizeof b[0], run->p_threshold, 2, ""), (long long)run->pages,
            (long long)run->examined, (long long)run->relevant,
            reportio_num(b[1], sizeof b[1], report_run_pprs(run), 4, ""),
            reportio_num(b[2], sizeof b[2], run->score.precision, 4, ""),
            reportio_num(b[3], sizeof b[3], run->score.recall, 4, ""),
            reportio_num(b[4], sizeof b[4], report_run_f1(run), 4, ""),
            reportio_num(b[5], sizeof b[5], report_run_single_share(run), 4, ""), run->state);
    csv_str(f, run->stop_reason);
    fprintf(f, ",%.1f\n", run->seconds);
}

static enum err write_runs(const struct report *r, struct buf *path, const char *dir)
{
    FILE *f;
    enum err e = reportio_open(path, dir, "runs.csv", &f);
    if (e)
        return e;
    fprintf(f, "run,repeat,job_id,strategy,edge_weights,p_threshold,pages,sites_examined,"
               "relevant_found,pprs,precision,recall,f1,single_page_share,state,stop_reason,"
               "seconds\n");
    for (int i = 0; i < REPORT_RUNS; i++)
        for (unsigned rep = 0; rep < r->repeat; rep++)
            if (r->runs[i][rep].ran)
                write_run_row(f, &r->runs[i][rep]);
    return reportio_close(f, buf_str(path));
}

static enum err write_table2(const struct report *r, struct buf *path, const char *dir)
{
    const struct report_table2 *t = r->table2;
    FILE *f;
    enum err e = reportio_open(path, dir, "table2.csv", &f);
    if (e)
        return e;
    fprintf(f, "topic,folds,sites,p_err,p_threshold,pages_per_site,website_precision,"
               "website_recall,website_f1,homepage_precision,homepage_recall,homepage_f1,"
               "f1_improvement\n");
    csv_str(f, t->topic);
    double v[] = {
        t->p_err,  t->p_threshold,    t->pages_per_site, t->web_precision, t->web_recall,
        t->web_f1, t->home_precision, t->home_recall,    t->home_f1,       t->web_f1 - t->home_f1};
    fprintf(f, ",%u,%zu", t->folds, t->sites);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char b[32];
        fprintf(f, ",%s", reportio_num(b, sizeof b, v[i], 4, ""));
    }
    fputc('\n', f);
    return reportio_close(f, buf_str(path));
}

enum err reportcsv_write(const struct report *r, const char *dir)
{
    struct buf path;
    buf_init(&path, 0);
    enum err e = write_series(r, &path, dir, "fig6_harvest.csv", report_fig6_roles, 0);
    if (!e)
        e = write_series(r, &path, dir, "fig7_pprs.csv", report_fig7_roles, 1);
    if (!e)
        e = write_runs(r, &path, dir);
    if (!e)
        e = write_recall(r, &path, dir);
    if (!e)
        e = write_found(r, &path, dir);
    if (!e && r->table2)
        e = write_table2(r, &path, dir);
    buf_release(&path);
    return e;
}
