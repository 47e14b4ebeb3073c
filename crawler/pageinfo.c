/* From a fetched page to classifier text plus intrinsic and transversal links. */
#include "crawler/pageinfo.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/grow.h"
#include "common/strmap.h"
#include "crawler/fetch.h"
#include "crawler/html.h"
#include "crawler/url.h"

void pageinfo_free(struct pageinfo *p)
{
    if (!p)
        return;
    free(p->text);
    for (size_t i = 0; i < p->n_intrinsic; i++) {
        free(p->intrinsic[i]);
        if (p->intrinsic_anchor)
            free(p->intrinsic_anchor[i]);
    }
    for (size_t i = 0; i < p->n_transversal; i++) {
        free(p->transversal[i]);
        if (p->transversal_anchor)
            free(p->transversal_anchor[i]);
    }
    free(p->intrinsic);
    free(p->transversal);
    free(p->intrinsic_anchor);
    free(p->transversal_anchor);
    free(p);
}

static enum err make_text(const struct html_page *h, struct pageinfo *p)
{
    struct buf b;
    buf_init(&b, 0);
    enum err e = buf_append_str(&b, h->title);
    if (!e && h->title[0] && h->text_len)
        e = buf_append_char(&b, '\n');
    if (!e)
        e = buf_append(&b, h->text, h->text_len);
    if (e) {
        buf_release(&b);
        return e;
    }
    p->text_len = b.len;
    p->text = buf_detach(&b);
    return ERR_OK;
}

/* A URL linked again from the same page: its anchor joins the first one's. */
static enum err anchor_join(char **slot, const char *more)
{
    size_t have = strlen(*slot), add = strlen(more);
    if (!add)
        return ERR_OK;
    if (have + 1 + add > PAGEINFO_MAX_ANCHOR)
        return ERR_OK;     /* enough of it: the cap keeps a page's anchors small */
    size_t cap = have + 1; /* what *slot holds at least */
    if (grow_array((void **)slot, &cap, have + 1 + add + 1, 1) != ERR_OK)
        return err_set(ERR_NOMEM, "out of memory");
    char *s = *slot;
    if (have)
        s[have++] = ' ';
    memcpy(s + have, more, add + 1);
    return ERR_OK;
}

/* The anchor of a new link, into its slot; NULL slot: anchors were not asked for. */
static enum err anchor_keep(char **slot, const char *anchor)
{
    if (!slot)
        return ERR_OK;
    size_t n = strlen(anchor);
    *slot = strndup(anchor, n < PAGEINFO_MAX_ANCHOR ? n : PAGEINFO_MAX_ANCHOR);
    return *slot ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
}

static enum err extract(const char *url, const char *body, size_t len, const char *content_type,
                        int anchors, struct pageinfo **out)
{
    *out = NULL;
    struct html_page *h = NULL;
    struct pageinfo *p = NULL;
    char *base = NULL;
    struct strmap seen;
    strmap_init(&seen);
    enum err e = html_extract(body ? body : "", body ? len : 0, content_type, NULL, &h);
    if (e)
        goto out;
    p = calloc(1, sizeof *p);
    if (!p ||
        (h->n_links && (!(p->intrinsic = calloc(h->n_links, sizeof *p->intrinsic)) ||
                        !(p->transversal = calloc(h->n_links, sizeof *p->transversal)))) ||
        (p && anchors && h->n_links &&
         (!(p->intrinsic_anchor = calloc(h->n_links, sizeof *p->intrinsic_anchor)) ||
          !(p->transversal_anchor = calloc(h->n_links, sizeof *p->transversal_anchor))))) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    e = make_text(h, p);
    if (e)
        goto out;
    if (!h->base_href || url_resolve(url, h->base_href, &base) != ERR_OK) {
        base = strdup(url);
        if (!base) {
            e = err_set(ERR_NOMEM, "out of memory");
            goto out;
        }
    }
    for (size_t i = 0; i < h->n_links; i++) {
        char *link;
        if (url_resolve(base, h->links[i].href, &link) != ERR_OK)
            continue; /* mailto:, javascript:, junk: not a page */
        size_t n = strlen(link);
        char **again = strmap_get(&seen, link, n);
        if (strcmp(link, url) == 0 || again) {
            free(link);
            if (anchors && again && (e = anchor_join(again, h->links[i].anchor)))
                goto out;
            continue;
        }
        int same = url_same_site(url, link);
        char **anchor = !anchors ? NULL
                        : same   ? &p->intrinsic_anchor[p->n_intrinsic]
                                 : &p->transversal_anchor[p->n_transversal];
        e = strmap_put(&seen, link, n, anchor ? (void *)anchor : (void *)p);
        if (e) {
            free(link);
            goto out;
        }
        if (same)
            p->intrinsic[p->n_intrinsic++] = link;
        else
            p->transversal[p->n_transversal++] = link;
        if ((e = anchor_keep(anchor, h->links[i].anchor)))
            goto out;
    }
    *out = p;
    p = NULL;
out:
    strmap_release(&seen);
    free(base);
    html_page_free(h);
    pageinfo_free(p);
    return e;
}

enum err pageinfo_from_fetch(const struct fetch_result *r, struct pageinfo **out)
{
    return extract(r->final_url ? r->final_url : r->url, r->body, r->body_len, r->content_type, 0,
                   out);
}

enum err pageinfo_from_fetch_anchors(const struct fetch_result *r, struct pageinfo **out)
{
    return extract(r->final_url ? r->final_url : r->url, r->body, r->body_len, r->content_type, 1,
                   out);
}
