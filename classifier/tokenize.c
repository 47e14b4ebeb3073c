/* UTF-8 tokeniser with accent folding, apostrophe joining, stop words and Snowball stemming. */
#include "classifier/tokenize.h"

#include <libstemmer.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tokenizer {
    struct tokenize_opts opts;
    struct sb_stemmer *stemmer; /* NULL when stemming is off */
};

/* Snowball's English stop list with apostrophes joined as the tokeniser joins them,
 * plus a few modal/adverb fillers. Joined forms that are real content words
 * ("she'll" -> "shell", "we'd" -> "wed", "i'll" -> "ill") are deliberately left out.
 * Sorted for bsearch. */
/* clang-format off */
static const char *const stopwords[] = {
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "arent", "as", "at", "be", "because", "been", "before", "being", "below", "between",
    "both", "but", "by", "can", "cannot", "cant", "could", "couldnt", "did", "didnt", "do",
    "does", "doesnt", "doing", "dont", "down", "during", "each", "few", "for", "from", "further",
    "had", "hadnt", "has", "hasnt", "have", "havent", "having", "he", "hed", "her", "here",
    "heres", "hers", "herself", "hes", "him", "himself", "his", "how", "hows", "i", "if", "im",
    "in", "into", "is", "isnt", "it", "its", "itself", "ive", "just", "lets", "may", "me",
    "might", "more", "most", "must", "mustnt", "my", "myself", "no", "nor", "not", "now", "of",
    "off", "on", "once", "only", "or", "other", "ought", "our", "ours", "ourselves", "out",
    "over", "own", "same", "shall", "shant", "she", "shes", "should", "shouldnt", "so", "some",
    "such", "than", "that", "thats", "the", "their", "theirs", "them", "themselves", "then",
    "there", "theres", "these", "they", "theyd", "theyll", "theyre", "theyve", "this", "those",
    "through", "to", "too", "under", "until", "up", "very", "was", "wasnt", "we", "were",
    "werent", "weve", "what", "whats", "when", "whens", "where", "wheres", "which", "while",
    "who", "whom", "whos", "why", "whys", "will", "with", "wont", "would", "wouldnt", "you",
    "youd", "youll", "your", "youre", "yours", "yourself", "yourselves", "youve",
};
/* clang-format on */

#define NSTOP        (sizeof stopwords / sizeof stopwords[0])
#define STOP_MAX_LEN 10 /* "yourselves" */

void tokenize_opts_default(struct tokenize_opts *o)
{
    o->stem = true;
    o->keep_numbers = false;
}

enum err tokenize_new(const struct tokenize_opts *o, struct tokenizer **out)
{
    *out = NULL;
    struct tokenizer *t = calloc(1, sizeof *t);
    if (!t)
        return err_set(ERR_NOMEM, "out of memory creating a tokenizer");
    t->opts = *o;
    if (o->stem) {
        t->stemmer = sb_stemmer_new("english", "UTF_8");
        if (!t->stemmer) {
            free(t);
            return err_set(ERR_NOMEM, "cannot create the Snowball English stemmer");
        }
    }
    *out = t;
    return ERR_OK;
}

void tokenize_free(struct tokenizer *t)
{
    if (!t)
        return;
    sb_stemmer_delete(t->stemmer);
    free(t);
}

static int stop_cmp(const void *key, const void *elem)
{
    return strcmp(key, *(const char *const *)elem);
}

bool tokenize_is_stopword(const char *word, size_t len)
{
    if (len == 0 || len > STOP_MAX_LEN)
        return false;
    char w[STOP_MAX_LEN + 1];
    memcpy(w, word, len);
    w[len] = '\0';
    return bsearch(w, stopwords, NSTOP, sizeof stopwords[0], stop_cmp) != NULL;
}

/* What a code point does to the word being built. */
enum cp_kind { CP_SEP, CP_WORD, CP_APOS, CP_SKIP };

/* ASCII base letters of U+00C0..U+00FF; '*' = two letters (see fold), ' ' = not a letter. */
static const char latin1_fold[] =
    "aaaaaa*ceeeeiiiidnooooo ouuuuy**aaaaaa*ceeeeiiiidnooooo ouuuuy*y";
/* ASCII base letters of U+0100..U+017F; '*' = two letters. */
static const char latin_ext_a_fold[] = "aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiii**jjkkk"
                                       "llllllllllnnnnnnnnnoooooo**rrrrrrsssssssstttttt"
                                       "uuuuuuuuuuuuwwyyyzzzzzzs";

static size_t put_utf8(uint32_t cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Two-letter folds of the '*' entries. */
static const char *fold_pair(uint32_t cp)
{
    switch (cp) {
    case 0xC6:
    case 0xE6:
        return "ae";
    case 0xDE:
    case 0xFE:
        return "th";
    case 0xDF:
        return "ss";
    case 0x132:
    case 0x133:
        return "ij";
    default: /* 0x152, 0x153 */
        return "oe";
    }
}

/*
 * Classify a non-ASCII code point; for CP_WORD write its folded, lower-cased
 * UTF-8 form (1..4 bytes) to o and its length to *n.
 */
static enum cp_kind classify_cp(uint32_t cp, char *o, size_t *n)
{
    char c;
    if (cp == 0xAD)
        return CP_SKIP; /* soft hyphen */
    if (cp < 0xC0)
        return CP_SEP;
    if (cp < 0x180) { /* Latin-1 letters and Latin Extended-A */
        c = cp < 0x100 ? latin1_fold[cp - 0xC0] : latin_ext_a_fold[cp - 0x100];
        if (c == ' ')
            return CP_SEP;
        if (c == '*') {
            memcpy(o, fold_pair(cp), 2);
            *n = 2;
        } else {
            o[0] = c;
            *n = 1;
        }
        return CP_WORD;
    }
    if (cp == 0x2BC || cp == 0x2019)
        return CP_APOS;
    if ((cp >= 0x300 && cp < 0x370) || cp == 0x200C || cp == 0x200D ||
        (cp >= 0xFE00 && cp < 0xFE10) || (cp >= 0xE0000 && cp < 0xE0080))
        return CP_SKIP; /* combining marks, joiners, variation selectors, tags */
    if (cp >= 0x2B0 && cp < 0x300)
        return CP_SEP; /* spacing modifier letters: mostly quote-like marks */
    if (cp == 0x37E || cp == 0x387)
        return CP_SEP; /* Greek question mark and ano teleia */
    if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2)
        cp += 0x20; /* Greek capitals */
    else if (cp >= 0x410 && cp <= 0x42F)
        cp += 0x20; /* Cyrillic capitals */
    else if (cp >= 0x400 && cp <= 0x40F)
        cp += 0x50;
    else if (cp >= 0xFF10 && cp <= 0xFF19)
        cp = '0' + (cp - 0xFF10); /* fullwidth digits and letters */
    else if (cp >= 0xFF21 && cp <= 0xFF3A)
        cp = 'a' + (cp - 0xFF21);
    else if (cp >= 0xFF41 && cp <= 0xFF5A)
        cp = 'a' + (cp - 0xFF41);
    else if ((cp >= 0x2000 && cp < 0x2C00) || (cp >= 0x2E00 && cp < 0x2E80) ||
             (cp >= 0x3000 && cp < 0x3040) || (cp >= 0xD800 && cp < 0xF900) ||
             (cp >= 0xFE10 && cp < 0xFF66) || (cp >= 0xFFDD && cp < 0x10000) ||
             (cp >= 0x1F000 && cp < 0x20000))
        return CP_SEP; /* punctuation, symbols, private use, emoji */
    *n = put_utf8(cp, o);
    return CP_WORD;
}

/* Decode one UTF-8 sequence at s (n > 0 bytes left); returns the code point, or
 * UINT32_MAX for an invalid byte (then *adv = 1, so decoding resynchronises). */
static uint32_t utf8_next(const unsigned char *s, size_t n, size_t *adv)
{
    unsigned char b = s[0];
    uint32_t cp, min;
    size_t len;
    *adv = 1;
    if (b < 0xC2 || b > 0xF4)
        return UINT32_MAX; /* continuation byte, overlong lead, or out of range */
    if (b < 0xE0) {
        len = 2, cp = b & 0x1F, min = 0x80;
    } else if (b < 0xF0) {
        len = 3, cp = b & 0x0F, min = 0x800;
    } else {
        len = 4, cp = b & 0x07, min = 0x10000;
    }
    if (n < len)
        return UINT32_MAX;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return UINT32_MAX;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
        return UINT32_MAX;
    *adv = len;
    return cp;
}

/* The word being built. */
struct word {
    char buf[TOKENIZE_MAX_BYTES + 4];
    size_t len;       /* bytes in buf */
    size_t chars;     /* characters, including any dropped past the byte cap */
    bool too_long;    /* exceeded TOKENIZE_MAX_BYTES: the word is dropped */
    bool apos;        /* an apostrophe follows the last character */
    size_t after_apo; /* buf offset just after the last joining apostrophe, or SIZE_MAX */
};

static void word_reset(struct word *w)
{
    w->len = w->chars = 0;
    w->too_long = w->apos = false;
    w->after_apo = SIZE_MAX;
}

static void word_add(struct word *w, const char *bytes, size_t n)
{
    if (w->apos) {
        w->apos = false;
        w->after_apo = w->len;
    }
    w->chars++;
    if (w->len + n > TOKENIZE_MAX_BYTES) {
        w->too_long = true;
        return;
    }
    memcpy(w->buf + w->len, bytes, n);
    w->len += n;
}

/* Finish the current word: apply the length, number, stop-word and stem rules, emit. */
static enum err word_end(struct tokenizer *t, struct word *w, tokenize_fn fn, void *ctx)
{
    enum err e = ERR_OK;
    if (w->chars == 0)
        goto out;
    if (w->after_apo != SIZE_MAX && w->len - w->after_apo == 1 && w->buf[w->after_apo] == 's') {
        w->len--; /* "john's" -> "john": drop the possessive/contraction clitic */
        w->chars--;
    }
    if (w->too_long || w->chars < TOKENIZE_MIN_CHARS)
        goto out;
    if (!t->opts.keep_numbers) {
        size_t i = 0;
        while (i < w->len && w->buf[i] >= '0' && w->buf[i] <= '9')
            i++;
        if (i == w->len)
            goto out;
    }
    if (tokenize_is_stopword(w->buf, w->len))
        goto out;
    if (t->stemmer) {
        const sb_symbol *s = sb_stemmer_stem(t->stemmer, (const sb_symbol *)w->buf, (int)w->len);
        if (!s) {
            e = err_set(ERR_NOMEM, "out of memory while stemming");
            goto out;
        }
        int n = sb_stemmer_length(t->stemmer);
        if (n > 0)
            e = fn(ctx, (const char *)s, (size_t)n);
        goto out;
    }
    e = fn(ctx, w->buf, w->len);
out:
    word_reset(w);
    return e;
}

enum err tokenize_text(struct tokenizer *t, const char *text, size_t len, tokenize_fn fn, void *ctx)
{
    const unsigned char *s = (const unsigned char *)text;
    struct word w;
    word_reset(&w);
    size_t i = 0;
    enum err e;
    while (i < len) {
        unsigned char b = s[i];
        char folded[4];
        size_t n = 1, adv = 1;
        enum cp_kind kind;
        if (b < 0x80) {
            if (b >= 'A' && b <= 'Z') {
                folded[0] = (char)(b + ('a' - 'A'));
                kind = CP_WORD;
            } else if ((b >= 'a' && b <= 'z') || (b >= '0' && b <= '9')) {
                folded[0] = (char)b;
                kind = CP_WORD;
            } else {
                kind = b == '\'' ? CP_APOS : CP_SEP;
            }
        } else {
            uint32_t cp = utf8_next(s + i, len - i, &adv);
            kind = cp == UINT32_MAX ? CP_SEP : classify_cp(cp, folded, &n);
        }
        i += adv;
        switch (kind) {
        case CP_WORD:
            word_add(&w, folded, n);
            break;
        case CP_APOS:
            /* Joins only between word characters: "don't", not "'quoted'" or "a''b". */
            if (w.chars > 0 && !w.apos) {
                w.apos = true;
                break;
            }
            /* fall through */
        case CP_SEP:
            if ((e = word_end(t, &w, fn, ctx)) != ERR_OK)
                return e;
            break;
        case CP_SKIP:
            break;
        }
    }
    return word_end(t, &w, fn, ctx);
}
