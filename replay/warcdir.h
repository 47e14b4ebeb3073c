/* The WARC files of a directory, as `sitescout replay --warc DIR` reads them. */
#ifndef SITESCOUT_REPLAY_WARCDIR_H
#define SITESCOUT_REPLAY_WARCDIR_H

#include <stddef.h>

#include "common/err.h"

#define WARCDIR_FILES_MAX 100000

/*
 * The paths ("DIR/NAME") of the files in dir named *.warc, *.warc.gz, or either with
 * .open after it (a file still being written, or left by a crawl that was killed),
 * sorted by name, so that a crawl's files come in the order they were written.
 * Subdirectories are not entered. *paths is the caller's: free each path and the
 * array (warcdir_free). ERR_IO if dir cannot be read, ERR_TOOBIG past WARCDIR_FILES_MAX.
 */
enum err warcdir_list(const char *dir, char ***paths, size_t *n) WARN_UNUSED;

void warcdir_free(char **paths, size_t n);

#endif
