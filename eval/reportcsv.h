/*
 * The CSV files of `sitescout experiment` (docs/experiment.md): fig6_harvest.csv,
 * fig7_pprs.csv, runs.csv, recall.csv and, when the report has Table 2, table2.csv.
 * An undefined figure is an empty field.
 */
#ifndef SITESCOUT_EVAL_REPORTCSV_H
#define SITESCOUT_EVAL_REPORTCSV_H

#include "common/err.h"
#include "eval/report.h"

/* Write them into dir (which exists); ERR_IO naming the file that failed. */
enum err reportcsv_write(const struct report *r, const char *dir) WARN_UNUSED;

#endif
