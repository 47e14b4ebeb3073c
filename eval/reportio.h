/*
 * Internal to eval/: the files of an experiment's output directory, shared by reportcsv, reportplot
 * and reportsummary: opening one by name, closing it with the write errors checked, and numbers
 * written the same way everywhere.
 *
 * Ownership: the caller owns `path` (a scratch buffer that holds the file's path for
 * the error message) and closes what reportio_open opened with reportio_close.
 */
#ifndef SITESCOUT_EVAL_REPORTIO_H
#define SITESCOUT_EVAL_REPORTIO_H

#include <stddef.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/err.h"

/* path = dir/name. */
enum err reportio_path(struct buf *path, const char *dir, const char *name) WARN_UNUSED;

/* Create (truncate) dir/name for writing; path holds its path afterwards. */
enum err reportio_open(struct buf *path, const char *dir, const char *name, FILE **f) WARN_UNUSED;

/* Close f; ERR_IO (naming path) when a write or the close failed. */
enum err reportio_close(FILE *f, const char *path) WARN_UNUSED;

/*
 * v with `decimals` decimals in b (n bytes), returned; `undef` instead for NaN and
 * infinities ("" in CSV files, "-" in tables).
 */
const char *reportio_num(char *b, size_t n, double v, int decimals, const char *undef);

#endif
