/* PostgreSQL array literals for unnest() (see sqlarray.h). */
#include "store/sqlarray.h"

#include <math.h>

enum err sqlarray_text(struct buf *b, const char *s)
{
    if (!s)
        return buf_append_str(b, b->len > 1 ? ",NULL" : "NULL");
    enum err e = buf_append_str(b, b->len > 1 ? ",\"" : "\"");
    for (; !e && *s; s++) {
        if (*s == '"' || *s == '\\')
            e = buf_append_char(b, '\\');
        if (!e)
            e = buf_append_char(b, *s);
    }
    return e ? e : buf_append_char(b, '"');
}

enum err sqlarray_double(struct buf *b, double v)
{
    if (isnan(v))
        return buf_append_str(b, b->len > 1 ? ",NULL" : "NULL");
    return buf_appendf(b, "%s%.17g", b->len > 1 ? "," : "", v);
}

enum err sqlarray_long(struct buf *b, long long v)
{
    return buf_appendf(b, "%s%lld", b->len > 1 ? "," : "", v);
}

enum err sqlarray_init(struct buf *arr, int n)
{
    enum err e = ERR_OK;
    for (int i = 0; i < n; i++) {
        buf_init(&arr[i], 0);
        if (!e)
            e = buf_append_char(&arr[i], '{');
    }
    return e;
}

enum err sqlarray_close(struct buf *arr, int n)
{
    enum err e = ERR_OK;
    for (int i = 0; !e && i < n; i++)
        e = buf_append_char(&arr[i], '}');
    return e;
}

void sqlarray_release(struct buf *arr, int n)
{
    for (int i = 0; i < n; i++)
        buf_release(&arr[i]);
}
