/* Access log: JSON lines, buffered in memory and written with write(2). */
#include "replay/alog.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"

#define ALOG_FLUSH_AT  (256 * 1024) /* write out once this much is buffered */
#define ALOG_BUF_MAX   (1024 * 1024)
#define ALOG_FIELD_MAX 2048 /* URLs longer than this are cut in the log */

struct alog {
    int fd;
    char *path;
    struct buf buf;
    int failed; /* a write failed: warn once, keep serving */
};

enum err alog_open(const char *path, struct alog **out)
{
    *out = NULL;
    struct alog *l = calloc(1, sizeof *l);
    if (!l || !(l->path = strdup(path))) {
        free(l);
        return err_set(ERR_NOMEM, "out of memory");
    }
    l->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (l->fd < 0) {
        enum err e = err_set(ERR_IO, "cannot open access log %s: %s", path, strerror(errno));
        free(l->path);
        free(l);
        return e;
    }
    buf_init(&l->buf, ALOG_BUF_MAX);
    *out = l;
    return ERR_OK;
}

/* A JSON string of s (at most ALOG_FIELD_MAX bytes of it); bytes >= 0x80 become \u00XX. */
static enum err put_string(struct buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[ALOG_FIELD_MAX * 6 + 3];
    size_t n = 0;
    tmp[n++] = '"';
    for (size_t i = 0; s[i] && i < ALOG_FIELD_MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            tmp[n++] = '\\';
            tmp[n++] = (char)c;
        } else if (c < 0x20 || c >= 0x7f) {
            memcpy(tmp + n, "\\u00", 4);
            tmp[n + 4] = hex[c >> 4];
            tmp[n + 5] = hex[c & 15];
            n += 6;
        } else {
            tmp[n++] = (char)c;
        }
    }
    tmp[n++] = '"';
    return buf_append(b, tmp, n);
}

static enum err put_entry(struct buf *b, const struct alog_entry *e)
{
    enum err r = buf_appendf(b, "{\"ts\": %.3f, \"method\": ", e->ts);
    if (!r)
        r = put_string(b, e->method);
    if (!r)
        r = buf_append_str(b, ", \"url\": ");
    if (!r)
        r = put_string(b, e->url);
    if (!r)
        r = buf_appendf(
            b, ", \"status\": %d, \"bytes\": %" PRIu64 ", \"ms\": %.3f, \"conn\": %" PRIu64,
            e->status, e->bytes, e->ms, e->conn);
    if (!r && e->fault)
        r = buf_appendf(b, ", \"fault\": \"%s\"", e->fault);
    if (!r)
        r = buf_append_str(b, "}\n");
    return r;
}

void alog_add(struct alog *l, const struct alog_entry *e)
{
    size_t mark = l->buf.len;
    if (put_entry(&l->buf, e) != ERR_OK) {
        /* The buffer is full: drop the partial line, write the rest out, try once more. */
        l->buf.len = mark;
        if (l->buf.data)
            l->buf.data[mark] = '\0';
        if (alog_flush(l) != ERR_OK || put_entry(&l->buf, e) != ERR_OK) {
            buf_reset(&l->buf);
            return;
        }
    }
    if (l->buf.len >= ALOG_FLUSH_AT)
        (void)!alog_flush(l);
}

enum err alog_flush(struct alog *l)
{
    size_t off = 0;
    enum err e = ERR_OK;
    while (off < l->buf.len) {
        ssize_t n = write(l->fd, l->buf.data + off, l->buf.len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = err_set(ERR_IO, "cannot write access log %s: %s", l->path,
                        n < 0 ? strerror(errno) : "short write");
            if (!l->failed)
                log_warn("%s", err_msg());
            l->failed = 1;
            break;
        }
        off += (size_t)n;
    }
    buf_reset(&l->buf); /* a failed write drops the lines rather than growing forever */
    return e;
}

void alog_close(struct alog *l)
{
    if (!l)
        return;
    (void)!alog_flush(l);
    close(l->fd);
    buf_release(&l->buf);
    free(l->path);
    free(l);
}
