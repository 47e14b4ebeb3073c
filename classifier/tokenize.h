/* UTF-8 text -> lower-cased word tokens: accents folded, stop words dropped, optional stems. */
#ifndef SITESCOUT_CLASSIFIER_TOKENIZE_H
#define SITESCOUT_CLASSIFIER_TOKENIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/*
 * What a token is (the rules are fixed; only the options below vary):
 *  - a maximal run of word characters: ASCII letters and digits, Latin-1 and
 *    Latin Extended-A letters folded to their ASCII base ("é" -> "e", "ß" -> "ss",
 *    "Œ" -> "oe"), Greek and Cyrillic letters (lower-cased), and letters of other
 *    scripts kept as they are (no segmentation of scripts without spaces);
 *  - combining accents (U+0300..U+036F) and the soft hyphen are skipped inside a word;
 *  - an apostrophe (' U+2019 U+02BC) between two word characters joins them
 *    ("don't" -> "dont", "o'neill" -> "oneill"), except that a final "'s" clitic is
 *    dropped ("john's" -> "john"); other apostrophes and everything else separate;
 *  - invalid UTF-8 bytes separate words (never a crash, never a partial sequence);
 *  - tokens shorter than TOKENIZE_MIN_CHARS characters or longer than
 *    TOKENIZE_MAX_BYTES bytes are dropped (long ones are URLs, hashes, junk);
 *  - English stop words (tokenize_is_stopword) are dropped, before stemming.
 */
#define TOKENIZE_MIN_CHARS 2
#define TOKENIZE_MAX_BYTES 48

struct tokenize_opts {
    bool stem; /* Snowball (Porter 2) English stemmer on each kept token */
    bool
        keep_numbers; /* keep tokens made of digits only ("1997"); mixed ones ("mp3") always stay */
};

/* Defaults: stem on, numbers dropped (chosen by measurement, see docs/classifier.md). */
void tokenize_opts_default(struct tokenize_opts *o);

/*
 * A tokenizer owns a stemmer, which is not thread-safe: use one tokenizer per
 * thread. Free with tokenize_free (NULL is fine).
 */
struct tokenizer;

enum err tokenize_new(const struct tokenize_opts *o, struct tokenizer **out) WARN_UNUSED;
void tokenize_free(struct tokenizer *t);

/*
 * Called once per token, in text order. `tok` is borrowed (valid during the call,
 * not NUL-terminated, at most TOKENIZE_MAX_BYTES bytes). Returning anything but
 * ERR_OK stops the walk; tokenize_text then returns that code.
 */
typedef enum err (*tokenize_fn)(void *ctx, const char *tok, size_t len);

/* Split `len` bytes of UTF-8 text into tokens. Fails only when fn fails or memory runs out. */
enum err tokenize_text(struct tokenizer *t, const char *text, size_t len, tokenize_fn fn,
                       void *ctx) WARN_UNUSED;

/* True when the (already lower-cased, apostrophe-joined) word is an English stop word. */
bool tokenize_is_stopword(const char *word, size_t len);

#endif
