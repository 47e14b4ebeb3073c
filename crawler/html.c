/* HTML extraction: decoding (charset.c), a bounded gumbo parse, one walk of the tree. */
#include "crawler/html.h"

#include "common/ascii.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gumbo.h>

#include "common/buf.h"
#include "common/grow.h"
#include "crawler/charset.h"
#include "crawler/textfold.h"

/* ---- small byte helpers -------------------------------------------------------------- */

static int eq_ci(const char *s, const char *lit)
{
    return s && strlen(s) == strlen(lit) && ascii_starts_with_ci(s, strlen(s), lit);
}

/* Trim s[0..*len) URL-style: C0 controls and space go from both ends, as the URL standard does. */
static const char *trim_url(const char *s, size_t *len)
{
    size_t n = *len;
    while (n && (unsigned char)*s <= 0x20)
        s++, n--;
    while (n && (unsigned char)s[n - 1] <= 0x20)
        n--;
    *len = n;
    return s;
}

/* ---- a bounded parse ----------------------------------------------------------------- */

/*
 * gumbo's tree builder is quadratic on some broken markup (deep nesting; reopened
 * formatting elements: 70 KB of "<p><b id=N></p>" allocates 2 GB), and it has no way
 * to stop. So it allocates from this arena, which checks a memory and CPU-time budget
 * and, when one is spent, longjmps out of the parse. That is safe because gumbo keeps
 * all its state in memory it got from us: the arena is freed whole afterwards, and
 * gumbo_destroy_output is never needed. Bump allocation is also faster than malloc.
 */
#define ARENA_ALIGN       _Alignof(max_align_t)
#define ARENA_CHUNK       ((size_t)64 << 10)
#define ARENA_CHECK_EVERY 64 /* allocations between clock reads */

struct arena_chunk {
    struct arena_chunk *next;
};

#define CHUNK_HEADER ((sizeof(struct arena_chunk) + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1))

struct arena {
    struct arena_chunk *chunks;
    char *next; /* free space of the current chunk: room bytes at next */
    size_t room;
    size_t total, max; /* bytes taken from malloc; the budget */
    unsigned ticks, budget_ms;
    int64_t cpu_deadline;  /* thread CPU time at which the parse is given up */
    int64_t wall_deadline; /* monotonic time before which the CPU budget cannot be spent */
    jmp_buf bail;
    enum err why;
};

static int64_t now_ns(clockid_t clock)
{
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static _Noreturn void arena_bail(struct arena *a, enum err e)
{
    a->why = e;
    longjmp(a->bail, 1);
}

static void arena_start_clock(struct arena *a, unsigned ms)
{
    int64_t budget = (int64_t)ms * 1000000;
    a->budget_ms = ms;
    a->cpu_deadline = now_ns(CLOCK_THREAD_CPUTIME_ID) + budget;
    a->wall_deadline = now_ns(CLOCK_MONOTONIC) + budget;
}

/*
 * The budget is CPU time, so that a parse preempted on a busy machine is not given up;
 * but the thread CPU clock is a system call (~1 us here) and the monotonic clock is not
 * (~30 ns). CPU time cannot pass faster than wall time, so the CPU clock is read only
 * once the wall clock says the budget could be spent.
 */
static void arena_check_clock(struct arena *a)
{
    int64_t wall = now_ns(CLOCK_MONOTONIC);
    if (wall < a->wall_deadline)
        return;
    int64_t left = a->cpu_deadline - now_ns(CLOCK_THREAD_CPUTIME_ID);
    if (left <= 0)
        arena_bail(a, err_set(ERR_TOOBIG, "HTML parse exceeded its CPU time budget of %u ms",
                              a->budget_ms));
    a->wall_deadline = wall + left;
}

static _Noreturn void arena_bail_memory(struct arena *a)
{
    arena_bail(a,
               err_set(ERR_TOOBIG, "HTML parse exceeded its memory budget of %zu bytes", a->max));
}

static void *arena_alloc(void *userdata, size_t size)
{
    struct arena *a = userdata;
    if (++a->ticks % ARENA_CHECK_EVERY == 0)
        arena_check_clock(a);
    if (size > a->max) /* also keeps the rounding below from overflowing */
        arena_bail_memory(a);
    size = size ? (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1) : ARENA_ALIGN;
    if (size <= a->room) {
        void *p = a->next;
        a->next += size;
        a->room -= size;
        return p;
    }
    /* Big blocks get a chunk of their own and leave the current one in use. */
    int own = size > ARENA_CHUNK / 4;
    size_t n = CHUNK_HEADER + (own ? size : ARENA_CHUNK);
    if (n > a->max - a->total)
        arena_bail_memory(a);
    struct arena_chunk *c = malloc(n);
    if (!c)
        arena_bail(a, err_set(ERR_NOMEM, "out of memory parsing HTML"));
    c->next = a->chunks;
    a->chunks = c;
    a->total += n;
    char *p = (char *)c + CHUNK_HEADER;
    if (!own) {
        a->next = p + size;
        a->room = ARENA_CHUNK - size;
    }
    return p;
}

static void arena_free(void *userdata, void *p)
{
    (void)userdata;
    (void)p; /* everything goes at once in arena_release */
}

static void arena_release(struct arena *a)
{
    while (a->chunks) {
        struct arena_chunk *c = a->chunks;
        a->chunks = c->next;
        free(c);
    }
}

/* The tree, or NULL when a budget ran out: arena_bail set a->why and err_msg(). */
static GumboOutput *parse_bounded(struct arena *a, const char *in, size_t len)
{
    GumboOptions go = kGumboDefaultOptions;
    go.allocator = arena_alloc;
    go.deallocator = arena_free;
    go.userdata = a;
    go.max_errors = 0; /* we never read parse errors: do not record them */
    if (setjmp(a->bail) != 0)
        return NULL;
    return gumbo_parse_with_options(&go, in, len);
}

/* ---- the tree walk ------------------------------------------------------------------- */

enum {
    T_SKIP = 1,  /* subtree has no visible text (script, style, ...) */
    T_BLOCK = 2, /* starts and ends a line */
    T_SPACE = 4, /* separates words but not lines (cells, images, controls) */
};

static const unsigned char tag_class[GUMBO_TAG_LAST] = {
    [GUMBO_TAG_SCRIPT] = T_SKIP,     [GUMBO_TAG_STYLE] = T_SKIP,
    [GUMBO_TAG_NOSCRIPT] = T_SKIP,   [GUMBO_TAG_TEMPLATE] = T_SKIP,
    [GUMBO_TAG_TITLE] = T_SKIP,      [GUMBO_TAG_NOFRAMES] = T_SKIP, /* raw markup as text */
    [GUMBO_TAG_NOEMBED] = T_SKIP,    [GUMBO_TAG_IFRAME] = T_SKIP,   /* raw fallback text */
    [GUMBO_TAG_ADDRESS] = T_BLOCK,   [GUMBO_TAG_ARTICLE] = T_BLOCK,
    [GUMBO_TAG_ASIDE] = T_BLOCK,     [GUMBO_TAG_BLOCKQUOTE] = T_BLOCK,
    [GUMBO_TAG_BODY] = T_BLOCK,      [GUMBO_TAG_BR] = T_BLOCK,
    [GUMBO_TAG_CAPTION] = T_BLOCK,   [GUMBO_TAG_CENTER] = T_BLOCK,
    [GUMBO_TAG_DD] = T_BLOCK,        [GUMBO_TAG_DETAILS] = T_BLOCK,
    [GUMBO_TAG_DIR] = T_BLOCK,       [GUMBO_TAG_DIV] = T_BLOCK,
    [GUMBO_TAG_DL] = T_BLOCK,        [GUMBO_TAG_DT] = T_BLOCK,
    [GUMBO_TAG_FIELDSET] = T_BLOCK,  [GUMBO_TAG_FIGCAPTION] = T_BLOCK,
    [GUMBO_TAG_FIGURE] = T_BLOCK,    [GUMBO_TAG_FOOTER] = T_BLOCK,
    [GUMBO_TAG_FORM] = T_BLOCK,      [GUMBO_TAG_FRAMESET] = T_BLOCK,
    [GUMBO_TAG_H1] = T_BLOCK,        [GUMBO_TAG_H2] = T_BLOCK,
    [GUMBO_TAG_H3] = T_BLOCK,        [GUMBO_TAG_H4] = T_BLOCK,
    [GUMBO_TAG_H5] = T_BLOCK,        [GUMBO_TAG_H6] = T_BLOCK,
    [GUMBO_TAG_HEADER] = T_BLOCK,    [GUMBO_TAG_HGROUP] = T_BLOCK,
    [GUMBO_TAG_HR] = T_BLOCK,        [GUMBO_TAG_LEGEND] = T_BLOCK,
    [GUMBO_TAG_LI] = T_BLOCK,        [GUMBO_TAG_LISTING] = T_BLOCK,
    [GUMBO_TAG_MAIN] = T_BLOCK,      [GUMBO_TAG_MENU] = T_BLOCK,
    [GUMBO_TAG_NAV] = T_BLOCK,       [GUMBO_TAG_OL] = T_BLOCK,
    [GUMBO_TAG_OPTION] = T_BLOCK,    [GUMBO_TAG_P] = T_BLOCK,
    [GUMBO_TAG_PLAINTEXT] = T_BLOCK, [GUMBO_TAG_PRE] = T_BLOCK,
    [GUMBO_TAG_SECTION] = T_BLOCK,   [GUMBO_TAG_SUMMARY] = T_BLOCK,
    [GUMBO_TAG_TABLE] = T_BLOCK,     [GUMBO_TAG_TBODY] = T_BLOCK,
    [GUMBO_TAG_TFOOT] = T_BLOCK,     [GUMBO_TAG_THEAD] = T_BLOCK,
    [GUMBO_TAG_TR] = T_BLOCK,        [GUMBO_TAG_UL] = T_BLOCK,
    [GUMBO_TAG_XMP] = T_BLOCK,       [GUMBO_TAG_TD] = T_SPACE,
    [GUMBO_TAG_TH] = T_SPACE,        [GUMBO_TAG_IMG] = T_SPACE,
    [GUMBO_TAG_INPUT] = T_SPACE,     [GUMBO_TAG_BUTTON] = T_SPACE,
    [GUMBO_TAG_SELECT] = T_SPACE,    [GUMBO_TAG_TEXTAREA] = T_SPACE,
};

struct link_slot {
    size_t href, anchor; /* offsets into the string pool */
    unsigned kind;
    int nofollow;
};

struct walker {
    struct html_page *page;
    const struct html_options *opt;
    struct textfold text, title, anchor;
    const GumboNode *anchor_node; /* the <a> whose text goes to `anchor`, or NULL */
    size_t anchor_link;           /* its slot */
    int have_title;
    struct link_slot *links;
    size_t n_links, cap_links;
    struct buf pool; /* link strings, NUL-separated; offset 0 holds "" */
    enum err err;    /* first failure; the walk stops on it */
};

static const char *attr(const GumboElement *el, const char *name)
{
    const GumboAttribute *a = gumbo_get_attribute(&el->attributes, name);
    return a ? a->value : NULL;
}

/* Does a space-separated token list (rel, robots content) hold `tok`? Commas count as space. */
static int has_token(const char *list, const char *tok)
{
    if (!list)
        return 0;
    size_t k = strlen(tok);
    for (const char *p = list; *p;) {
        while (*p && (ascii_is_ws((unsigned char)*p) || *p == ','))
            p++;
        const char *w = p;
        while (*p && !ascii_is_ws((unsigned char)*p) && *p != ',')
            p++;
        if ((size_t)(p - w) == k && ascii_starts_with_ci(w, k, tok))
            return 1;
    }
    return 0;
}

/* Store a link string (repaired like text: see textfold_add); returns its pool offset. */
static size_t pool_add(struct walker *w, const char *s, size_t n)
{
    size_t off = w->pool.len;
    if (!w->err)
        w->err = charset_append_utf8(&w->pool, s, n);
    if (!w->err)
        w->err = buf_append_char(&w->pool, '\0');
    return w->err ? 0 : off;
}

/* Is this trimmed URL worth keeping: not empty, and within the cap once repaired? */
static int html_url_fits(const char *s, size_t n)
{
    return n > 0 && n <= HTML_HREF_MAX && n + 2 * charset_utf8_invalid(s, n) <= HTML_HREF_MAX;
}

/* Record a link (href: n bytes); returns its slot index + 1, or 0 when it is left out. */
static size_t add_link(struct walker *w, const char *href, size_t n, unsigned kind, int nofollow)
{
    href = trim_url(href, &n);
    if (!html_url_fits(href, n) || w->err)
        return 0;
    if (nofollow && !w->opt->keep_nofollow) {
        w->page->n_nofollow_dropped++;
        return 0;
    }
    if (w->n_links >= w->opt->max_links) {
        w->page->truncated |= HTML_TRUNC_LINKS;
        return 0;
    }
    if (grow_array((void **)&w->links, &w->cap_links, w->n_links + 1, sizeof *w->links) != ERR_OK) {
        w->err = err_set(ERR_NOMEM, "out of memory collecting links");
        return 0;
    }
    struct link_slot *l = &w->links[w->n_links];
    l->href = pool_add(w, href, n);
    l->anchor = 0;
    l->kind = kind;
    l->nofollow = nofollow;
    return w->err ? 0 : ++w->n_links;
}

/*
 * The URL of a refresh, read tolerantly: `5; URL='x'`, `0;url = x`, `0, x`,
 * `url=x`. Returns NULL when there is none (a refresh of the page itself).
 */
static const char *refresh_url(const char *c, size_t *len)
{
    const char *p = c;
    while (ascii_is_ws((unsigned char)*p))
        p++;
    while ((*p >= '0' && *p <= '9') || *p == '.')
        p++;
    while (ascii_is_ws((unsigned char)*p))
        p++;
    if (*p == ';' || *p == ',')
        p++;
    while (ascii_is_ws((unsigned char)*p))
        p++;
    if (ascii_starts_with_ci(p, strlen(p), "url")) {
        const char *q = p + 3;
        while (ascii_is_ws((unsigned char)*q))
            q++;
        if (*q == '=') {
            p = q + 1;
            while (ascii_is_ws((unsigned char)*p))
                p++;
        }
    }
    const char *end = p + strlen(p);
    if (*p == '"' || *p == '\'') {
        const char *q = strchr(p + 1, *p);
        end = q ? q : end;
        p++;
    }
    while (end > p && ascii_is_ws((unsigned char)end[-1]))
        end--;
    *len = (size_t)(end - p);
    return *len ? p : NULL;
}

static void visit_meta(struct walker *w, const GumboElement *el)
{
    const char *content = attr(el, "content");
    if (!content)
        return;
    if (eq_ci(attr(el, "name"), "robots")) {
        int none = has_token(content, "none");
        w->page->meta_noindex |= none || has_token(content, "noindex");
        w->page->meta_nofollow |= none || has_token(content, "nofollow");
    } else if (eq_ci(attr(el, "http-equiv"), "refresh")) {
        size_t n;
        const char *u = refresh_url(content, &n);
        if (u)
            add_link(w, u, n, HTML_LINK_META_REFRESH, 0);
    }
}

/* The first <base href> (the URL standard ignores later ones); an overlong one is ignored. */
static void visit_base(struct walker *w, const char *href)
{
    size_t n = strlen(href);
    href = trim_url(href, &n);
    if (n && !html_url_fits(href, n))
        return;
    struct buf b;
    buf_init(&b, 0);
    if ((w->err = charset_append_utf8(&b, href, n)) == ERR_OK &&
        !(w->page->base_href = buf_detach(&b)))
        w->err = err_set(ERR_NOMEM, "out of memory copying <base href>");
    buf_release(&b);
}

static void begin_anchor(struct walker *w, const GumboNode *node, size_t slot)
{
    w->anchor_node = node;
    w->anchor_link = slot;
    textfold_reset(&w->anchor);
}

static void end_anchor(struct walker *w)
{
    if (w->anchor.b.len)
        w->links[w->anchor_link - 1].anchor = pool_add(w, w->anchor.b.data, w->anchor.b.len);
    w->anchor_node = NULL;
}

/* Text for the page and, inside a link, for its anchor. */
static void visit_text(struct walker *w, const char *s)
{
    if (!w->text.full) {
        if (!w->err)
            w->err = textfold_add(&w->text, s);
        if (w->text.full)
            w->page->truncated |= HTML_TRUNC_TEXT;
    }
    if (w->anchor_node && !w->err)
        w->err = textfold_add(&w->anchor, s);
}

static void visit_title(struct walker *w, const GumboElement *el)
{
    w->have_title = 1;
    for (unsigned i = 0; i < el->children.length && !w->err; i++) {
        const GumboNode *c = el->children.data[i];
        if (c->type == GUMBO_NODE_TEXT || c->type == GUMBO_NODE_WHITESPACE)
            w->err = textfold_add(&w->title, c->v.text.text);
    }
}

static void separate(struct walker *w, unsigned cls)
{
    if (cls & (T_BLOCK | T_SPACE)) {
        textfold_break(&w->text, cls & T_BLOCK ? '\n' : ' ');
        if (w->anchor_node)
            textfold_break(&w->anchor, ' ');
    }
}

/* An element on the way down; returns whether to walk into its children. */
static int enter_element(struct walker *w, const GumboNode *node)
{
    const GumboElement *el = &node->v.element;
    unsigned cls = el->tag < GUMBO_TAG_LAST ? tag_class[el->tag] : 0;
    int html = el->tag_namespace == GUMBO_NAMESPACE_HTML;
    const char *v;
    size_t slot;
    switch (el->tag) {
    case GUMBO_TAG_TITLE:
        if (html && !w->have_title)
            visit_title(w, el);
        break;
    case GUMBO_TAG_BASE:
        if (html && !w->page->base_href && (v = attr(el, "href")))
            visit_base(w, v);
        break;
    case GUMBO_TAG_META:
        visit_meta(w, el);
        break;
    case GUMBO_TAG_A:
        /* Anchors nest only in foreign content; there the outer one keeps the text. */
        if ((v = attr(el, "href"))) {
            slot = add_link(w, v, strlen(v), HTML_LINK_A, has_token(attr(el, "rel"), "nofollow"));
            if (slot && !w->anchor_node)
                begin_anchor(w, node, slot);
        }
        break;
    case GUMBO_TAG_AREA:
        if ((v = attr(el, "href"))) {
            slot =
                add_link(w, v, strlen(v), HTML_LINK_AREA, has_token(attr(el, "rel"), "nofollow"));
            const char *alt = attr(el, "alt");
            if (slot && alt && *alt) {
                struct textfold f;
                textfold_init(&f, w->opt->max_anchor);
                w->err = textfold_add(&f, alt);
                if (!w->err && f.b.len)
                    w->links[slot - 1].anchor = pool_add(w, f.b.data, f.b.len);
                buf_release(&f.b);
            }
        }
        break;
    case GUMBO_TAG_FRAME:
    case GUMBO_TAG_IFRAME:
        if ((v = attr(el, "src")))
            add_link(w, v, strlen(v),
                     el->tag == GUMBO_TAG_FRAME ? HTML_LINK_FRAME : HTML_LINK_IFRAME, 0);
        break;
    case GUMBO_TAG_IMG:
        /* A linked image's alt text is the link's anchor text (image-only links). */
        if (w->anchor_node && (v = attr(el, "alt")) && !w->err) {
            textfold_break(&w->anchor, ' ');
            w->err = textfold_add(&w->anchor, v);
        }
        break;
    default:
        break;
    }
    if (cls & T_SKIP)
        return 0;
    separate(w, cls);
    return 1;
}

static void leave_element(struct walker *w, const GumboNode *node)
{
    const GumboElement *el = &node->v.element;
    separate(w, el->tag < GUMBO_TAG_LAST ? tag_class[el->tag] : 0);
    if (node == w->anchor_node)
        end_anchor(w);
}

static const GumboVector *children(const GumboNode *n)
{
    if (n->type == GUMBO_NODE_DOCUMENT)
        return &n->v.document.children;
    if (n->type == GUMBO_NODE_ELEMENT)
        return &n->v.element.children;
    return NULL; /* text, comments; template contents are never visited */
}

/*
 * Depth-first walk with an explicit stack: a tree from 100k unclosed <div>s is 100k
 * deep, too deep for recursion. At most max_nodes nodes are visited.
 */
static void walk(struct walker *w, const GumboNode *root)
{
    struct frame {
        const GumboNode *node;
        unsigned next; /* index of the next child to visit */
    } *stack = NULL;
    size_t sp = 0, cap = 0, nodes = 0;
    const GumboNode *push = root;
    while (!w->err) {
        if (push) {
            if (grow_array((void **)&stack, &cap, sp + 1, sizeof *stack) != ERR_OK) {
                w->err = err_set(ERR_NOMEM, "out of memory walking the HTML tree");
                break;
            }
            stack[sp].node = push;
            stack[sp++].next = 0;
            push = NULL;
        }
        if (sp == 0)
            break;
        struct frame *f = &stack[sp - 1];
        const GumboVector *kids = children(f->node);
        if (!kids || f->next >= kids->length) {
            if (f->node->type == GUMBO_NODE_ELEMENT)
                leave_element(w, f->node);
            sp--;
            continue;
        }
        const GumboNode *c = kids->data[f->next++];
        if (++nodes > w->opt->max_nodes) {
            w->page->truncated |= HTML_TRUNC_NODES;
            break;
        }
        switch (c->type) {
        case GUMBO_NODE_ELEMENT:
            if (enter_element(w, c))
                push = c;
            break;
        case GUMBO_NODE_TEXT:
        case GUMBO_NODE_WHITESPACE:
        case GUMBO_NODE_CDATA:
            visit_text(w, c->v.text.text);
            break;
        default:
            break;
        }
    }
    /* A walk cut short may leave an anchor open: its text so far still counts. */
    if (w->anchor_node && !w->err)
        end_anchor(w);
    free(stack);
}

/* Move the collected links into one block: the array, then the strings it points to. */
static enum err take_links(struct walker *w, struct html_page *page)
{
    if (page->meta_nofollow && !w->opt->keep_nofollow) {
        page->n_nofollow_dropped += w->n_links;
        w->n_links = 0;
    }
    if (w->n_links == 0)
        return ERR_OK;
    size_t array = w->n_links * sizeof(struct html_link);
    char *block = malloc(array + w->pool.len);
    if (!block)
        return err_set(ERR_NOMEM, "out of memory returning %zu links", w->n_links);
    char *strings = block + array;
    memcpy(strings, w->pool.data, w->pool.len);
    struct html_link *links = (struct html_link *)(void *)block;
    for (size_t i = 0; i < w->n_links; i++) {
        links[i].href = strings + w->links[i].href;
        links[i].anchor = strings + w->links[i].anchor;
        links[i].kind = w->links[i].kind;
        links[i].nofollow = w->links[i].nofollow;
    }
    page->links = links;
    page->n_links = w->n_links;
    return ERR_OK;
}

/* ---- entry points -------------------------------------------------------------------- */

static struct html_options resolve_options(const struct html_options *o)
{
    struct html_options r = {0};
    if (o)
        r = *o;
    r.max_input = r.max_input ? r.max_input : HTML_DEFAULT_MAX_INPUT;
    r.max_text = r.max_text ? r.max_text : HTML_DEFAULT_MAX_TEXT;
    r.max_links = r.max_links ? r.max_links : HTML_DEFAULT_MAX_LINKS;
    r.max_anchor = r.max_anchor ? r.max_anchor : HTML_DEFAULT_MAX_ANCHOR;
    r.max_nodes = r.max_nodes ? r.max_nodes : HTML_DEFAULT_MAX_NODES;
    r.max_parse_mem = r.max_parse_mem ? r.max_parse_mem : HTML_DEFAULT_MAX_PARSE_MEM;
    r.max_parse_ms = r.max_parse_ms ? r.max_parse_ms : HTML_DEFAULT_MAX_PARSE_MS;
    /* Keep the sums in the arena and the text buffers clear of overflow. */
    if (r.max_parse_mem > SIZE_MAX / 4)
        r.max_parse_mem = SIZE_MAX / 4;
    if (r.max_text > SIZE_MAX / 4)
        r.max_text = SIZE_MAX / 4;
    if (r.max_anchor > SIZE_MAX / 4)
        r.max_anchor = SIZE_MAX / 4;
    return r;
}

/* Decode, parse and walk into page; html_extract owns page and frees it on failure. */
static enum err extract(struct html_page *page, const char *body, size_t len,
                        const char *content_type, const struct html_options *opt)
{
    struct walker w = {.page = page, .opt = opt};
    struct arena a = {.max = opt->max_parse_mem};
    struct charset_text d = {0};
    GumboOutput *tree;
    enum err e;

    textfold_init(&w.text, opt->max_text);
    textfold_init(&w.title, HTML_TITLE_MAX);
    textfold_init(&w.anchor, opt->max_anchor);
    buf_init(&w.pool, 0);
    if ((e = buf_append_char(&w.pool, '\0'))) /* offset 0: the empty anchor */
        goto out;

    if ((e = charset_decode_html(body, len, opt->max_input, content_type, &d)))
        goto out;
    if (d.cut)
        page->truncated |= HTML_TRUNC_INPUT;
    snprintf(page->charset, sizeof page->charset, "%s", d.name);
    page->charset_source = d.source;

    arena_start_clock(&a, opt->max_parse_ms);
    if (!(tree = parse_bounded(&a, d.data, d.len))) {
        e = a.why ? a.why : err_set(ERR_PARSE, "the HTML parser returned no tree");
        goto out;
    }
    walk(&w, tree->document);
    if ((e = w.err) || (e = take_links(&w, page)))
        goto out;
    page->text_len = w.text.b.len;
    page->text = buf_detach(&w.text.b);
    page->title = buf_detach(&w.title.b);
    if (!page->text || !page->title)
        e = err_set(ERR_NOMEM, "out of memory returning page text");

out:
    arena_release(&a);
    charset_text_release(&d);
    free(w.links);
    buf_release(&w.pool);
    buf_release(&w.text.b);
    buf_release(&w.title.b);
    buf_release(&w.anchor.b);
    return e;
}

enum err html_extract(const char *body, size_t len, const char *content_type,
                      const struct html_options *opt, struct html_page **out)
{
    if (!out || (!body && len))
        return err_set(ERR_INVAL, "html_extract: no body or no result pointer");
    *out = NULL;
    struct html_options o = resolve_options(opt);
    struct html_page *page = calloc(1, sizeof *page);
    if (!page)
        return err_set(ERR_NOMEM, "out of memory allocating a page");
    enum err e = extract(page, body ? body : "", len, content_type, &o);
    if (e) {
        html_page_free(page);
        return e;
    }
    *out = page;
    return ERR_OK;
}

void html_page_free(struct html_page *page)
{
    if (!page)
        return;
    free(page->title);
    free(page->text);
    free(page->links); /* the strings live in the same block */
    free(page->base_href);
    free(page);
}

const char *html_link_kind_str(unsigned kind)
{
    switch (kind) {
    case HTML_LINK_A:
        return "a";
    case HTML_LINK_AREA:
        return "area";
    case HTML_LINK_FRAME:
        return "frame";
    case HTML_LINK_IFRAME:
        return "iframe";
    case HTML_LINK_META_REFRESH:
        return "meta_refresh";
    }
    return "unknown";
}
