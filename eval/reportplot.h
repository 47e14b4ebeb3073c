/*
 * The plots of `sitescout experiment` (docs/experiment.md): fig6_harvest, fig7_pprs,
 * fig7b_recall and fig_found, each a gnuplot script NAME.gp with the data inline (left in the
 * directory, so that it can be redrawn) and the NAME.png gnuplot draws from it.
 */
#ifndef SITESCOUT_EVAL_REPORTPLOT_H
#define SITESCOUT_EVAL_REPORTPLOT_H

#include "common/err.h"
#include "eval/report.h"

/*
 * Write the scripts into dir and run gnuplot on each (eval/gnuplot): ERR_NOTFOUND
 * (err_msg says why) when gnuplot is not installed; ERR_IO when it fails.
 */
enum err reportplot_draw(const struct report *r, const char *dir) WARN_UNUSED;

#endif
