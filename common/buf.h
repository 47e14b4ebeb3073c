/* Growable byte buffer with a hard cap, always NUL-terminated. */
#ifndef SITESCOUT_COMMON_BUF_H
#define SITESCOUT_COMMON_BUF_H

#include <stddef.h>

#include "common/err.h"

struct buf {
    char *data; /* NULL until the first append; then NUL-terminated */
    size_t len; /* bytes used, without the terminating NUL */
    size_t cap; /* bytes allocated */
    size_t max; /* appends that would exceed this fail with ERR_TOOBIG */
};

#define BUF_DEFAULT_MAX ((size_t)64 << 20)

/* Embedded lifecycle: init with a cap (0 = BUF_DEFAULT_MAX), release frees data. */
void buf_init(struct buf *b, size_t max);
void buf_release(struct buf *b);
void buf_reset(struct buf *b); /* len = 0, keeps memory */

enum err buf_append(struct buf *b, const void *data, size_t len) WARN_UNUSED;
enum err buf_append_str(struct buf *b, const char *s) WARN_UNUSED;
enum err buf_append_char(struct buf *b, char c) WARN_UNUSED;
enum err buf_appendf(struct buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3) WARN_UNUSED;

/* The contents as a C string; never NULL ("" when empty). Borrowed. */
const char *buf_str(const struct buf *b);

/* Hand the data to the caller (free() it); the buffer is left empty. Never NULL. */
char *buf_detach(struct buf *b);

#endif
