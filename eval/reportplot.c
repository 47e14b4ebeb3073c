/* The plots of `sitescout experiment`: gnuplot scripts with their data inline, drawn to PNG. */
#include "eval/reportplot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
    REPORT_WEB_GLOBAL,   REPORT_WEB_LOCAL,       REPORT_WEB_COMBINED,
    REPORT_PAGE,         REPORT_WEB_P07,         REPORT_BFS,
    REPORT_HOMEPAGE,     REPORT_PAGE_HOMEPAGE,   REPORT_BESTFIRST,
    REPORT_HISTORY,      REPORT_HOTWORDS,        REPORT_RELEVANCE,
    REPORT_WEIGHT_TABLE, REPORT_LEARNING_ANCHOR, REPORT_CONTEXT_GRAPH,
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

/* One run's data block of a plot (for Figure 7, of the truly relevant websites when
 * truly); 1 if it has a point. */
static int write_block(FILE *f, const struct report *r, const struct report_run *run,
                       const struct plot *pl, int truly)
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
        double y =
            pl->kind == PLOT_PPRS ? report_fig7_pprs(r, run, p->pages, truly) : p->harvest_window;
        if (!isfinite(y))
            continue;
        fprintf(f, "%lld %.6g\n", (long long)(pl->kind == PLOT_PPRS ? p->pages : p->examined), y);
        any = 1;
    }
    return any;
}

/* How many repeats of each run a plot draws: the found curves show them all, the
 * paper's figures the first (the curves of several would hide one another). */
static unsigned plot_repeats(const struct report *r, const struct plot *pl)
{
    return pl->kind == PLOT_FOUND ? r->repeat : 1;
}

static const struct report_run *plot_run(const struct report *r, enum report_role role,
                                         unsigned rep)
{
    return &r->runs[role][rep];
}

/* The plot's line of run k, repeat rep (its second line of Figure 7 when truly). */
static void plot_line(FILE *f, const struct plot *pl, size_t k, unsigned rep, int truly, int first)
{
    fprintf(f, "%s $d%zu_%u_%d using 1:2 with %s lc %zu dt %d ", first ? "" : ",", k, rep, truly,
            pl->kind == PLOT_RECALL || pl->kind == PLOT_FOUND ? "steps lw 2"
                                                              : "linespoints pt 7 ps 0.5 lw 2",
            k + 1, truly ? 2 : 1);
    if (rep) {
        fprintf(f, "notitle"); /* a repeat: the same colour, one title for all */
        return;
    }
    fprintf(f, "title ");
    if (!truly) {
        gnuplot_quote(f, pl->titles[k]);
        return;
    }
    char t[128];
    snprintf(t, sizeof t, "%s, truly relevant", pl->titles[k]);
    gnuplot_quote(f, t);
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
    /* One block per line: run k, repeat rep, judged (0) or truly relevant (1). gnuplot
     * warns about an empty block, so the plot names only those with points. */
    unsigned reps = plot_repeats(r, pl);
    int variants = pl->kind == PLOT_PPRS ? 2 : 1, any = 0;
    unsigned char *has = calloc(pl->n_roles * reps * (size_t)variants, 1);
    if (!has) {
        fclose(f);
        return err_set(ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0, b = 0; k < pl->n_roles; k++)
        for (unsigned rep = 0; rep < reps; rep++)
            for (int t = 0; t < variants; t++, b++) {
                fprintf(f, "$d%zu_%u_%d << EOD\n", k, rep, t);
                has[b] = (unsigned char)write_block(f, r, plot_run(r, pl->roles[k], rep), pl, t);
                any |= has[b];
                fprintf(f, "EOD\n");
            }
    if (!any)
        fprintf(f, "set xrange [0:1]\nset yrange [0:1]\nunset key\n"
                   "set label 'no data: no run gave a defined rate' at 0.5,0.5 center\n"
                   "plot 2 notitle");
    else
        fprintf(f, "plot");
    for (size_t k = 0, b = 0, first = 1; k < pl->n_roles; k++)
        for (unsigned rep = 0; rep < reps; rep++)
            for (int t = 0; t < variants; t++, b++)
                if (has[b]) {
                    plot_line(f, pl, k, rep, t, (int)first);
                    first = 0;
                }
    free(has);
    fputc('\n', f);
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
    snprintf(y7, sizeof y7, "pages per relevant site, last %lld pages", (long long)r->fig7_window);
    snprintf(l7[0], sizeof l7[0], "website crawler p_threshold %.2g",
             r->runs[REPORT_WEB_COMBINED]->p_threshold);
    snprintf(l7[1], sizeof l7[1], "website crawler p_threshold %.2g",
             r->runs[REPORT_WEB_P07]->p_threshold);
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
        {"fig6_harvest", t6, "websites examined", y6, report_fig6_roles, 3, titles6, PLOT_HARVEST},
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
