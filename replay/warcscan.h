/* One sequential pass over a WARC file (plain or gzip members) that fills an archive's index. */
#ifndef SITESCOUT_REPLAY_WARCSCAN_H
#define SITESCOUT_REPLAY_WARCSCAN_H

#include <stdint.h>

#include "common/err.h"
#include "replay/warcindex.h"

/*
 * Read the file open on fd (borrowed, read from its start to its end) and add its
 * response records to idx as file number `file`, with where their blocks lie: for
 * gzip, the member each block starts in and the compressed length to read. *gz says
 * whether the file was gzip (by its magic). path names the file in messages.
 *
 * Errors: ERR_PARSE with a message naming path and the offset of the record (for gzip,
 * of its member); ERR_IO, ERR_NOMEM, ERR_TOOBIG. On an error records of this file may
 * already be in idx: the caller rolls them back. A record cut off by the end of the
 * file is dropped with a warning on the log, and is no error.
 */
enum err warcscan_file(struct warcindex *idx, const char *path, int fd, uint32_t file,
                       int *gz) WARN_UNUSED;

#endif
