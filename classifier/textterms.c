/* One short text's distinct terms with their counts, capped. */
#include "classifier/textterms.h"

#include <stdbool.h>

void textterms_init(struct textterms *t, uint32_t max)
{
    vocab_init(&t->terms);
    t->max = max < TEXTTERMS_MAX ? max : TEXTTERMS_MAX;
}

void textterms_release(struct textterms *t)
{
    vocab_release(&t->terms);
}

static enum err see_token(void *ctx, const char *tok, size_t len)
{
    struct textterms *t = ctx;
    uint32_t id;
    bool added;
    if (t->terms.n >= t->max && !vocab_find(&t->terms, tok, len, &id))
        return ERR_OK; /* past the cap: new terms are left out */
    enum err e = vocab_add(&t->terms, tok, len, &id, &added);
    if (e == ERR_INVAL)
        return ERR_OK; /* too long for a vocabulary (the tokenizer's are not) */
    if (e)
        return e;
    t->count[id] = added ? 1 : t->count[id] + 1;
    return ERR_OK;
}

enum err textterms_read(struct textterms *t, struct tokenizer *tok, const char *text, size_t len)
{
    vocab_release(&t->terms);
    vocab_init(&t->terms);
    return tokenize_text(tok, text, len, see_token, t);
}
