/* sites.tsv ground truth: host -> topic and role per target topic. */
#include "eval/labels.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/buf.h"
#include "common/strmap.h"

struct labels {
    struct labels_site *sites;
    size_t n, cap;
    struct strmap by_host; /* host -> index + 1 */
};

void labels_free(struct labels *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->sites[i].host);
        free(l->sites[i].topic);
        free(l->sites[i].roles);
    }
    free(l->sites);
    strmap_release(&l->by_host);
    free(l);
}

size_t labels_count(const struct labels *l)
{
    return l->n;
}

const struct labels_site *labels_get(const struct labels *l, size_t i)
{
    return i < l->n ? &l->sites[i] : NULL;
}

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

const struct labels_site *labels_find(const struct labels *l, const char *host)
{
    char key[512];
    size_t n = strlen(host);
    if (n >= sizeof key)
        return NULL;
    memcpy(key, host, n + 1);
    lower(key);
    size_t idx = (size_t)(uintptr_t)strmap_get(&l->by_host, key, n);
    return idx ? &l->sites[idx - 1] : NULL;
}

static const struct {
    const char *name;
    enum labels_role role;
} role_names[] = {
    {"train", LABELS_ROLE_TRAIN},
    {"start", LABELS_ROLE_START},
    {"train-other", LABELS_ROLE_TRAIN_OTHER},
    {"test", LABELS_ROLE_TEST},
};

/* The role named by [s, s + n), or LABELS_ROLE_NONE. */
static enum labels_role role_parse(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof role_names / sizeof role_names[0]; i++)
        if (strlen(role_names[i].name) == n && memcmp(role_names[i].name, s, n) == 0)
            return role_names[i].role;
    return LABELS_ROLE_NONE;
}

/*
 * Walk "t1:r1;t2:r2", setting *found to the role of `topic` (if named; topic may be
 * NULL to only check). A malformed entry (no colon, empty topic, unknown role) gives -1.
 */
static int roles_walk(const char *roles, const char *topic, enum labels_role *found)
{
    const char *p = roles;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len) {
            const char *colon = NULL;
            /* The topic may itself contain ':'; the role is after the last one. */
            for (const char *q = p + len; q > p; q--)
                if (q[-1] == ':') {
                    colon = q - 1;
                    break;
                }
            if (!colon || colon == p)
                return -1;
            enum labels_role r = role_parse(colon + 1, (size_t)(p + len - colon - 1));
            if (r == LABELS_ROLE_NONE)
                return -1;
            if (topic && (size_t)(colon - p) == strlen(topic) &&
                memcmp(p, topic, (size_t)(colon - p)) == 0)
                *found = r;
        }
        p += len;
        if (*p == ';')
            p++;
    }
    return 0;
}

enum labels_role labels_role(const struct labels_site *s, const char *topic)
{
    enum labels_role r = LABELS_ROLE_NONE;
    if (roles_walk(s->roles, topic, &r) != 0)
        return LABELS_ROLE_NONE;
    return r;
}

/* Split line (modified in place) at tabs into at most max fields. */
static size_t split_tabs(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

#define MAX_COLS 64

static enum err add_site(struct labels *l, const char *host, const char *topic, const char *roles,
                         const char *name, size_t lineno)
{
    char *h = strdup(host);
    if (!h)
        return err_set(ERR_NOMEM, "out of memory");
    lower(h);
    size_t hn = strlen(h);
    if (strmap_get(&l->by_host, h, hn)) {
        free(h);
        return err_set(ERR_PARSE, "%s:%zu: host %s is listed twice", name, lineno, host);
    }
    if (grow_array((void **)&l->sites, &l->cap, l->n + 1, sizeof *l->sites) != ERR_OK) {
        free(h);
        return ERR_NOMEM;
    }
    struct labels_site *s = &l->sites[l->n];
    s->host = h;
    s->topic = strdup(topic);
    s->roles = strdup(roles);
    l->n++;
    if (!s->topic || !s->roles)
        return err_set(ERR_NOMEM, "out of memory");
    return strmap_put(&l->by_host, h, hn, (void *)(uintptr_t)l->n);
}

enum err labels_parse(const char *text, size_t len, const char *name, struct labels **out)
{
    *out = NULL;
    struct labels *l = calloc(1, sizeof *l);
    char *line = malloc(LABELS_MAX_LINE + 1);
    enum err e = ERR_OK;
    if (!l || !line) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    strmap_init(&l->by_host);
    int col_host = -1, col_topic = -1, col_role = -1;
    size_t lineno = 0, pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        lineno++;
        if (n > LABELS_MAX_LINE) {
            e = err_set(ERR_PARSE, "%s:%zu: line longer than %d bytes", name, lineno,
                        LABELS_MAX_LINE);
            goto out;
        }
        memcpy(line, text + pos, n);
        line[n] = '\0';
        pos += n + (nl != NULL);
        if (n && line[n - 1] == '\r')
            line[--n] = '\0';
        if (memchr(line, '\0', n)) {
            e = err_set(ERR_PARSE, "%s:%zu: NUL byte", name, lineno);
            goto out;
        }
        if (n == 0 || line[0] == '#')
            continue;
        char *f[MAX_COLS];
        size_t nf = split_tabs(line, f, MAX_COLS);
        if (col_host < 0) {
            for (size_t i = 0; i < nf; i++) {
                if (strcmp(f[i], "host") == 0)
                    col_host = (int)i;
                else if (strcmp(f[i], "topic") == 0)
                    col_topic = (int)i;
                else if (strcmp(f[i], "role") == 0)
                    col_role = (int)i;
            }
            if (col_host < 0 || col_topic < 0 || col_role < 0) {
                e = err_set(ERR_PARSE,
                            "%s:%zu: the header line must name the columns host, topic and role",
                            name, lineno);
                goto out;
            }
            continue;
        }
        int need = col_host > col_topic ? col_host : col_topic;
        need = need > col_role ? need : col_role;
        if ((int)nf <= need) {
            e = err_set(ERR_PARSE, "%s:%zu: %zu columns, expected at least %d", name, lineno, nf,
                        need + 1);
            goto out;
        }
        if (!f[col_host][0] || !f[col_topic][0]) {
            e = err_set(ERR_PARSE, "%s:%zu: empty %s", name, lineno,
                        f[col_host][0] ? "topic" : "host");
            goto out;
        }
        enum labels_role dummy;
        if (roles_walk(f[col_role], NULL, &dummy) != 0) {
            e = err_set(ERR_PARSE,
                        "%s:%zu: role '%.200s' is not a list of TOPIC:ROLE (train, start, "
                        "train-other, test) separated by ';'",
                        name, lineno, f[col_role]);
            goto out;
        }
        if (l->n >= LABELS_MAX_SITES) {
            e = err_set(ERR_TOOBIG, "%s: more than %d sites", name, LABELS_MAX_SITES);
            goto out;
        }
        if ((e = add_site(l, f[col_host], f[col_topic], f[col_role], name, lineno)))
            goto out;
    }
    if (col_host < 0) {
        e = err_set(ERR_PARSE, "%s: empty (no header line)", name);
        goto out;
    }
    *out = l;
    l = NULL;
out:
    free(line);
    labels_free(l);
    return e;
}

enum err labels_load(const char *path, struct labels **out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(ERR_IO, "cannot open %s: %s", path, strerror(errno));
    struct buf b;
    buf_init(&b, (size_t)1 << 30);
    enum err e = ERR_OK;
    char chunk[65536];
    size_t n;
    while (!e && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        e = buf_append(&b, chunk, n);
    if (!e && ferror(f))
        e = err_set(ERR_IO, "cannot read %s: %s", path, strerror(errno));
    fclose(f);
    if (!e)
        e = labels_parse(b.data ? b.data : "", b.len, path, out);
    buf_release(&b);
    return e;
}
