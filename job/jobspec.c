/* Job bodies: parsing, validation, parameter defaults and overrides. */
#include "job/jobspec.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * jansson references: json_loadb returns a new reference (json_decref'd here);
 * json_object_get and json_array_get return borrowed ones. Two calls steal: in
 * jobspec_to_json, json_array_append_new takes the new string, and json_pack's "o"
 * takes the arrays and the params object.
 */
#include <jansson.h>

#include "classifier/pagecls.h"
#include "common/num.h"
#include "common/strmap.h"
#include "crawler/edges.h"
#include "crawler/url.h"
#include "job/jobstrategy.h"

/* ---- parameters ---- */

enum ptype { P_DOUBLE, P_INT, P_INT64, P_CHOICE, P_BOOL };

struct pdef {
    const char *name;
    enum ptype type;
    size_t off;
    double min, max;                 /* P_CHOICE: from its names */
    int min_open, max_open;          /* min / max themselves are not allowed */
    const char *range;               /* for the error message; P_CHOICE: "one of: " its names */
    const char *(*choice)(size_t i); /* P_CHOICE: value i's name, NULL past the last; stored
                                        as an int */
};

/* A choice of fixed names: fn(i), value i's name (the names in the values' order). */
#define CHOICE_NAMES(fn, ...)                                                                      \
    static const char *fn(size_t i)                                                                \
    {                                                                                              \
        static const char *const names[] = {__VA_ARGS__};                                          \
        return i < sizeof names / sizeof names[0] ? names[i] : NULL;                               \
    }

static const char *strategy_name(size_t i)
{
    const struct jobstrategy *s = jobstrategy_get(i);
    return s ? s->name : NULL;
}

CHOICE_NAMES(prior_name, "fixed", "harvest")
CHOICE_NAMES(calibration_name, "none", "platt")
CHOICE_NAMES(linkrank_name, "all", "new")
CHOICE_NAMES(judge_name, "examination", "crawl_model")
CHOICE_NAMES(linkrank_threshold_name, "growing", "fixed")
#undef CHOICE_NAMES

#define OFF(f) offsetof(struct jobspec_params, f)
static const struct pdef pdefs[] = {
    {"p_threshold", P_DOUBLE, OFF(p_threshold), 0.5, 1, 1, 0, "a number in (0.5, 1]", NULL},
    {"train_pages_per_site", P_INT, OFF(train_pages_per_site), 1, 1000, 0, 0,
     "an integer from 1 to 1000", NULL},
    {"centroids_per_class", P_INT, OFF(centroids_per_class), 1, PAGECLS_MAX_K, 0, 0,
     "an integer from 1 to 256", NULL},
    {"sites_per_centroid", P_INT, OFF(sites_per_centroid), 0, PAGECLS_MAX_SITES_PER_CENTROID, 0, 0,
     "an integer from 0 to 100000 (0: always centroids_per_class)", NULL},
    {"max_pages_per_site", P_INT, OFF(max_pages_per_site), 1, 100000, 0, 0,
     "an integer from 1 to 100000", NULL},
    {"max_pages_to_decide", P_INT, OFF(max_pages_to_decide), 0, 100000, 0, 0,
     "an integer from 0 to 100000 (0: no budget)", NULL},
    {"min_pages_relevant", P_INT, OFF(min_pages_relevant), 0, 1000, 0, 0,
     "an integer from 0 to 1000 (0 or 1: no floor)", NULL},
    {"prior_target", P_DOUBLE, OFF(prior_target), 0, 1, 1, 1, "a number in (0, 1)", NULL},
    {"politeness_delay_ms", P_INT, OFF(politeness_delay_ms), 0, 600000, 0, 0,
     "an integer from 0 to 600000", NULL},
    {"concurrency", P_INT, OFF(concurrency), 1, 10000, 0, 0, "an integer from 1 to 10000", NULL},
    {"cv_folds", P_INT, OFF(cv_folds), 2, 100, 0, 0, "an integer from 2 to 100", NULL},
    {"seed", P_INT64, OFF(seed), 0, 9007199254740992.0, 0, 0, "an integer from 0 to 2^53", NULL},
    {"strategy", P_CHOICE, OFF(strategy), 0, 0, 0, 0, NULL, strategy_name},
    {"edge_weights", P_CHOICE, OFF(edge_weights), 0, 0, 0, 0, NULL, edges_weights_name},
    {"l_threshold", P_DOUBLE, OFF(l_threshold), 0, 1e9, 0, 0,
     "a number from 0 to 1000000000 (0: no LinkRank)", NULL},
    {"c", P_DOUBLE, OFF(c), 1, 1e6, 0, 0, "a number from 1 to 1000000", NULL},
    /* Budgets: far beyond any crawl (a billion pages, a year), yet bounded. */
    {"max_pages", P_INT64, OFF(max_pages), 0, 1e9, 0, 0,
     "an integer from 0 to 1000000000 (0: no limit)", NULL},
    {"max_relevant_sites", P_INT64, OFF(max_relevant_sites), 0, 1e9, 0, 0,
     "an integer from 0 to 1000000000 (0: no limit)", NULL},
    {"max_seconds", P_DOUBLE, OFF(max_seconds), 0, 31536000, 0, 0,
     "a number from 0 to 31536000 (a year; 0: no limit)", NULL},
    {"pprs_window", P_INT64, OFF(pprs_window), 1, 1e9, 0, 0, "an integer from 1 to 1000000000",
     NULL},
    {"prior", P_CHOICE, OFF(prior), 0, 0, 0, 0, NULL, prior_name},
    {"prior_sites", P_INT, OFF(prior_sites), 0, 1000000, 0, 0, "an integer from 0 to 1000000",
     NULL},
    {"pprs_limit", P_DOUBLE, OFF(pprs_limit), 0, 1e9, 0, 0,
     "a number from 0 to 1000000000 (0: no limit)", NULL},
    {"calibration", P_CHOICE, OFF(calibration), 0, 0, 0, 0, NULL, calibration_name},
    {"linkrank_links", P_CHOICE, OFF(linkrank_links), 0, 0, 0, 0, NULL, linkrank_name},
    {"deepen_sites", P_INT, OFF(deepen_sites), 0, 1000000, 0, 0,
     "an integer from 0 to 1000000 (0: no deeper reads)", NULL},
    {"linkrank_threshold", P_CHOICE, OFF(linkrank_threshold), 0, 0, 0, 0, NULL,
     linkrank_threshold_name},
    {"warc", P_BOOL, OFF(warc), 0, 1, 0, 0, "true or false", NULL},
    {"classifier", P_CHOICE, OFF(classifier), 0, 0, 0, 0, NULL, pagecls_kind_name},
    {"svm_c", P_DOUBLE, OFF(svm_c), 0, PAGECLS_MAX_SVM_C, 1, 0, "a number in (0, 1000000]", NULL},
    {"judge", P_CHOICE, OFF(judge), 0, 0, 0, 0, NULL, judge_name},
    {"judge_pages", P_INT64, OFF(judge_pages), 0, 1e9, 0, 0,
     "an integer from 0 to 1000000000 (0: only at the crawl's end)", NULL},
    {"judge_spy_pages", P_INT64, OFF(judge_spy_pages), 0, 1e9, 0, 0,
     "an integer from 0 to 1000000000 (0: spies only at the crawl's end)", NULL},
};
#undef OFF
#define N_PDEFS (sizeof pdefs / sizeof pdefs[0])

void jobspec_params_default(struct jobspec_params *p)
{
    struct pagecls_params pc;
    pagecls_params_default(&pc);
    memset(p, 0, sizeof *p); /* a parameter added without a line here is 0, not garbage */
    p->p_threshold = 0.9;
    p->train_pages_per_site = 25;
    p->centroids_per_class = (int)pc.centroids;
    p->sites_per_centroid = (int)pc.sites_per_centroid;
    p->max_pages_per_site = 25;
    p->max_pages_to_decide = 0; /* none; `sitescout eval` reads 0 as its own default, 7 */
    p->min_pages_relevant = 2;
    p->prior_target = 0.5;
    p->politeness_delay_ms = 1000;
    p->concurrency = 64;
    p->cv_folds = 10;
    p->seed = (int64_t)pc.seed;
    p->strategy = JOBSPEC_WEBSITE;
    p->edge_weights = EDGES_COMBINED; /* "always at least the second best" (paper §5.3) */
    p->l_threshold = 10;
    p->c = 1;
    p->max_pages = 0;
    p->max_relevant_sites = 0;
    p->max_seconds = 0;
    p->pprs_window = 1000;
    p->pprs_limit = 0;
    p->prior = 0; /* fixed: see docs/crawl.md for why not the paper's harvest rate */
    p->prior_sites = 10;
    p->calibration = 1;        /* platt: see classifier/calib.h and docs/classifier.md */
    p->linkrank_links = 0;     /* all: the paper's LinkRank */
    p->deepen_sites = 4096;    /* crawler/deepen.h: a few KB each */
    p->linkrank_threshold = 0; /* growing: see crawler/extcrawl.c, link_threshold */
    p->classifier = (int)pc.kind;
    p->svm_c = pc.svm_c;
    p->judge = 1;
    p->judge_pages = 500;
    p->judge_spy_pages = 4000;
}

/* A choice's value of this name, or -1. */
static int choice_index(const struct pdef *d, const char *name)
{
    for (size_t i = 0; d->choice(i); i++)
        if (strcmp(d->choice(i), name) == 0)
            return (int)i;
    return -1;
}

static size_t choice_count(const struct pdef *d)
{
    size_t n = 0;
    while (d->choice(n))
        n++;
    return n;
}

#define RANGE_MAX 512 /* bytes of a choice's "one of: ..." */

/* d's range for an error message: a choice's "one of: a, b, c" from its names (in b). */
static const char *pdef_range(const struct pdef *d, char *b, size_t size)
{
    if (d->type != P_CHOICE)
        return d->range;
    int n = snprintf(b, size, "one of:");
    for (size_t i = 0; d->choice(i) && n >= 0 && (size_t)n < size; i++)
        n += snprintf(b + n, size - (size_t)n, "%s %s", i ? "," : "", d->choice(i));
    return b;
}

const char *jobspec_choice_name(const char *param, int value)
{
    for (size_t i = 0; i < N_PDEFS; i++)
        if (pdefs[i].type == P_CHOICE && strcmp(pdefs[i].name, param) == 0 && value >= 0)
            return pdefs[i].choice((size_t)value);
    return NULL;
}

const char *jobspec_param_name(size_t i)
{
    return i < N_PDEFS ? pdefs[i].name : NULL;
}

int jobspec_strategy_pages(int strategy)
{
    const struct jobstrategy *s = strategy >= 0 ? jobstrategy_get((size_t)strategy) : NULL;
    return s && (s->flags & JOBSTRATEGY_PAGES);
}

int jobspec_strategy_homepages(int strategy)
{
    const struct jobstrategy *s = strategy >= 0 ? jobstrategy_get((size_t)strategy) : NULL;
    return s && (s->flags & JOBSTRATEGY_HOMEPAGES);
}

const char *jobspec_strategy_refuses(int strategy, int classifier)
{
    const struct jobstrategy *s = strategy >= 0 ? jobstrategy_get((size_t)strategy) : NULL;
    return s && classifier >= 0 && classifier < PAGECLS_N_KINDS && (s->refuses >> classifier & 1u)
               ? s->refuses_why
               : NULL;
}

/* jobspec_params_check; prefix goes before the field's name (a jobs file's entry). */
static enum err params_check(const struct jobspec_params *p, const char *prefix)
{
    const char *why = jobspec_strategy_refuses(p->strategy, p->classifier);
    if (!why)
        return ERR_OK;
    const struct jobstrategy *s = jobstrategy_get((size_t)p->strategy);
    char takes[RANGE_MAX] = "";
    for (size_t k = 0, n = 0; pagecls_kind_name(k) && n < sizeof takes; k++)
        if (!(s->refuses >> k & 1u))
            n += (size_t)snprintf(takes + n, sizeof takes - n, "%s%s", n ? " or " : "",
                                  pagecls_kind_name(k));
    return err_set(ERR_INVAL,
                   "%sparams.classifier: %s does not work with strategy %s: %s; %s "
                   "takes classifier %s",
                   prefix, pagecls_kind_name((size_t)p->classifier), s->name, why, s->name, takes);
}

enum err jobspec_params_check(const struct jobspec_params *p)
{
    return params_check(p, "");
}

static const struct pdef *pdef_find(const char *name)
{
    for (size_t i = 0; i < N_PDEFS; i++)
        if (strcmp(pdefs[i].name, name) == 0)
            return &pdefs[i];
    return NULL;
}

/* Store v (already known to be a finite number) if it is in range and of the right kind. */
static enum err pdef_store(const struct pdef *d, struct jobspec_params *p, double v,
                           const char *prefix)
{
    int integral = d->type != P_DOUBLE;
    double max = d->type == P_CHOICE ? (double)choice_count(d) - 1 : d->max;
    char range[RANGE_MAX];
    if (!isfinite(v) || v < d->min || v > max || (d->min_open && v == d->min) ||
        (d->max_open && v == max) || (integral && v != floor(v)))
        return err_set(ERR_INVAL, "%sparams.%s: must be %s", prefix, d->name,
                       pdef_range(d, range, sizeof range));
    char *field = (char *)p + d->off;
    switch (d->type) {
    case P_DOUBLE:
        memcpy(field, &v, sizeof v);
        break;
    case P_CHOICE:
    case P_BOOL:
    case P_INT: {
        int i = (int)v;
        memcpy(field, &i, sizeof i);
        break;
    }
    case P_INT64: {
        int64_t i = (int64_t)v;
        memcpy(field, &i, sizeof i);
        break;
    }
    }
    return ERR_OK;
}

enum err jobspec_params_set(struct jobspec_params *p, const char *key, const char *value)
{
    const struct pdef *d = pdef_find(key);
    if (!d)
        return err_set(ERR_NOTFOUND, "params.%s: unknown parameter", key);
    char range[RANGE_MAX];
    if (d->type == P_BOOL) {
        int i = strcmp(value, "true") == 0 ? 1 : strcmp(value, "false") == 0 ? 0 : -1;
        if (i < 0)
            return err_set(ERR_INVAL, "params.%s: must be %s, not '%s'", d->name, d->range, value);
        return pdef_store(d, p, i, "");
    }
    if (d->type == P_CHOICE) {
        int i = choice_index(d, value);
        if (i < 0)
            return err_set(ERR_INVAL, "params.%s: must be %s, not '%s'", d->name,
                           pdef_range(d, range, sizeof range), value);
        return pdef_store(d, p, i, "");
    }
    double v = 0;
    int64_t i = 0;
    int ok = d->type == P_INT64 ? num_parse_i64(value, INT64_MIN, INT64_MAX, &i)
                                : num_parse_double(value, -DBL_MAX, DBL_MAX, &v);
    if (ok && d->type == P_INT64)
        v = (double)i;
    if (!ok || pdef_store(d, p, v, "") != ERR_OK)
        return err_set(ERR_INVAL, "params.%s: must be %s, not '%s'", d->name, d->range, value);
    return ERR_OK;
}

enum err jobspec_params_json(const struct jobspec_params *p, struct buf *out)
{
    enum err e = buf_append_char(out, '{');
    for (size_t i = 0; !e && i < N_PDEFS; i++) {
        const struct pdef *d = &pdefs[i];
        const char *field = (const char *)p + d->off;
        const char *sep = i ? "," : "";
        if (d->type == P_DOUBLE) {
            double v;
            char text[NUM_DOUBLE_BUF];
            memcpy(&v, field, sizeof v);
            e = buf_appendf(out, "%s\"%s\":%s", sep, d->name, num_format_double(text, v));
        } else if (d->type == P_CHOICE) {
            int v;
            memcpy(&v, field, sizeof v);
            e = buf_appendf(out, "%s\"%s\":\"%s\"", sep, d->name, d->choice((size_t)v));
        } else if (d->type == P_INT) {
            int v;
            memcpy(&v, field, sizeof v);
            e = buf_appendf(out, "%s\"%s\":%d", sep, d->name, v);
        } else if (d->type == P_BOOL) {
            int v;
            memcpy(&v, field, sizeof v);
            e = buf_appendf(out, "%s\"%s\":%s", sep, d->name, v ? "true" : "false");
        } else {
            int64_t v;
            memcpy(&v, field, sizeof v);
            e = buf_appendf(out, "%s\"%s\":%" PRId64, sep, d->name, v);
        }
    }
    if (!e)
        e = buf_append_char(out, '}');
    return e;
}

/* ---- bodies ---- */

void jobspec_free(struct jobspec *j)
{
    if (!j)
        return;
    char **lists[] = {j->relevant_sites, j->other_sites, j->start_sites};
    size_t ns[] = {j->n_relevant, j->n_other, j->n_start};
    for (int l = 0; l < 3; l++) {
        for (size_t i = 0; i < ns[l]; i++)
            free(lists[l][i]);
        free(lists[l]);
    }
    free(j->topic);
    free(j);
}

/* Where a site was first seen, for the duplicate message. */
struct seen_at {
    const char *list;
    size_t index;
};

/*
 * A website URL is taken as written or refused: url_normalize repairs what browsers
 * repair (drops CR/LF, encodes spaces), which would turn "http://a.com/x\r\n' OR 1=1"
 * into a.com's homepage without a word. The message shows no raw byte of the URL.
 */
static enum err check_url_chars(json_t *v, const char *prefix, const char *name, size_t i)
{
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    const char *bad = strlen(s) != n ? s + strlen(s) : url_find_invalid(s);
    if (!bad)
        return ERR_OK;
    unsigned char c = (unsigned char)*bad;
    char what[48];
    if (c == '\0')
        snprintf(what, sizeof what, "a NUL");
    else if (c == ' ')
        snprintf(what, sizeof what, "a space");
    else if (c == '%')
        snprintf(what, sizeof what, "a '%%' that starts no %%XX escape");
    else if (c < 0x20 || c == 0x7f)
        snprintf(what, sizeof what, "a control character (0x%02x)", c);
    else if (c > 0x7f)
        snprintf(what, sizeof what, "a byte outside ASCII (0x%02x)", c);
    else
        snprintf(what, sizeof what, "'%c'", c);
    return err_set(ERR_INVAL,
                   "%s%s[%zu]: not a valid URL: byte %zu is %s, which a URL may not hold "
                   "(percent-encode it)",
                   prefix, name, i, (size_t)(bad - s), what);
}

/*
 * Read the array `name` of obj into homepages. `seen` maps host -> struct seen_at *
 * (from `slots`, which has room for every site of every list).
 */
static enum err parse_sites(json_t *obj, const char *name, int required, const char *prefix,
                            struct strmap *seen, struct seen_at *slots, size_t *n_slots,
                            char ***out, size_t *n_out)
{
    json_t *arr = json_object_get(obj, name);
    if (!arr) {
        if (required)
            return err_set(ERR_INVAL, "%s%s: missing (an array of website URLs)", prefix, name);
        return ERR_OK;
    }
    if (!json_is_array(arr))
        return err_set(ERR_INVAL, "%s%s: must be an array of website URLs", prefix, name);
    size_t n = json_array_size(arr);
    if (required && n == 0)
        return err_set(ERR_INVAL, "%s%s: must list at least one website", prefix, name);
    if (n > JOBSPEC_MAX_SITES)
        return err_set(ERR_TOOBIG, "%s%s: more than %d websites", prefix, name, JOBSPEC_MAX_SITES);
    char **sites = calloc(n ? n : 1, sizeof *sites);
    if (!sites)
        return err_set(ERR_NOMEM, "out of memory");
    *out = sites;
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_string(v))
            return err_set(ERR_INVAL, "%s%s[%zu]: must be a string (a website URL)", prefix, name,
                           i);
        enum err e = check_url_chars(v, prefix, name, i);
        if (e)
            return e;
        char *norm = NULL;
        if (url_normalize(json_string_value(v), &norm) != ERR_OK)
            return err_set(ERR_INVAL, "%s%s[%zu]: '%.200s' is not an http(s) URL (%s)", prefix,
                           name, i, json_string_value(v), err_msg());
        e = url_homepage(norm, &sites[i]);
        free(norm);
        if (e)
            return e;
        *n_out = i + 1;
        size_t hn;
        const char *host = url_host_ref(sites[i], &hn);
        const struct seen_at *prev = strmap_get(seen, host, hn);
        if (prev)
            return err_set(ERR_INVAL, "%s%s[%zu]: website %.*s is already in %s[%zu]", prefix, name,
                           i, (int)hn, host, prev->list, prev->index);
        slots[*n_slots] = (struct seen_at){name, i};
        if ((e = strmap_put(seen, host, hn, &slots[*n_slots])))
            return e;
        (*n_slots)++;
    }
    return ERR_OK;
}

static size_t array_len(json_t *obj, const char *name)
{
    json_t *a = json_object_get(obj, name);
    return json_is_array(a) ? json_array_size(a) : 0;
}

void jobspec_free_sites(char **sites, size_t n)
{
    for (size_t i = 0; sites && i < n; i++)
        free(sites[i]);
    free(sites);
}

enum err jobspec_parse_seeds(const char *json, size_t len, char ***sites, size_t *n)
{
    *sites = NULL;
    *n = 0;
    json_error_t jerr;
    json_t *obj = json_loadb(json, len, 0, &jerr);
    if (!obj)
        return err_set(ERR_PARSE, "not JSON: %s (line %d)", jerr.text, jerr.line);
    enum err e = ERR_OK;
    size_t members = json_is_object(obj) ? json_object_size(obj) : 0;
    size_t count = members ? array_len(obj, "start_sites") : 0;
    struct strmap seen;
    strmap_init(&seen);
    struct seen_at *slots = calloc(count ? count : 1, sizeof *slots);
    size_t n_slots = 0;
    if (!slots)
        e = err_set(ERR_NOMEM, "out of memory");
    else if (members != 1 || !json_object_get(obj, "start_sites"))
        e = err_set(ERR_INVAL, "start_sites: the body is {\"start_sites\": [website URL, ...]}");
    else
        e = parse_sites(obj, "start_sites", 1, "", &seen, slots, &n_slots, sites, n);
    if (e) {
        jobspec_free_sites(*sites, *n);
        *sites = NULL;
        *n = 0;
    }
    strmap_release(&seen);
    free(slots);
    json_decref(obj);
    return e;
}

const char *jobspec_site_list(const struct jobspec *j, const char *homepage)
{
    char *const *lists[] = {j->relevant_sites, j->other_sites, j->start_sites};
    const size_t ns[] = {j->n_relevant, j->n_other, j->n_start};
    static const char *const names[] = {"relevant_sites", "other_sites", "start_sites"};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < ns[l]; i++)
            if (strcmp(lists[l][i], homepage) == 0)
                return names[l];
    return NULL;
}

static enum err parse_params(json_t *obj, const char *prefix, struct jobspec_params *p)
{
    json_t *params = json_object_get(obj, "params");
    if (!params || json_is_null(params))
        return ERR_OK;
    if (!json_is_object(params))
        return err_set(ERR_INVAL, "%sparams: must be an object", prefix);
    const char *key;
    json_t *v;
    json_object_foreach(params, key, v)
    {
        const struct pdef *d = pdef_find(key);
        if (!d)
            return err_set(ERR_INVAL, "%sparams.%s: unknown parameter", prefix, key);
        if (d->type == P_BOOL) {
            if (!json_is_boolean(v))
                return err_set(ERR_INVAL, "%sparams.%s: must be %s", prefix, key, d->range);
            enum err e = pdef_store(d, p, json_is_true(v), prefix);
            if (e)
                return e;
            continue;
        }
        int is_choice = d->type == P_CHOICE;
        int choice = is_choice && json_is_string(v) ? choice_index(d, json_string_value(v)) : -1;
        char range[RANGE_MAX];
        if ((is_choice && choice < 0) || (!is_choice && !json_is_number(v)))
            return err_set(ERR_INVAL, "%sparams.%s: must be %s", prefix, key,
                           pdef_range(d, range, sizeof range));
        enum err e = pdef_store(d, p, is_choice ? choice : json_number_value(v), prefix);
        if (e)
            return e;
    }
    return ERR_OK;
}

static const char *const known_members[] = {"topic", "relevant_sites", "other_sites", "start_sites",
                                            "params"};

/* prefix goes before field names ("FILE: [\"topic\"]."), what names the whole body. */
static enum err parse_body(json_t *obj, const char *prefix, const char *what, struct jobspec **out)
{
    *out = NULL;
    if (!json_is_object(obj))
        return err_set(ERR_INVAL, "%s: must be a JSON object (a job body)", what);
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        int known = 0;
        for (size_t i = 0; i < sizeof known_members / sizeof known_members[0]; i++)
            known |= strcmp(key, known_members[i]) == 0;
        if (!known)
            return err_set(ERR_INVAL,
                           "%s%s: unknown member (a job body has topic, relevant_sites, "
                           "other_sites, start_sites, params)",
                           prefix, key);
    }
    json_t *topic = json_object_get(obj, "topic");
    if (!topic)
        return err_set(ERR_INVAL, "%stopic: missing (a non-empty string)", prefix);
    if (!json_is_string(topic) || json_string_length(topic) == 0 ||
        json_string_length(topic) > JOBSPEC_MAX_TOPIC ||
        strlen(json_string_value(topic)) != json_string_length(topic))
        return err_set(ERR_INVAL, "%stopic: must be a non-empty string of at most %d bytes", prefix,
                       JOBSPEC_MAX_TOPIC);

    struct jobspec *j = calloc(1, sizeof *j);
    size_t total = array_len(obj, "relevant_sites") + array_len(obj, "other_sites") +
                   array_len(obj, "start_sites");
    struct seen_at *slots = malloc((total ? total : 1) * sizeof *slots);
    size_t n_slots = 0;
    struct strmap seen;
    strmap_init(&seen);
    enum err e = ERR_OK;
    if (!j || !slots || !(j->topic = strdup(json_string_value(topic)))) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    jobspec_params_default(&j->params);
    if ((e = parse_sites(obj, "relevant_sites", 1, prefix, &seen, slots, &n_slots,
                         &j->relevant_sites, &j->n_relevant)) ||
        (e = parse_sites(obj, "other_sites", 1, prefix, &seen, slots, &n_slots, &j->other_sites,
                         &j->n_other)) ||
        (e = parse_sites(obj, "start_sites", 0, prefix, &seen, slots, &n_slots, &j->start_sites,
                         &j->n_start)) ||
        (e = parse_params(obj, prefix, &j->params)) || (e = params_check(&j->params, prefix)))
        goto out;
    /* Training cross-validates by website: each class needs two at least (checked
     * last, so that a body's other mistakes are named first). */
    if (j->n_relevant < JOBSPEC_MIN_SITES || j->n_other < JOBSPEC_MIN_SITES) {
        e = err_set(ERR_INVAL,
                    "%s%s: must list at least %d websites (training cross-validates by "
                    "website; %zu given)",
                    prefix, j->n_relevant < JOBSPEC_MIN_SITES ? "relevant_sites" : "other_sites",
                    JOBSPEC_MIN_SITES,
                    j->n_relevant < JOBSPEC_MIN_SITES ? j->n_relevant : j->n_other);
        goto out;
    }
    *out = j;
    j = NULL;
out:
    strmap_release(&seen);
    free(slots);
    jobspec_free(j);
    return e;
}

static enum err load_json(const char *json, size_t len, json_t **out)
{
    json_error_t jerr;
    *out = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!*out)
        return err_set(ERR_PARSE, "invalid JSON at line %d column %d: %s", jerr.line, jerr.column,
                       jerr.text);
    return ERR_OK;
}

enum err jobspec_parse(const char *json, size_t len, struct jobspec **out)
{
    *out = NULL;
    if (len > JOBSPEC_MAX_BODY)
        return err_set(ERR_TOOBIG, "job body over %u bytes", JOBSPEC_MAX_BODY);
    json_t *root;
    enum err e = load_json(json, len, &root);
    if (e)
        return e;
    e = parse_body(root, "", "job body", out);
    json_decref(root);
    return e;
}

static enum err read_file(const char *path, struct buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(ERR_IO, "cannot open %s: %s", path, strerror(errno));
    enum err e = ERR_OK;
    char chunk[65536];
    size_t n;
    while (!e && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        e = buf_append(b, chunk, n);
    if (!e && ferror(f))
        e = err_set(ERR_IO, "cannot read %s: %s", path, strerror(errno));
    else if (e == ERR_TOOBIG)
        e = err_set(ERR_TOOBIG, "%s: over %u bytes", path, JOBSPEC_MAX_BODY);
    fclose(f);
    return e;
}

enum err jobspec_select(const char *json, size_t len, const char *name, const char *topic,
                        struct jobspec **out)
{
    *out = NULL;
    json_t *root = NULL;
    enum err e = ERR_OK;
    if (len > JOBSPEC_MAX_BODY)
        return err_set(ERR_TOOBIG, "%s: over %u bytes", name, JOBSPEC_MAX_BODY);
    if ((e = load_json(json, len, &root)))
        return err_set(e, "%s: %s", name, err_msg());
    if (json_is_object(root) && json_object_get(root, "topic")) {
        /* One job body. */
        char prefix[4200];
        snprintf(prefix, sizeof prefix, "%.4000s: ", name);
        if ((e = parse_body(root, prefix, name, out)))
            goto out;
        if (topic && strcmp(topic, (*out)->topic) != 0) {
            e = err_set(ERR_NOTFOUND, "%s holds a job for topic '%s', not '%s'", name,
                        (*out)->topic, topic);
            jobspec_free(*out);
            *out = NULL;
        }
        goto out;
    }
    if (!json_is_object(root) || json_object_size(root) == 0) {
        e = err_set(ERR_INVAL,
                    "%s: neither a job body nor a non-empty object of job bodies keyed by topic",
                    name);
        goto out;
    }
    json_t *entry = NULL;
    if (topic) {
        entry = json_object_get(root, topic);
    } else if (json_object_size(root) == 1) {
        void *it = json_object_iter(root);
        topic = json_object_iter_key(it);
        entry = json_object_iter_value(it);
    }
    if (!entry) {
        struct buf names;
        buf_init(&names, 4096);
        const char *key;
        json_t *v;
        json_object_foreach(root, key, v)
        {
            if (buf_appendf(&names, "%s%s", names.len ? ", " : "", key) != ERR_OK)
                break;
        }
        e = err_set(ERR_NOTFOUND, "%s: %s (topics there: %s)", name,
                    topic ? "no job for this topic" : "several jobs: pick one by topic",
                    buf_str(&names));
        buf_release(&names);
        goto out;
    }
    char what[4400], prefix[4410];
    snprintf(what, sizeof what, "%.4000s: [\"%.*s\"]", name, JOBSPEC_MAX_TOPIC, topic);
    snprintf(prefix, sizeof prefix, "%s.", what);
    e = parse_body(entry, prefix, what, out);
out:
    json_decref(root);
    return e;
}

enum err jobspec_load(const char *path, const char *topic, struct jobspec **out)
{
    *out = NULL;
    struct buf b;
    buf_init(&b, JOBSPEC_MAX_BODY);
    enum err e = read_file(path, &b);
    if (!e)
        e = jobspec_select(buf_str(&b), b.len, path, topic, out);
    buf_release(&b);
    return e;
}

/* ---- canonical body ---- */

static json_t *sites_json(char *const *sites, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(sites[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

enum err jobspec_to_json(const struct jobspec *j, struct buf *out)
{
    struct buf params;
    buf_init(&params, 0);
    enum err e = jobspec_params_json(&j->params, &params);
    json_t *body = NULL, *pj = NULL;
    if (!e) {
        json_error_t jerr;
        pj = json_loadb(params.data, params.len, 0, &jerr);
        /* json_pack's "o" steals the references of the arrays and of pj. */
        body = pj ? json_pack("{s:s, s:o, s:o, s:o, s:o}", "topic", j->topic, "relevant_sites",
                              sites_json(j->relevant_sites, j->n_relevant), "other_sites",
                              sites_json(j->other_sites, j->n_other), "start_sites",
                              sites_json(j->start_sites, j->n_start), "params", pj)
                  : NULL;
        if (!body)
            e = err_set(ERR_NOMEM, "cannot build the job body");
    }
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    if (!e && !text)
        e = err_set(ERR_NOMEM, "out of memory");
    if (!e)
        e = buf_append_str(out, text);
    free(text);
    json_decref(body);
    buf_release(&params);
    return e;
}

void jobspec_pagecls_params(const struct jobspec_params *jp, struct pagecls_params *out)
{
    pagecls_params_default(out);
    out->centroids = (uint32_t)jp->centroids_per_class;
    out->sites_per_centroid = (uint32_t)jp->sites_per_centroid;
    out->seed = (uint64_t)jp->seed;
    out->calibrate = jp->calibration == 1;
    out->kind = (uint32_t)jp->classifier;
    out->svm_c = jp->svm_c;
}
