/* The plots of `sitescout experiment`: gnuplot scripts with their data inline, drawn to PNG. */
#include "eval/reportplot.h"

#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "eval/gnuplot.h"
#include "eval/reportio.h"

struct plot {
    const char *name; /* file name without extension */
    const char *title, *xlabel, *ylabel;
    const enum report_role *roles; /* n_roles lines */
    size_t n_roles;
    const char *const *titles; /* one per role */
    enum { PLOT_HARVEST, PLOT_PPRS, PLOT_RECALL, PLOT_FOUND } kind;
    /* harvest_window over examined, pprs_window over pages, recall over pages, truly
     * relevant websites over pages */
};

/* Every run, in the order they are made, for the found plot. */
static const enum report_role all_roles[REPORT_RUNS] = {
    REPORT_WEB_GLOBAL, REPORT_WEB_LOCAL, REPORT_WEB_COMBINED, REPORT_PAGE,
    REPORT_WEB_P07,    REPORT_BFS,       REPORT_HOMEPAGE,
};

/* The exact curve of truly relevant websites from (0, 0) to the run's end. */
static int write_found_block(FILE *f, const struct report_run *run)
{
    if (!run->ran || !run->found.n)
        return 0;
    fprintf(f, "0 0\n");
    for (size_t i = 0; i < run->found.n; i++)
        fprintf(f, "%lld %lld\n", (long long)run->found.points[i].pages,
                (long long)run->found.points[i].truly);
    return 1;
}

/* One run's data block of a plot; 1 if it has a point. */
static int write_block(FILE *f, const struct report_run *run, const struct plot *pl)
{
    int any = 0;
    if (pl->kind == PLOT_FOUND)
        return write_found_block(f, run);
    if (pl->kind == PLOT_RECALL) {
        const struct jobscore *sc = &run->score;
        if (!run->ran || !sc->truth)
            return 0;
        fprintf(f, "0 0\n");
        for (size_t i = 0; i < sc->n_hit_pages; i++)
            fprintf(f, "%lld %.6g\n", (long long)sc->hit_pages[i],
                    (double)(i + 1) / (double)sc->truth);
        fprintf(f, "%lld %.6g\n", (long long)run->pages,
                (double)sc->n_hit_pages / (double)sc->truth);
        return 1;
    }
    for (size_t i = 0; i < run->n_points; i++) {
        const struct report_point *p = &run->points[i];
        double y = pl->kind == PLOT_PPRS ? p->pprs_window : p->harvest_window;
        if (!isfinite(y))
            continue;
        fprintf(f, "%lld %.6g\n", (long long)(pl->kind == PLOT_PPRS ? p->pages : p->examined), y);
        any = 1;
    }
    return any;
}

/* The .gp script: the data inline (one datablock per run), so it can be re-run as is. */
static enum err write_script(const struct report *r, const struct plot *pl, struct buf *path,
                             const char *dir)
{
    FILE *f;
    struct buf name;
    buf_init(&name, 0);
    enum err e = buf_appendf(&name, "%s.gp", pl->name);
    if (!e)
        e = reportio_open(path, dir, buf_str(&name), &f);
    buf_release(&name);
    if (e)
        return e;
    fprintf(f, "# %s: written by sitescout experiment; run 'gnuplot %s.gp' in this directory.\n",
            pl->name, pl->name);
    fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "    set terminal pngcairo size 960,600 font ',11'\n"
               "} else {\n"
               "    set terminal png size 960,600\n"
               "}\n");
    fprintf(f, "set output '%s.png'\nset title ", pl->name);
    gnuplot_quote(f, pl->title);
    fprintf(f, " noenhanced\nset xlabel ");
    gnuplot_quote(f, pl->xlabel);
    fprintf(f, "\nset ylabel ");
    gnuplot_quote(f, pl->ylabel);
    fprintf(f, "\nset grid\nset key below noenhanced\n"
               "set xrange [0:*]\nset yrange [0:*]\n");
    int any = 0, has[REPORT_RUNS] = {0};
    for (size_t k = 0; k < pl->n_roles; k++) {
        fprintf(f, "$d%zu << EOD\n", k);
        has[k] = write_block(f, &r->runs[pl->roles[k]], pl);
        any |= has[k];
        fprintf(f, "EOD\n");
    }
    if (!any) {
        fprintf(f, "set xrange [0:1]\nset yrange [0:1]\nunset key\n"
                   "set label 'no data: no run gave a defined rate' at 0.5,0.5 center\n"
                   "plot 2 notitle\n");
    } else {
        fprintf(f, "plot");
        int first = 1;
        for (size_t k = 0; k < pl->n_roles; k++) {
            if (!has[k])
                continue;
            fprintf(f, "%s $d%zu using 1:2 with %s title ", first ? "" : ",", k,
                    pl->kind == PLOT_RECALL || pl->kind == PLOT_FOUND
                        ? "steps lw 2"
                        : "linespoints pt 7 ps 0.5 lw 2");
            gnuplot_quote(f, pl->titles[k]);
            first = 0;
        }
        fputc('\n', f);
    }
    return reportio_close(f, buf_str(path));
}

enum err reportplot_draw(const struct report *r, const char *dir)
{
    char t6[400], t7[400], y6[128], y7[128], l7[2][64];
    snprintf(t6, sizeof t6, "%s: website harvest rate over websites examined (budget %lld pages)",
             r->topic, (long long)r->budget);
    snprintf(y6, sizeof y6, "harvest rate over the last %lld pages", (long long)r->pprs_window);
    snprintf(t7, sizeof t7, "%s: pprs-rate over pages downloaded (budget %lld pages)", r->topic,
             (long long)r->budget);
    snprintf(y7, sizeof y7, "pages per relevant site, last %lld pages", (long long)r->pprs_window);
    snprintf(l7[0], sizeof l7[0], "website crawler p_threshold %.2g",
             r->runs[REPORT_WEB_COMBINED].p_threshold);
    snprintf(l7[1], sizeof l7[1], "website crawler p_threshold %.2g",
             r->runs[REPORT_WEB_P07].p_threshold);
    char t7b[400], tf[400];
    snprintf(t7b, sizeof t7b, "%s: recall of the relevant test sites over pages downloaded",
             r->topic);
    snprintf(tf, sizeof tf, "%s: truly relevant websites found over pages downloaded", r->topic);
    const char *const titles6[] = {"global edge weights", "local edge weights",
                                   "combined edge weights"};
    const char *const titles7[] = {"page crawler", l7[0], l7[1]};
    const char *titles_all[REPORT_RUNS];
    for (int k = 0; k < REPORT_RUNS; k++)
        titles_all[k] = report_run_name(all_roles[k]);
    const struct plot plots[] = {
        {"fig6_harvest", t6, "websites examined", y6, report_fig6_roles, 3, titles6,
         PLOT_HARVEST},
        {"fig7_pprs", t7, "pages downloaded", y7, report_fig7_roles, 3, titles7, PLOT_PPRS},
        {"fig7b_recall", t7b, "pages downloaded", "recall", report_fig7_roles, 3, titles7,
         PLOT_RECALL},
        {"fig_found", tf, "pages downloaded", "truly relevant websites found", all_roles,
         REPORT_RUNS, titles_all, PLOT_FOUND},
    };
    struct buf path;
    buf_init(&path, 0);
    enum err e = ERR_OK;
    for (size_t i = 0; i < sizeof plots / sizeof plots[0] && !e; i++) {
        e = write_script(r, &plots[i], &path, dir);
        if (!e)
            e = gnuplot_run(dir, plots[i].name);
    }
    if (!e && reportio_path(&path, dir, "gnuplot.log") == ERR_OK) {
        struct stat st;
        if (stat(buf_str(&path), &st) == 0 && st.st_size == 0)
            unlink(buf_str(&path)); /* nothing to say */
    }
    buf_release(&path);
    return e;
}
