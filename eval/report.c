/* The outputs of `sitescout experiment`: CSV files, gnuplot plots and summary.md. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np */
#include "eval/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"

extern char **environ;

#define REPORT_MAX_POINTS 1000000 /* samples per run */

static const char *const run_names[REPORT_RUNS] = {
    "website-global", "website-local", "website-combined", "page",
    "website-p0.7",   "bfs",           "homepage",
};

const char *report_run_name(enum report_role role)
{
    return role >= 0 && role < REPORT_RUNS ? run_names[role] : "?";
}

enum err report_run_add_point(struct report_run *r, const struct report_point *p)
{
    if (r->n_points == r->cap_points) {
        if (r->cap_points >= REPORT_MAX_POINTS)
            return ERR_OK; /* enough for any plot; later samples are dropped */
        size_t cap = r->cap_points ? 2 * r->cap_points : 64;
        struct report_point *np = realloc(r->points, cap * sizeof *np);
        if (!np)
            return err_set(ERR_NOMEM, "out of memory");
        r->points = np;
        r->cap_points = cap;
    }
    r->points[r->n_points++] = *p;
    return ERR_OK;
}

static int cmp_point(const void *a, const void *b)
{
    const struct report_point *x = a, *y = b;
    if (x->pages != y->pages)
        return x->pages < y->pages ? -1 : 1;
    if (x->examined != y->examined)
        return x->examined < y->examined ? -1 : 1;
    if (x->relevant != y->relevant)
        return x->relevant < y->relevant ? -1 : 1;
    return 0;
}

void report_run_sort(struct report_run *r)
{
    if (!r->n_points)
        return;
    qsort(r->points, r->n_points, sizeof *r->points, cmp_point);
    size_t w = 1;
    for (size_t i = 1; i < r->n_points; i++)
        if (cmp_point(&r->points[i], &r->points[w - 1]) != 0)
            r->points[w++] = r->points[i];
    r->n_points = w;
}

void report_run_release(struct report_run *r)
{
    if (!r)
        return;
    free(r->points);
    r->points = NULL;
    r->n_points = r->cap_points = 0;
    jobscore_release(&r->score);
}

/* ---- figures ---- */

static double ratio(int64_t num, int64_t den)
{
    return den ? (double)num / (double)den : NAN;
}

static double pprs_of(const struct report_run *r)
{
    return r->relevant ? (double)r->pages / (double)r->relevant : INFINITY;
}

/* A precision that is undefined because nothing was found counts as 0 (docs/eval.md). */
static double precision0(const struct report_run *r)
{
    return isnan(r->score.precision) ? 0.0 : r->score.precision;
}

/* The sites-examined range of a run's defined windowed harvest rates; 0 if under 2. */
static int curve_range(const struct report_run *r, double *a, double *b)
{
    int n = 0;
    for (size_t i = 0; i < r->n_points; i++) {
        if (isnan(r->points[i].harvest_window))
            continue;
        double x = (double)r->points[i].examined;
        if (!n++)
            *a = x;
        *b = x;
    }
    return n >= 2 && *b > *a;
}

/* The windowed harvest rate at x sites examined, linear between samples. */
static double curve_at(const struct report_run *r, double x)
{
    const struct report_point *prev = NULL;
    for (size_t i = 0; i < r->n_points; i++) {
        const struct report_point *p = &r->points[i];
        if (isnan(p->harvest_window))
            continue;
        double px = (double)p->examined;
        if (px >= x) {
            if (!prev || px == (double)prev->examined)
                return p->harvest_window;
            double t = (x - (double)prev->examined) / (px - (double)prev->examined);
            return prev->harvest_window + t * (p->harvest_window - prev->harvest_window);
        }
        prev = p;
    }
    return prev ? prev->harvest_window : NAN;
}

/* The mean of the curve over [x0, x1] (trapezoids on a grid of 200 steps). */
static double curve_mean(const struct report_run *r, double x0, double x1)
{
    enum { STEPS = 200 };
    double sum = 0, dx = (x1 - x0) / STEPS, prev = curve_at(r, x0);
    for (int i = 1; i <= STEPS; i++) {
        double y = curve_at(r, x0 + dx * i);
        sum += (prev + y) / 2;
        prev = y;
    }
    return sum / STEPS;
}

void report_checks(const struct report *r, struct report_checks *out)
{
    memset(out, 0, sizeof *out);
    const struct report_run *web = &r->runs[REPORT_WEB_COMBINED], *page = &r->runs[REPORT_PAGE];
    out->web_precision = precision0(web);
    out->page_precision = precision0(page);
    out->pprs_ratio = NAN;
    if (web->ran && page->ran && web->relevant > 0) {
        out->pprs_known = 1;
        double pp = pprs_of(page);
        out->pprs_ratio = isinf(pp) ? 0.0 : pprs_of(web) / pp;
        out->pprs_holds = out->pprs_ratio <= 0.6 && out->web_precision >= out->page_precision;
    }
    out->best = out->worst = -1;
    out->weights_known = 1;
    const struct report_run *w[3];
    double x0 = -INFINITY, x1 = INFINITY;
    for (int i = 0; i < 3; i++) {
        w[i] = &r->runs[REPORT_WEB_GLOBAL + i];
        out->harvest_end[i] = ratio(w[i]->relevant, w[i]->examined);
        if (!w[i]->ran || isnan(out->harvest_end[i]))
            out->weights_known = 0;
        double a = 0, b = 0;
        if (curve_range(w[i], &a, &b)) {
            x0 = a > x0 ? a : x0;
            x1 = b < x1 ? b : x1;
        } else {
            x1 = -INFINITY;
        }
    }
    if (!out->weights_known)
        return;
    /* The mean of each Fig. 6 curve over the range all three cover; without one (too
     * few samples), the harvest rate at the end of the run. */
    out->from_curve = x1 > x0;
    out->range[0] = x0;
    out->range[1] = x1;
    for (int i = 0; i < 3; i++)
        out->harvest[i] = out->from_curve ? curve_mean(w[i], x0, x1) : out->harvest_end[i];
    const double *h = out->harvest;
    out->best = out->worst = 0;
    for (int i = 1; i < 3; i++) {
        if (h[i] > h[out->best])
            out->best = i;
        if (h[i] < h[out->worst])
            out->worst = i;
    }
    if (h[out->best] == h[out->worst])
        out->best = out->worst = -1; /* all three alike */
    out->combined_holds = !(h[2] < h[0] && h[2] < h[1]);
}

/* ---- CSV ---- */

/* A number for a CSV file or a table: empty (CSV) or "-" for NaN and infinities. */
static const char *num(char *b, size_t n, double v, int decimals, const char *undef)
{
    if (!isfinite(v))
        return undef;
    snprintf(b, n, "%.*f", decimals, v);
    return b;
}

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

static enum err path_in(struct buf *b, const char *dir, const char *name)
{
    buf_reset(b);
    return buf_appendf(b, "%s/%s", dir, name);
}

static enum err close_file(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return ERR_OK;
}

static enum err open_file(struct buf *path, const char *dir, const char *name, FILE **f)
{
    enum err e = path_in(path, dir, name);
    if (e)
        return e;
    *f = fopen(buf_str(path), "w");
    if (!*f)
        return err_set(ERR_IO, "cannot write %s: %s", buf_str(path), strerror(errno));
    return ERR_OK;
}

/* fig6 (harvest) or fig7 (pprs): one row per sample of each run of the figure. */
static enum err write_series(const struct report *r, struct buf *path, const char *dir,
                             const char *name, const enum report_role *roles, int pprs)
{
    FILE *f;
    enum err e = open_file(path, dir, name, &f);
    if (e)
        return e;
    fprintf(f, "run,pages,examined,relevant,%s\n", pprs ? "pprs_window" : "harvest_rate_window");
    for (int k = 0; k < 3; k++) {
        const struct report_run *run = &r->runs[roles[k]];
        for (size_t i = 0; i < run->n_points; i++) {
            const struct report_point *p = &run->points[i];
            char b[32];
            fprintf(f, "%s,%lld,%lld,%lld,%s\n", run->name, (long long)p->pages,
                    (long long)p->examined, (long long)p->relevant,
                    num(b, sizeof b, pprs ? p->pprs_window : p->harvest_window, 6, ""));
        }
    }
    return close_file(f, buf_str(path));
}

static const enum report_role fig6_roles[3] = {REPORT_WEB_GLOBAL, REPORT_WEB_LOCAL,
                                               REPORT_WEB_COMBINED};
static const enum report_role fig7_roles[3] = {REPORT_PAGE, REPORT_WEB_COMBINED, REPORT_WEB_P07};

/* Recall against pages: one row per relevant test site found, for every run. */
static enum err write_recall(const struct report *r, struct buf *path, const char *dir)
{
    FILE *f;
    enum err e = open_file(path, dir, "recall.csv", &f);
    if (e)
        return e;
    fprintf(f, "run,pages,recall\n");
    for (int k = 0; k < REPORT_RUNS; k++) {
        const struct jobscore *sc = &r->runs[k].score;
        if (!r->runs[k].ran || !sc->truth)
            continue;
        for (size_t i = 0; i < sc->n_hit_pages; i++)
            fprintf(f, "%s,%lld,%.6f\n", r->runs[k].name, (long long)sc->hit_pages[i],
                    (double)(i + 1) / (double)sc->truth);
    }
    return close_file(f, buf_str(path));
}

static enum err write_runs(const struct report *r, struct buf *path, const char *dir)
{
    FILE *f;
    enum err e = open_file(path, dir, "runs.csv", &f);
    if (e)
        return e;
    fprintf(f, "run,job_id,strategy,edge_weights,p_threshold,pages,sites_examined,relevant_found,"
               "pprs,precision,recall,f1,single_page_share,state,stop_reason,seconds\n");
    for (int i = 0; i < REPORT_RUNS; i++) {
        const struct report_run *run = &r->runs[i];
        if (!run->ran)
            continue;
        char b[6][32];
        fprintf(f, "%s,%lld,%s,%s,%s,%lld,%lld,%lld,%s,%s,%s,%s,%s,%s,", run->name,
                (long long)run->job_id, run->strategy, run->edge_weights,
                num(b[0], sizeof b[0], run->p_threshold, 2, ""), (long long)run->pages,
                (long long)run->examined, (long long)run->relevant,
                num(b[1], sizeof b[1], pprs_of(run), 4, ""),
                num(b[2], sizeof b[2], run->score.precision, 4, ""),
                num(b[3], sizeof b[3], run->score.recall, 4, ""),
                num(b[4], sizeof b[4], jobscore_f1(&run->score), 4, ""),
                num(b[5], sizeof b[5],
                    ratio((int64_t)run->score.single_page, (int64_t)run->score.found), 4, ""),
                run->state);
        csv_str(f, run->stop_reason);
        fprintf(f, ",%.1f\n", run->seconds);
    }
    return close_file(f, buf_str(path));
}

static enum err write_table2(const struct report *r, struct buf *path, const char *dir)
{
    const struct report_table2 *t = r->table2;
    FILE *f;
    enum err e = open_file(path, dir, "table2.csv", &f);
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
        fprintf(f, ",%s", num(b, sizeof b, v[i], 4, ""));
    }
    fputc('\n', f);
    return close_file(f, buf_str(path));
}

enum err report_write_csv(const struct report *r, const char *dir)
{
    struct buf path;
    buf_init(&path, 0);
    enum err e = write_series(r, &path, dir, "fig6_harvest.csv", fig6_roles, 0);
    if (!e)
        e = write_series(r, &path, dir, "fig7_pprs.csv", fig7_roles, 1);
    if (!e)
        e = write_runs(r, &path, dir);
    if (!e)
        e = write_recall(r, &path, dir);
    if (!e && r->table2)
        e = write_table2(r, &path, dir);
    buf_release(&path);
    return e;
}

/* ---- plots ---- */

/* A gnuplot string literal: single quotes, a quote doubled. */
static void gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        if (*s != '\n')
            fputc(*s, f);
    }
    fputc('\'', f);
}

struct plot {
    const char *name; /* file name without extension */
    const char *title, *xlabel, *ylabel;
    const enum report_role *roles;
    const char *titles[3];
    enum { PLOT_HARVEST, PLOT_PPRS, PLOT_RECALL } kind;
    /* harvest_window over examined, pprs_window over pages, recall over pages */
};

/* One run's data block of a plot; 1 if it has a point. */
static int write_block(FILE *f, const struct report_run *run, const struct plot *pl)
{
    int any = 0;
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
        e = open_file(path, dir, buf_str(&name), &f);
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
    gp_str(f, pl->title);
    fprintf(f, " noenhanced\nset xlabel ");
    gp_str(f, pl->xlabel);
    fprintf(f, "\nset ylabel ");
    gp_str(f, pl->ylabel);
    fprintf(f, "\nset grid\nset key below noenhanced\n"
               "set xrange [0:*]\nset yrange [0:*]\n");
    int any = 0, has[3] = {0};
    for (int k = 0; k < 3; k++) {
        fprintf(f, "$d%d << EOD\n", k);
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
        for (int k = 0; k < 3; k++) {
            if (!has[k])
                continue;
            fprintf(f, "%s $d%d using 1:2 with %s title ", first ? "" : ",", k,
                    pl->kind == PLOT_RECALL ? "steps lw 2" : "linespoints pt 7 ps 0.5 lw 2");
            gp_str(f, pl->titles[k]);
            first = 0;
        }
        fputc('\n', f);
    }
    return close_file(f, buf_str(path));
}

/* Run gnuplot on dir/name.gp in dir; its messages go to dir/gnuplot.log. */
static enum err run_gnuplot(const char *dir, const char *name, struct buf *path)
{
    struct buf script;
    buf_init(&script, 0);
    enum err e = buf_appendf(&script, "%s.gp", name);
    if (e)
        return e;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "gnuplot.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    char *argv[] = {"gnuplot", (char *)buf_str(&script), NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == ENOENT) {
        e = err_set(ERR_NOTFOUND, "gnuplot is not installed (Debian package gnuplot-nox)");
        goto out;
    }
    if (rc != 0) {
        e = err_set(ERR_IO, "cannot run gnuplot: %s", strerror(rc));
        goto out;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            e = err_set(ERR_IO, "waiting for gnuplot: %s", strerror(errno));
            goto out;
        }
    }
    /* posix_spawnp reports a missing program as exit 127 when it cannot tell earlier. */
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        e = err_set(ERR_NOTFOUND, "gnuplot is not installed (Debian package gnuplot-nox)");
        goto out;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        e = err_set(ERR_IO, "gnuplot failed on %s/%s (see %s/gnuplot.log)", dir, buf_str(&script),
                    dir);
        goto out;
    }
    struct stat st;
    e = path_in(path, dir, name);
    if (!e)
        e = buf_append(path, ".png", 4);
    if (!e && (stat(buf_str(path), &st) != 0 || st.st_size == 0))
        e = err_set(ERR_IO, "gnuplot wrote no %s", buf_str(path));
out:
    buf_release(&script);
    return e;
}

enum err report_plot(const struct report *r, const char *dir)
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
    char t7b[400];
    snprintf(t7b, sizeof t7b, "%s: recall of the relevant test sites over pages downloaded",
             r->topic);
    const struct plot plots[3] = {
        {"fig6_harvest",
         t6,
         "websites examined",
         y6,
         fig6_roles,
         {"global edge weights", "local edge weights", "combined edge weights"},
         PLOT_HARVEST},
        {"fig7_pprs", t7, "pages downloaded", y7, fig7_roles, {"page crawler", l7[0], l7[1]},
         PLOT_PPRS},
        {"fig7b_recall", t7b, "pages downloaded", "recall", fig7_roles,
         {"page crawler", l7[0], l7[1]}, PLOT_RECALL},
    };
    struct buf path;
    buf_init(&path, 0);
    enum err e = ERR_OK;
    for (int i = 0; i < 3 && !e; i++) {
        e = write_script(r, &plots[i], &path, dir);
        if (!e)
            e = run_gnuplot(dir, plots[i].name, &path);
    }
    if (!e && path_in(&path, dir, "gnuplot.log") == ERR_OK) {
        struct stat st;
        if (stat(buf_str(&path), &st) == 0 && st.st_size == 0)
            unlink(buf_str(&path)); /* nothing to say */
    }
    buf_release(&path);
    return e;
}

/* ---- summary.md ---- */

static const char *const weight_names[3] = {"global", "local", "combined"};

/* The names of the weightings whose harvest rate is v ("global and local"). */
static void names_at(const double *h, double v, char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; i < 3; i++) {
        if (h[i] != v)
            continue;
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%s%s", len ? " and " : "", weight_names[i]);
    }
}

/* What report_checks compared the weightings by. */
static void measure(FILE *f, const struct report_checks *c)
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

static void summary_checks(FILE *f, const struct report *r, const struct report_checks *c)
{
    const struct report_run *web = &r->runs[REPORT_WEB_COMBINED], *page = &r->runs[REPORT_PAGE];
    char b[4][32];
    fprintf(f, "## Target checks (issue 8)\n\n");
    fprintf(f, "- **Website crawler at p_threshold 0.9 has pprs <= 0.6x the page crawler's at "
               "equal or better precision: ");
    if (!c->pprs_known) {
        fprintf(f, "cannot be decided** — %s.\n",
                !web->ran || !page->ran ? "a run is missing"
                                        : "the website crawler found no relevant website");
    } else {
        fprintf(f,
                "%s.** At the budget the website crawler (p_threshold %.2f) has pprs %s and "
                "precision %s; the page crawler pprs %s and precision %s: pprs ratio %.2f "
                "(target <= 0.60), precision %s.\n",
                c->pprs_holds ? "holds" : "does not hold", web->p_threshold,
                num(b[0], sizeof b[0], pprs_of(web), 1, "-"),
                num(b[1], sizeof b[1], c->web_precision, 3, "-"),
                num(b[2], sizeof b[2], pprs_of(page), 1, "none found"),
                num(b[3], sizeof b[3], c->page_precision, 3, "-"), c->pprs_ratio,
                c->web_precision >= c->page_precision ? "equal or better" : "worse");
    }
    fprintf(f, "- **Combined edge weights are never the worst of the three: ");
    if (!c->weights_known) {
        fprintf(f, "cannot be decided** — a run is missing or examined no website.\n\n");
        return;
    }
    fprintf(f, "%s.** By ", c->combined_holds ? "holds" : "does not hold");
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

static void summary_runs(FILE *f, const struct report *r)
{
    fprintf(f,
            "## Runs\n\nEvery run had the same page budget (%lld pages; websites being "
            "examined when it is reached are finished, so a run may go a little over). "
            "Precision and recall count the relevant websites found (start and training "
            "sites excluded) against the relevant test sites of the labels; the single-page "
            "share is the share of them judged from one page.\n\n",
            (long long)r->budget);
    fprintf(f, "| run | job | strategy | edge weights | p_threshold | pages | sites examined | "
               "relevant | pprs | precision | recall | F1 | single-page share | end |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < REPORT_RUNS; i++) {
        const struct report_run *run = &r->runs[i];
        if (!run->ran) {
            fprintf(f, "| %s | | %s | %s | %.2f | | | | | | | | | not run |\n", run->name,
                    run->strategy, run->edge_weights, run->p_threshold);
            continue;
        }
        char b[5][32];
        fprintf(f,
                "| %s | %lld | %s | %s | %.2f | %lld | %lld | %lld | %s | %s | %s | %s | %s | "
                "%s: %s |\n",
                run->name, (long long)run->job_id, run->strategy, run->edge_weights,
                run->p_threshold, (long long)run->pages, (long long)run->examined,
                (long long)run->relevant, num(b[0], sizeof b[0], pprs_of(run), 1, "-"),
                num(b[1], sizeof b[1], run->score.precision, 3, "-"),
                num(b[2], sizeof b[2], run->score.recall, 3, "-"),
                num(b[3], sizeof b[3], jobscore_f1(&run->score), 3, "-"),
                num(b[4], sizeof b[4],
                    ratio((int64_t)run->score.single_page, (int64_t)run->score.found), 2, "-"),
                run->state, run->stop_reason);
    }
    fputc('\n', f);
}

/* Pages until a run had found half and 80% of the relevant test sites. */
static void summary_recall(FILE *f, const struct report *r, const char *plots_note)
{
    if (plots_note)
        fprintf(f, "Plot skipped: %s. The data is in `recall.csv`.\n\n", plots_note);
    else
        fprintf(f, "![Recall over pages downloaded](fig7b_recall.png)\n\n");
    fprintf(f, "Recall of the relevant test sites against pages downloaded (`recall.csv`; a "
               "website counts from the page at which it was judged relevant). Pages until "
               "recall 0.5 / 0.8:\n\n| run | recall 0.5 | recall 0.8 | final recall |\n"
               "|---|---|---|---|\n");
    for (int k = 0; k < REPORT_RUNS; k++) {
        const struct report_run *run = &r->runs[k];
        if (!run->ran)
            continue;
        char b[3][32];
        int64_t half = jobscore_pages_to_recall(&run->score, 0.5),
                most = jobscore_pages_to_recall(&run->score, 0.8);
        fprintf(f, "| %s | %s | %s | %s |\n", run->name,
                half < 0 ? "not reached" : num(b[0], sizeof b[0], (double)half, 0, ""),
                most < 0 ? "not reached" : num(b[1], sizeof b[1], (double)most, 0, ""),
                num(b[2], sizeof b[2], run->score.recall, 3, "-"));
    }
    fprintf(f, "\n");
}

static void summary_figures(FILE *f, const struct report *r, const struct report_checks *c,
                            const char *plots_note)
{
    fprintf(f, "## Figure 6: edge weights\n\n");
    if (plots_note)
        fprintf(f, "Plot skipped: %s. The data is in `fig6_harvest.csv`.\n\n", plots_note);
    else
        fprintf(f, "![Website harvest rate over websites examined](fig6_harvest.png)\n\n");
    fprintf(f,
            "The website harvest rate over the last %lld pages (`fig6_harvest.csv`), for the "
            "website crawler at p_threshold %.2f with each edge weighting. ",
            (long long)r->pprs_window, r->runs[REPORT_WEB_COMBINED].p_threshold);
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
    if (plots_note)
        fprintf(f, "Plot skipped: %s. The data is in `fig7_pprs.csv`.\n\n", plots_note);
    else
        fprintf(f, "![pprs-rate over pages downloaded](fig7_pprs.png)\n\n");
    fprintf(f,
            "The pprs-rate (pages downloaded per relevant website found) over the last %lld "
            "pages (`fig7_pprs.csv`). ",
            (long long)r->pprs_window);
    if (c->pprs_known)
        fprintf(f, "pprs ratio website (p_threshold %.2f) / page crawler at the budget: %.2f.",
                r->runs[REPORT_WEB_COMBINED].p_threshold, c->pprs_ratio);
    const struct report_run *page = &r->runs[REPORT_PAGE];
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
    fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", t->topic,
            num(b[0], 32, t->p_err, 3, "-"), num(b[1], 32, t->p_threshold, 2, "-"),
            num(b[2], 32, t->pages_per_site, 1, "-"), num(b[3], 32, t->web_precision, 3, "-"),
            num(b[4], 32, t->web_recall, 3, "-"), num(b[5], 32, t->web_f1, 3, "-"),
            num(b[6], 32, t->home_precision, 3, "-"), num(b[7], 32, t->home_recall, 3, "-"),
            num(b[8], 32, t->home_f1, 3, "-"), isfinite(t->web_f1 - t->home_f1) ? improve : "-");
}

enum err report_write_summary(const struct report *r, const char *dir, const char *plots_note)
{
    struct buf path;
    buf_init(&path, 0);
    FILE *f;
    enum err e = open_file(&path, dir, "summary.md", &f);
    if (e) {
        buf_release(&path);
        return e;
    }
    struct report_checks c;
    report_checks(r, &c);
    fprintf(f, "# sitescout experiment: %s, %lld pages per run\n\n", r->topic,
            (long long)r->budget);
    fprintf(f, "```\n%s\n```\n\n", r->command_line);
    fprintf(f, "The paper's crawling experiments (Ester, Kriegel & Schubert, VLDB 2004, §5.1 "
               "and §5.3) on one topic; see docs/experiment.md for how to read this.\n\n");
    summary_checks(f, r, &c);
    summary_runs(f, r);
    summary_figures(f, r, &c, plots_note);
    summary_table2(f, r);
    e = close_file(f, buf_str(&path));
    buf_release(&path);
    return e;
}
