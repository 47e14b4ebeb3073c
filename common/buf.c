/* Growable byte buffer with a hard cap. */
#include "common/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max ? max : BUF_DEFAULT_MAX;
}

void buf_release(struct buf *b)
{
    if (!b)
        return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

/* Make room for `extra` more bytes plus the terminating NUL. */
static enum err buf_grow(struct buf *b, size_t extra)
{
    if (extra > b->max || b->len > b->max - extra)
        return err_set(ERR_TOOBIG, "buffer limit of %zu bytes exceeded", b->max);
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return ERR_OK;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap * 2;
    char *p = realloc(b->data, cap);
    if (!p)
        return err_set(ERR_NOMEM, "out of memory growing a buffer to %zu bytes", cap);
    b->data = p;
    b->cap = cap;
    return ERR_OK;
}

enum err buf_append(struct buf *b, const void *data, size_t len)
{
    enum err e = buf_grow(b, len);
    if (e)
        return e;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return ERR_OK;
}

enum err buf_append_str(struct buf *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

enum err buf_append_char(struct buf *b, char c)
{
    return buf_append(b, &c, 1);
}

enum err buf_appendf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return err_set(ERR_INVAL, "bad format string");
    enum err e = buf_grow(b, (size_t)n);
    if (e)
        return e;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return ERR_OK;
}

const char *buf_str(const struct buf *b)
{
    return b->data ? b->data : "";
}

char *buf_detach(struct buf *b)
{
    char *p = b->data ? b->data : strdup("");
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}
