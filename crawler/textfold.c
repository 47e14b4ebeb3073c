/* Visible text folded for the classifier: whitespace collapsed, separators owed, a byte cap. */
#include "crawler/textfold.h"

#include <string.h>

#include "common/ascii.h"
#include "crawler/charset.h"

void textfold_init(struct textfold *f, size_t max)
{
    buf_init(&f->b, max + 8); /* textfold_word keeps within max; the slack is never used */
    f->max = max;
    f->pending = 0;
    f->full = 0;
}

void textfold_break(struct textfold *f, char sep)
{
    if (f->b.len && (sep == '\n' || !f->pending))
        f->pending = sep;
}

/* Length of the whitespace character at p (ASCII space or U+00A0), or 0. */
static size_t textfold_space_at(const char *p, const char *end)
{
    if (ascii_is_ws((unsigned char)*p))
        return 1;
    if ((unsigned char)p[0] == 0xC2 && p + 1 < end && (unsigned char)p[1] == 0xA0)
        return 2;
    return 0;
}

static enum err textfold_word(struct textfold *f, const char *w, size_t n)
{
    size_t sep = f->pending && f->b.len ? 1 : 0;
    if (f->b.len + sep + n > f->max) {
        /* Keep what fits, cut on a UTF-8 character boundary. */
        f->full = 1;
        if (f->b.len + sep >= f->max)
            return ERR_OK;
        n = f->max - f->b.len - sep;
        while (n && ((unsigned char)w[n] & 0xC0) == 0x80)
            n--;
        if (n == 0)
            return ERR_OK;
    }
    enum err e = sep ? buf_append_char(&f->b, f->pending) : ERR_OK;
    if (!e)
        e = buf_append(&f->b, w, n);
    f->pending = 0;
    return e;
}

enum err textfold_add(struct textfold *f, const char *s)
{
    const char *p = s, *end = s + strlen(s);
    while (p < end && !f->full) {
        size_t k = textfold_space_at(p, end);
        if (k) {
            textfold_break(f, ' ');
            p += k;
            continue;
        }
        const char *w = p;
        int bad = 0;
        while (p < end && !textfold_space_at(p, end)) {
            size_t c = (unsigned char)*p < 0x80
                           ? 1
                           : charset_utf8_seq((const unsigned char *)p, (size_t)(end - p));
            bad |= c == 0;
            p += c ? c : 1;
        }
        enum err e;
        if (!bad) {
            e = textfold_word(f, w, (size_t)(p - w));
        } else {
            /*
             * gumbo's output is not always valid UTF-8: it turns an overflowing reference
             * such as "&#xdddddddddd;" into a stray byte (found by fuzzing). Rare: repair.
             */
            struct buf fixed;
            buf_init(&fixed, 0);
            e = charset_append_utf8(&fixed, w, (size_t)(p - w));
            if (!e)
                e = textfold_word(f, fixed.data, fixed.len);
            buf_release(&fixed);
        }
        if (e)
            return e;
    }
    return ERR_OK;
}

void textfold_reset(struct textfold *f)
{
    buf_reset(&f->b);
    f->pending = 0;
    f->full = 0;
}
