/* A training website's record as JSON text and back (the training checkpoint). */
#include "job/trainsave.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *strings_json(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(v[i])) != 0) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

static json_t *page_json(const struct trainset_page *pg)
{
    json_t *links = strings_json(pg->transversal, pg->n_transversal);
    json_t *intrinsic = strings_json(pg->intrinsic, pg->n_intrinsic);
    json_t *text = json_stringn(pg->text, pg->text_len);
    if (!links || !intrinsic || !text) {
        json_decref(links);
        json_decref(intrinsic);
        json_decref(text);
        return NULL;
    }
    /* json_pack's "o" steals the three references */
    return json_pack("{s:s, s:o, s:o, s:o}", "url", pg->url, "text", text, "links", links,
                     "intrinsic", intrinsic);
}

enum err trainsave_write(const struct trainset_site *s, struct buf *out)
{
    json_t *pages = json_array();
    for (size_t i = 0; pages && i < s->n_pages; i++)
        if (json_array_append_new(pages, page_json(&s->pages[i])) != 0) {
            json_decref(pages);
            pages = NULL;
        }
    json_t *rec = pages ? json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:o}", "homepage", s->homepage,
                                    "site", s->site, "fetches", s->fetches, "home_status",
                                    (int)s->home_status, "home_http_status", s->home_http_status,
                                    "redirected", s->redirected, "pages", pages)
                        : NULL;
    char *text = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
    json_decref(rec);
    if (!text)
        return err_set(ERR_PARSE, "training site %s: not representable as JSON", s->homepage);
    enum err e = buf_append_str(out, text);
    free(text);
    return e;
}

static char *dup_string(const json_t *v)
{
    return json_is_string(v) ? strndup(json_string_value(v), json_string_length(v)) : NULL;
}

/* A JSON array of strings into *v (n of them); absent: none. */
static enum err read_strings(const json_t *a, char ***v, size_t *n)
{
    if (!a)
        return ERR_OK; /* a checkpoint written before intrinsic links were kept */
    if (!json_is_array(a))
        return err_set(ERR_PARSE, "training checkpoint: links that are not a list");
    if (!(*v = calloc(json_array_size(a) + 1, sizeof **v)))
        return err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < json_array_size(a); i++) {
        if (!((*v)[i] = dup_string(json_array_get(a, i))))
            return err_set(ERR_PARSE, "training checkpoint: a link that is not a string");
        (*n)++;
    }
    return ERR_OK;
}

/* One page of a record into *pg (zeroed first). */
static enum err read_page(const json_t *v, struct trainset_page *pg)
{
    *pg = (struct trainset_page){0};
    const json_t *text = json_object_get(v, "text"), *links = json_object_get(v, "links");
    if (!json_is_string(text) || !json_is_array(links) ||
        !(pg->url = dup_string(json_object_get(v, "url"))))
        return err_set(ERR_PARSE, "training checkpoint: a page without url, text or links");
    pg->text_len = json_string_length(text);
    pg->text = malloc(pg->text_len + 1);
    if (!pg->text)
        return err_set(ERR_NOMEM, "out of memory");
    memcpy(pg->text, json_string_value(text), pg->text_len + 1);
    enum err e = read_strings(links, &pg->transversal, &pg->n_transversal);
    return e ? e : read_strings(json_object_get(v, "intrinsic"), &pg->intrinsic, &pg->n_intrinsic);
}

enum err trainsave_read(const char *text, struct trainset_site *out)
{
    *out = (struct trainset_site){0};
    json_error_t jerr;
    json_t *rec = json_loads(text, JSON_ALLOW_NUL, &jerr);
    const json_t *pages = json_object_get(rec, "pages");
    enum err e = ERR_OK;
    if (!json_is_object(rec) || !json_is_array(pages) ||
        !(out->homepage = dup_string(json_object_get(rec, "homepage"))) ||
        !(out->site = dup_string(json_object_get(rec, "site"))))
        e = err_set(ERR_PARSE, "training checkpoint: not a website record");
    if (!e && !(out->pages = calloc(json_array_size(pages) + 1, sizeof *out->pages)))
        e = err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; !e && i < json_array_size(pages); i++) {
        out->n_pages++; /* so that release frees a half-read page too */
        e = read_page(json_array_get(pages, i), &out->pages[i]);
    }
    if (!e) {
        out->fetches = (int)json_integer_value(json_object_get(rec, "fetches"));
        out->home_status =
            (enum fetch_status)json_integer_value(json_object_get(rec, "home_status"));
        out->home_http_status = (int)json_integer_value(json_object_get(rec, "home_http_status"));
        out->redirected = (int)json_integer_value(json_object_get(rec, "redirected"));
    }
    json_decref(rec);
    if (e)
        trainset_site_release(out);
    return e;
}
