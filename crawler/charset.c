/* Charset of an HTML page and decoding it to UTF-8: the only user of iconv. */
#include "crawler/charset.h"

#include "common/ascii.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

/* ---- small byte helpers -------------------------------------------------------------- */

/* ---- labels -------------------------------------------------------------------------- */

/*
 * The WHATWG encodings a page may name, with their common labels. windows-1252 and
 * UTF-8 are decoded here (they are nearly all pages, and glibc's CP1252 rejects the
 * five bytes WHATWG maps to C1 controls); the rest go through iconv.
 */
struct encoding {
    const char *name;   /* WHATWG name, reported in charset_text.name */
    const char *iconv;  /* glibc name; NULL: decoded here */
    int ascii_compat;   /* ASCII bytes always mean ASCII, so an ASCII body needs no decoding */
    const char *labels; /* lowercase labels, each surrounded by spaces */
};

static const struct encoding encodings[] = {
#define ENC_UTF8 (&encodings[0])
    {"UTF-8", NULL, 1,
     " unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8 "},
#define ENC_1252 (&encodings[1])
    {"windows-1252", NULL, 1,
     " ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1"
     " iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252"
     " x-user-defined "},
#define ENC_UTF16LE (&encodings[2])
    {"UTF-16LE", "UTF-16LE", 0,
     " csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le "},
#define ENC_UTF16BE (&encodings[3])
    {"UTF-16BE", "UTF-16BE", 0, " unicodefffe utf-16be "},
    {"ISO-8859-2", "ISO-8859-2", 1,
     " csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2"
     " latin2 "},
    {"ISO-8859-3", "ISO-8859-3", 1,
     " csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 l3 latin3 "},
    {"ISO-8859-4", "ISO-8859-4", 1,
     " csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 l4 latin4 "},
    {"ISO-8859-5", "ISO-8859-5", 1,
     " csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5 "},
    {"ISO-8859-6", "ISO-8859-6", 1,
     " arabic asmo-708 csisolatinarabic ecma-114 iso-8859-6 iso-8859-6-e iso-8859-6-i"
     " iso-ir-127 iso8859-6 iso88596 iso_8859-6 "},
    {"ISO-8859-7", "ISO-8859-7", 1,
     " csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7"
     " iso88597 iso_8859-7 sun_eu_greek "},
    {"ISO-8859-8", "ISO-8859-8", 1,
     " csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-8859-8-i iso-ir-138 iso8859-8"
     " iso88598 iso_8859-8 logical visual "},
    {"ISO-8859-10", "ISO-8859-10", 1, " csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 l6 latin6 "},
    {"ISO-8859-13", "ISO-8859-13", 1, " iso-8859-13 iso8859-13 iso885913 "},
    {"ISO-8859-14", "ISO-8859-14", 1, " iso-8859-14 iso8859-14 iso885914 "},
    {"ISO-8859-15", "ISO-8859-15", 1,
     " csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9 "},
    {"ISO-8859-16", "ISO-8859-16", 1, " iso-8859-16 "},
    {"KOI8-R", "KOI8-R", 1, " cskoi8r koi koi8 koi8-r koi8_r "},
    {"KOI8-U", "KOI8-U", 1, " koi8-ru koi8-u "},
    {"IBM866", "IBM866", 1, " 866 cp866 csibm866 ibm866 "},
    {"macintosh", "MACINTOSH", 1, " csmacintosh mac macintosh x-mac-roman "},
    {"x-mac-cyrillic", "MAC-CYRILLIC", 1, " x-mac-cyrillic x-mac-ukrainian "},
    {"windows-874", "CP874", 1, " dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874 "},
    {"windows-1250", "CP1250", 1, " cp1250 windows-1250 x-cp1250 "},
    {"windows-1251", "CP1251", 1, " cp1251 windows-1251 x-cp1251 "},
    {"windows-1253", "CP1253", 1, " cp1253 windows-1253 x-cp1253 "},
    {"windows-1254", "CP1254", 1,
     " cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 l5 latin5"
     " windows-1254 x-cp1254 "},
    {"windows-1255", "CP1255", 1, " cp1255 windows-1255 x-cp1255 "},
    {"windows-1256", "CP1256", 1, " cp1256 windows-1256 x-cp1256 "},
    {"windows-1257", "CP1257", 1, " cp1257 windows-1257 x-cp1257 "},
    {"windows-1258", "CP1258", 1, " cp1258 windows-1258 x-cp1258 "},
    {"GBK", "GB18030", 1,
     " chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk "},
    {"gb18030", "GB18030", 1, " gb18030 "},
    {"Big5", "BIG5-HKSCS", 1, " big5 big5-hkscs cn-big5 csbig5 x-x-big5 "},
    {"EUC-JP", "EUC-JP", 1, " cseucpkdfmtjapanese euc-jp x-euc-jp "},
    {"ISO-2022-JP", "ISO-2022-JP", 0, " csiso2022jp iso-2022-jp "},
    {"Shift_JIS", "CP932", 1,
     " csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis "},
    {"EUC-KR", "CP949", 1,
     " cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601"
     " ksc_5601 windows-949 "},
};

#define LABEL_MAX 40

/* What the body is decoded with: a known encoding, or a label only iconv knows. */
struct charset {
    const struct encoding *enc; /* NULL: use `label` with iconv */
    char label[LABEL_MAX + 1];  /* iconv name when enc is NULL */
    unsigned source;            /* enum charset_source */
};

/* Can iconv convert from this label to UTF-8? */
static int iconv_knows(const char *label)
{
    iconv_t cd = iconv_open("UTF-8", label);
    if (cd == (iconv_t)-1)
        return 0;
    iconv_close(cd);
    return 1;
}

/*
 * Resolve a declared label (raw bytes, not NUL-terminated) into cs. Returns 0 when the
 * label is unusable, so that the caller goes on to the next source.
 */
static int charset_resolve(const char *s, size_t n, unsigned source, struct charset *cs)
{
    while (n && ascii_is_ws((unsigned char)*s))
        s++, n--;
    while (n && ascii_is_ws((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n > LABEL_MAX)
        return 0;
    char key[LABEL_MAX + 3];
    key[0] = ' ';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = ascii_lower((unsigned char)s[i]);
        /* Only label characters: the label goes to iconv_open and into error messages. */
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c && strchr("-_.:+()", c))))
            return 0;
        key[i + 1] = (char)c;
    }
    key[n + 1] = ' ';
    key[n + 2] = '\0';
    cs->source = source;
    for (size_t i = 0; i < sizeof encodings / sizeof encodings[0]; i++) {
        if (strstr(encodings[i].labels, key)) {
            cs->enc = &encodings[i];
            /* A page that parsed as ASCII to find its <meta> cannot be UTF-16 (WHATWG). */
            if (source == CHARSET_META && (cs->enc == ENC_UTF16LE || cs->enc == ENC_UTF16BE))
                cs->enc = ENC_UTF8;
            return 1;
        }
    }
    memcpy(cs->label, key + 1, n);
    cs->label[n] = '\0';
    cs->enc = NULL;
    return iconv_knows(cs->label);
}

/*
 * Find `charset=value` in a Content-Type header or a meta content attribute, as the
 * WHATWG "extract a character encoding from a meta element" steps do. Returns the
 * value's start and sets *vlen, or returns NULL.
 */
static const char *charset_param(const char *s, size_t n, size_t *vlen)
{
    size_t i = 0;
    while (i + 7 <= n) {
        if (!ascii_starts_with_ci(s + i, n - i, "charset")) {
            i++;
            continue;
        }
        i += 7;
        while (i < n && ascii_is_ws((unsigned char)s[i]))
            i++;
        if (i >= n || s[i] != '=')
            continue;
        i++;
        while (i < n && ascii_is_ws((unsigned char)s[i]))
            i++;
        if (i >= n)
            return NULL;
        size_t start, end;
        if (s[i] == '"' || s[i] == '\'') {
            const char *q = memchr(s + i + 1, s[i], n - i - 1);
            if (!q)
                return NULL;
            start = i + 1;
            end = (size_t)(q - s);
        } else {
            start = end = i;
            while (end < n && !ascii_is_ws((unsigned char)s[end]) && s[end] != ';')
                end++;
        }
        *vlen = end - start;
        return s + start;
    }
    return NULL;
}

#define PRESCAN_BYTES 1024

/*
 * One attribute of a tag in the prescan: name and value as ranges of the input.
 * Returns the position after it, or `end`; *name_len is 0 at the end of the tag.
 */
static const char *prescan_attr(const char *p, const char *end, const char **name, size_t *name_len,
                                const char **val, size_t *val_len)
{
    *name_len = *val_len = 0;
    while (p < end && (ascii_is_ws((unsigned char)*p) || *p == '/'))
        p++;
    if (p >= end || *p == '>')
        return p;
    *name = p;
    while (p < end && !ascii_is_ws((unsigned char)*p) && *p != '=' && *p != '>' && *p != '/')
        p++;
    *name_len = (size_t)(p - *name);
    while (p < end && ascii_is_ws((unsigned char)*p))
        p++;
    if (p >= end || *p != '=')
        return p;
    p++;
    while (p < end && ascii_is_ws((unsigned char)*p))
        p++;
    if (p < end && (*p == '"' || *p == '\'')) {
        char q = *p++;
        *val = p;
        while (p < end && *p != q)
            p++;
        *val_len = (size_t)(p - *val);
        return p < end ? p + 1 : p;
    }
    *val = p;
    while (p < end && !ascii_is_ws((unsigned char)*p) && *p != '>')
        p++;
    *val_len = (size_t)(p - *val);
    return p;
}

/*
 * The browsers' prescan: look for <meta charset> or <meta http-equiv=content-type
 * content="...charset=..."> in the first bytes, skipping comments and other tags,
 * without building a tree.
 */
static int charset_prescan(const char *s, size_t n, struct charset *cs)
{
    const char *p = s, *end = s + (n < PRESCAN_BYTES ? n : PRESCAN_BYTES);
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt)
            return 0;
        p = lt + 1;
        size_t left = (size_t)(end - p);
        if (ascii_starts_with_ci(p, left, "!--")) {
            /* To the first "-->"; its dashes may be those of "<!--" (so "<!-->" ends it). */
            const char *close = p + 1;
            while (close + 2 < end && !(close[0] == '-' && close[1] == '-' && close[2] == '>'))
                close++;
            p = close + 2 < end ? close + 3 : end;
            continue;
        }
        int is_meta = ascii_starts_with_ci(p, left, "meta") && left > 4 &&
                      (ascii_is_ws((unsigned char)p[4]) || p[4] == '/');
        int is_tag = left && (((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') || *p == '/');
        if (!is_meta && !is_tag) {
            if (left && (*p == '!' || *p == '?')) {
                const char *gt = memchr(p, '>', left);
                p = gt ? gt + 1 : end;
            }
            continue;
        }
        /* Skip the tag name, then read attributes up to '>'. */
        while (p < end && !ascii_is_ws((unsigned char)*p) && *p != '>')
            p++;
        const char *cv = NULL, *ct = NULL;
        size_t cvn = 0, ctn = 0;
        int pragma = 0;
        for (;;) {
            const char *name = NULL, *val = NULL;
            size_t nn, vn;
            p = prescan_attr(p, end, &name, &nn, &val, &vn);
            if (nn == 0)
                break;
            if (!is_meta)
                continue;
            if (nn == 7 && ascii_starts_with_ci(name, nn, "charset") && !cv)
                cv = val, cvn = vn;
            else if (nn == 10 && ascii_starts_with_ci(name, nn, "http-equiv"))
                pragma = vn == 12 && ascii_starts_with_ci(val, vn, "content-type");
            else if (nn == 7 && ascii_starts_with_ci(name, nn, "content") && !ct)
                ct = val, ctn = vn;
        }
        if (cv && charset_resolve(cv, cvn, CHARSET_META, cs))
            return 1;
        if (pragma && ct) {
            size_t ln;
            const char *l = charset_param(ct, ctn, &ln);
            if (l && charset_resolve(l, ln, CHARSET_META, cs))
                return 1;
        }
        if (p < end && *p == '>')
            p++;
    }
    return 0;
}

/* BOM, then the header, then the prescan, then windows-1252. Sets *bom to the BOM length. */
static void charset_choose(const char *body, size_t len, const char *content_type,
                           struct charset *cs, size_t *bom)
{
    const unsigned char *u = (const unsigned char *)body;
    *bom = 0;
    cs->source = CHARSET_BOM;
    if (len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        cs->enc = ENC_UTF8;
        *bom = 3;
        return;
    }
    if (len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) {
        cs->enc = u[0] == 0xFF ? ENC_UTF16LE : ENC_UTF16BE;
        *bom = 2;
        return;
    }
    if (content_type) {
        size_t ln;
        const char *l = charset_param(content_type, strlen(content_type), &ln);
        if (l && charset_resolve(l, ln, CHARSET_HEADER, cs))
            return;
    }
    if (charset_prescan(body, len, cs))
        return;
    cs->enc = ENC_1252;
    cs->source = CHARSET_DEFAULT;
}

/* ---- decoding to UTF-8 --------------------------------------------------------------- */

static const char REPLACEMENT[3] = {'\xEF', '\xBF', '\xBD'}; /* U+FFFD */

/* windows-1252 bytes 0x80..0x9F; the rest of the upper half is Latin-1. */
static const uint16_t cp1252_c1[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

/* The body as UTF-8: the input itself when it already is, else a new buffer. */
struct decoded {
    const char *data;
    size_t len;
    char *owned; /* free()d by the caller; NULL when data is borrowed */
};

static int all_ascii(const char *s, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080ull)
            return 0;
    }
    for (; i < n; i++)
        if ((unsigned char)s[i] & 0x80)
            return 0;
    return 1;
}

size_t charset_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        /* No overlongs (E0 needs A0..BF) and no surrogates (ED needs 80..9F). */
        unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return n >= 3 && s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return n >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80
                   ? 4
                   : 0;
    }
    return 0;
}

size_t charset_utf8_invalid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t bad = 0;
    for (size_t i = 0; i < n;) {
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = charset_utf8_seq(u + i, n - i);
        if (k == 0)
            bad++, k = 1;
        i += k;
    }
    return bad;
}

static enum err decode_utf8(const char *in, size_t len, struct decoded *d)
{
    size_t bad = all_ascii(in, len) ? 0 : charset_utf8_invalid(in, len);
    if (bad == 0) {
        d->data = in;
        d->len = len;
        return ERR_OK;
    }
    char *o = malloc(len + 2 * bad + 1);
    if (!o)
        return err_set(ERR_NOMEM, "out of memory repairing UTF-8");
    size_t w = 0;
    const unsigned char *u = (const unsigned char *)in;
    for (size_t i = 0; i < len;) {
        size_t k = u[i] < 0x80 ? 1 : charset_utf8_seq(u + i, len - i);
        if (k == 0) {
            memcpy(o + w, REPLACEMENT, 3);
            w += 3;
            i++;
        } else {
            memcpy(o + w, in + i, k);
            w += k;
            i += k;
        }
    }
    d->data = d->owned = o;
    d->len = w;
    return ERR_OK;
}

/* Also used on the HTML parser's output, which is not always valid (see html.c). */
enum err charset_append_utf8(struct buf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, run = 0;
    enum err e = ERR_OK;
    while (i < n && !e) {
        size_t k = u[i] < 0x80 ? 1 : charset_utf8_seq(u + i, n - i);
        if (k) {
            i += k;
            continue;
        }
        e = buf_append(b, s + run, i - run);
        if (!e)
            e = buf_append(b, REPLACEMENT, sizeof REPLACEMENT);
        run = ++i;
    }
    return e ? e : buf_append(b, s + run, n - run);
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    o[0] = (char)(0xE0 | cp >> 12);
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
}

static enum err decode_1252(const char *in, size_t len, struct decoded *d)
{
    if (all_ascii(in, len)) {
        d->data = in;
        d->len = len;
        return ERR_OK;
    }
    char *o = malloc(3 * len + 1); /* every byte takes at most 3 bytes of UTF-8 */
    if (!o)
        return err_set(ERR_NOMEM, "out of memory decoding windows-1252");
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c < 0x80)
            o[w++] = (char)c;
        else
            w += put_utf8(o + w, c < 0xA0 ? cp1252_c1[c - 0x80] : c);
    }
    d->data = d->owned = o;
    d->len = w;
    return ERR_OK;
}

/*
 * Decode with iconv. A byte iconv rejects (EILSEQ) or a sequence cut off by the end
 * (EINVAL) becomes U+FFFD and decoding goes on one byte later: a stray byte must not
 * cost the page. Returns ERR_NOTFOUND if iconv cannot open the converter after all.
 */
static enum err decode_iconv(const char *in, size_t len, const char *from, struct decoded *d)
{
    iconv_t cd = iconv_open("UTF-8", from);
    if (cd == (iconv_t)-1)
        return ERR_NOTFOUND;
    enum err e = ERR_OK;
    size_t cap = 2 * len + 64, w = 0;
    char *o = malloc(cap);
    char *ip = (char *)in; /* iconv's prototype wants char **; it does not write */
    size_t il = len;
    int flushing = 0;
    for (;;) {
        if (!o) {
            e = err_set(ERR_NOMEM, "out of memory decoding %s", from);
            goto out;
        }
        char *op = o + w;
        size_t ol = cap - w - 1; /* room for the final NUL */
        /* Once the input is done, one more call ends a stateful encoding (ISO-2022-JP). */
        size_t r = flushing ? iconv(cd, NULL, NULL, &op, &ol) : iconv(cd, &ip, &il, &op, &ol);
        int why = errno;
        w = (size_t)(op - o);
        if (r != (size_t)-1) {
            if (flushing)
                break;
            flushing = 1;
            continue;
        }
        if (why == E2BIG || cap - w - 1 < sizeof REPLACEMENT) {
            /* Twice the room; output is at most 4 bytes per input byte: this ends. */
            if (grow_array((void **)&o, &cap, cap + 1, 1) != ERR_OK) {
                free(o);
                o = NULL; /* said at the top of the loop */
            }
            continue;
        }
        if (flushing)
            break; /* nothing more to get */
        memcpy(o + w, REPLACEMENT, sizeof REPLACEMENT);
        w += sizeof REPLACEMENT;
        ip++, il--;
        iconv(cd, NULL, NULL, NULL, NULL); /* back to the initial shift state */
    }
    o[w] = '\0';
    d->data = d->owned = o;
    d->len = w;
out:
    iconv_close(cd);
    return e;
}

/* Decode into UTF-8; an encoding iconv cannot open falls back to windows-1252. */
static enum err decode(const char *in, size_t len, struct charset *cs, struct decoded *d)
{
    d->owned = NULL;
    if (cs->enc == ENC_UTF8)
        return decode_utf8(in, len, d);
    if (cs->enc == ENC_1252)
        return decode_1252(in, len, d);
    if (cs->enc && cs->enc->ascii_compat && all_ascii(in, len)) {
        d->data = in;
        d->len = len;
        return ERR_OK;
    }
    enum err e = decode_iconv(in, len, cs->enc ? cs->enc->iconv : cs->label, d);
    if (e != ERR_NOTFOUND)
        return e;
    cs->enc = ENC_1252;
    cs->source = CHARSET_DEFAULT;
    return decode_1252(in, len, d);
}

/* ---- entry points -------------------------------------------------------------------- */

enum err charset_decode_html(const char *body, size_t len, size_t max, const char *content_type,
                             struct charset_text *out)
{
    struct charset cs;
    size_t bom;
    memset(out, 0, sizeof *out);
    if (max && len > max) {
        len = max;
        out->cut = 1;
    }
    charset_choose(body, len, content_type, &cs, &bom);
    if (cs.enc == ENC_UTF8 && out->cut)
        for (int i = 0; i < 3 && len > bom && ((unsigned char)body[len] & 0xC0) == 0x80; i++)
            len--; /* body[len] exists: the body was longer than max */
    struct decoded d = {0};
    enum err e = decode(body + bom, len - bom, &cs, &d);
    if (e)
        return e;
    out->data = d.data;
    out->len = d.len;
    out->owned = d.owned;
    snprintf(out->name, sizeof out->name, "%s", cs.enc ? cs.enc->name : cs.label);
    out->source = cs.source;
    return ERR_OK;
}

void charset_text_release(struct charset_text *t)
{
    if (!t)
        return;
    free(t->owned);
    t->owned = NULL;
    t->data = NULL;
    t->len = 0;
}
