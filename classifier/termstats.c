/* Per-term counts over the training pages: document frequencies, relative TF, websites. */
#include "classifier/termstats.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "common/grow.h"

void termstats_init(struct termstats *ts)
{
    memset(ts, 0, sizeof *ts);
    vocab_init(&ts->terms);
}

void termstats_release(struct termstats *ts)
{
    if (!ts)
        return;
    vocab_release(&ts->terms);
    free(ts->st);
    free(ts->touched);
    termstats_init(ts);
}

static enum err count_token(void *ctx, const char *tok, size_t len)
{
    struct termstats *t = ctx;
    uint32_t id;
    bool added;
    enum err e = vocab_add(&t->terms, tok, len, &id, &added);
    if (e == ERR_INVAL)
        return ERR_OK; /* too long for the vocabulary: no term of ours */
    if (e)
        return e;
    if (added) {
        if ((e = grow_array((void **)&t->st, &t->cap, id + 1, sizeof *t->st)))
            return e;
        memset(&t->st[id], 0, sizeof t->st[id]);
    }
    if (t->st[id].count++ == 0) {
        if ((e = grow_array((void **)&t->touched, &t->cap_touched, t->n_touched + 1,
                            sizeof *t->touched)))
            return e;
        t->touched[t->n_touched++] = id;
    }
    return ERR_OK;
}

/* One page read: its terms' document frequencies and count / greatest count. */
static void page_done(struct termstats *t, const struct pagecls_doc *d)
{
    int target = d->cls == PAGECLS_TARGET;
    uint32_t max_tf = 0;
    for (size_t i = 0; i < t->n_touched; i++)
        if (t->st[t->touched[i]].count > max_tf)
            max_tf = t->st[t->touched[i]].count;
    for (size_t i = 0; i < t->n_touched; i++) {
        struct termstats_term *s = &t->st[t->touched[i]];
        s->df[target ? 0 : 1]++;
        if (target) {
            s->tf_sum += (double)s->count / max_tf;
            if (s->last_site != d->site + 1) {
                s->last_site = d->site + 1;
                s->sites++;
            }
        }
        s->count = 0;
    }
    t->n_touched = 0;
}

enum err termstats_count(struct termstats *ts, struct tokenizer *tok,
                         const struct pagecls_doc *docs, size_t n)
{
    enum err e = ERR_OK;
    for (size_t i = 0; i < n && !e; i++) {
        ts->n_pages[docs[i].cls == PAGECLS_TARGET ? 0 : 1]++;
        e = tokenize_text(tok, docs[i].text, docs[i].len, count_token, ts);
        if (!e)
            page_done(ts, &docs[i]);
    }
    return e;
}
