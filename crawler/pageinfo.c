/* From a fetched page to classifier text plus intrinsic and transversal links. */
#include "crawler/pageinfo.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/strmap.h"
#include "crawler/fetch.h"
#include "crawler/html.h"
#include "crawler/url.h"

void pageinfo_free(struct pageinfo *p)
{
    if (!p)
        return;
    free(p->text);
    for (size_t i = 0; i < p->n_intrinsic; i++)
        free(p->intrinsic[i]);
    for (size_t i = 0; i < p->n_transversal; i++)
        free(p->transversal[i]);
    free(p->intrinsic);
    free(p->transversal);
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

enum err pageinfo_extract(const char *url, const char *body, size_t len, const char *content_type,
                          struct pageinfo **out)
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
    if (!p || (h->n_links && (!(p->intrinsic = calloc(h->n_links, sizeof *p->intrinsic)) ||
                              !(p->transversal = calloc(h->n_links, sizeof *p->transversal))))) {
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
        if (strcmp(link, url) == 0 || strmap_get(&seen, link, n)) {
            free(link);
            continue;
        }
        e = strmap_put(&seen, link, n, p);
        if (e) {
            free(link);
            goto out;
        }
        if (url_same_site(url, link))
            p->intrinsic[p->n_intrinsic++] = link;
        else
            p->transversal[p->n_transversal++] = link;
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
    return pageinfo_extract(r->final_url ? r->final_url : r->url, r->body, r->body_len,
                            r->content_type, out);
}
