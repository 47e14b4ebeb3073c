/* A job's topic as its user shapes it while it runs (jobtopic.h). */
#include "job/jobtopic.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/seed.h"
#include "common/grow.h"
#include "crawler/url.h"
#include "job/jobspec.h"
#include "store/crawlstore.h"
#include "store/labelstore.h"
#include "store/store.h"

/* job's body, parsed. */
static enum err job_body(struct store *s, int64_t job, struct jobspec **js)
{
    struct crawlstore_job j;
    enum err e = crawlstore_job_get(s, job, &j);
    if (e)
        return e;
    e = jobspec_parse(j.body_json, strlen(j.body_json), js);
    crawlstore_job_release(&j);
    return e;
}

/* The seeds' hosts, the new ones' homepages as a JSON array; a seed that is one of the
 * job's examples is refused. */
static enum err seeds_check(const struct jobspec *js, char **sites, size_t n, char **hosts,
                            char **json)
{
    json_t *fresh = json_array();
    enum err e = fresh ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; !e && i < n; i++) {
        const char *list = jobspec_site_list(js, sites[i]);
        if (list && strcmp(list, "start_sites") != 0)
            e = err_set(ERR_INVAL, "start_sites[%zu]: %s is one of the job's examples (%s)", i,
                        sites[i], list);
        if (!e)
            e = url_host(sites[i], &hosts[i]);
        if (!e && !list && json_array_append_new(fresh, json_string(sites[i])) != 0)
            e = err_set(ERR_NOMEM, "out of memory");
    }
    if (!e && !(*json = json_dumps(fresh, JSON_COMPACT)))
        e = err_set(ERR_NOMEM, "out of memory");
    json_decref(fresh);
    return e;
}

enum err jobtopic_add_seeds(struct store *s, int64_t job, const char *body, size_t len,
                            struct jobtopic_seed **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    char **sites = NULL, **hosts = NULL, *fresh = NULL;
    size_t n_sites = 0;
    struct jobspec *js = NULL;
    struct store_rows *r = NULL;
    enum err e = jobspec_parse_seeds(body, len, &sites, &n_sites);
    if (!e)
        e = job_body(s, job, &js);
    if (!e && !(hosts = calloc(n_sites, sizeof *hosts)))
        e = err_set(ERR_NOMEM, "out of memory");
    if (!e)
        e = seeds_check(js, sites, n_sites, hosts, &fresh);
    if (!e)
        e = labelstore_add_start_sites(s, job, hosts, sites, n_sites, SEED_START_RANK, fresh, &r);
    int rows = r ? store_rows_count(r) : 0;
    if (!e && rows && !(*out = calloc((size_t)rows, sizeof **out)))
        e = err_set(ERR_NOMEM, "out of memory");
    for (int i = 0; !e && i < rows; i++) {
        struct jobtopic_seed *sd = &(*out)[(*n)++];
        snprintf(sd->host, sizeof sd->host, "%s", store_rows_get(r, i, 0));
        snprintf(sd->role, sizeof sd->role, "%s", store_rows_get(r, i, 1));
        snprintf(sd->state, sizeof sd->state, "%s", store_rows_get(r, i, 2));
    }
    store_rows_free(r);
    jobspec_free_sites(hosts, hosts ? n_sites : 0);
    jobspec_free_sites(sites, n_sites);
    jobspec_free(js);
    free(fresh);
    return e;
}

/* Is homepage one of the labelled websites r (labelstore_list's rows)? */
static int labelled(const struct store_rows *r, const char *homepage)
{
    for (int j = 0; j < store_rows_count(r); j++)
        if (store_rows_get(r, j, 5) && strcmp(store_rows_get(r, j, 5), homepage) == 0)
            return 1;
    return 0;
}

/* list (n) with the homepages labelled `want`, that no list of js holds, appended. */
static enum err with_labels(const struct jobspec *js, const struct store_rows *r, int want,
                            char ***list, size_t *n)
{
    int rows = store_rows_count(r);
    size_t cap = *n;
    enum err e = grow_array((void **)list, &cap, *n + (size_t)rows + 1, sizeof **list);
    if (e)
        return e;
    char **grown = *list;
    for (int i = 0; i < rows; i++) {
        const char *home = store_rows_get(r, i, 5);
        if ((strcmp(store_rows_get(r, i, 1), "t") == 0) != want || !home)
            continue;
        const char *in = jobspec_site_list(js, home);
        if (in && strcmp(in, "start_sites") != 0)
            continue;
        if (!(grown[*n] = strdup(home)))
            return err_set(ERR_NOMEM, "out of memory");
        (*n)++;
    }
    return ERR_OK;
}

enum err jobtopic_body(struct store *s, int64_t job, struct buf *out)
{
    struct jobspec *js = NULL;
    struct store_rows *r = NULL;
    enum err e = job_body(s, job, &js);
    if (!e)
        e = labelstore_list(s, job, &r);
    /* The start websites that were labelled are examples now. */
    size_t kept = 0;
    for (size_t i = 0; !e && i < js->n_start; i++) {
        if (labelled(r, js->start_sites[i]))
            free(js->start_sites[i]);
        else
            js->start_sites[kept++] = js->start_sites[i];
    }
    if (!e)
        js->n_start = kept;
    if (!e)
        e = with_labels(js, r, 1, &js->relevant_sites, &js->n_relevant);
    if (!e)
        e = with_labels(js, r, 0, &js->other_sites, &js->n_other);
    if (!e)
        e = jobspec_to_json(js, out);
    store_rows_free(r);
    jobspec_free(js);
    return e;
}
