/*
 * gnuplot as a child process: how its scripts quote a string, and running one script
 * in a directory. Only this module starts gnuplot.
 */
#ifndef SITESCOUT_EVAL_GNUPLOT_H
#define SITESCOUT_EVAL_GNUPLOT_H

#include <stdio.h>

#include "common/err.h"

/* s as a gnuplot string literal (single quotes, a quote doubled, line breaks dropped). */
void gnuplot_quote(FILE *f, const char *s);

/*
 * Run `gnuplot NAME.gp` in dir, its messages appended to dir/gnuplot.log, and check
 * that it wrote dir/NAME.png. ERR_NOTFOUND (err_msg says why) when gnuplot is not
 * installed; ERR_IO when it fails or wrote no PNG.
 */
enum err gnuplot_run(const char *dir, const char *name) WARN_UNUSED;

#endif
