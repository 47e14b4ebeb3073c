/* The jobs of `sitescout eval --job`: one topic's job with its overrides, and the topics. */
#include "eval/evaljob.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* jansson references: only json_decref of the root here; every other value is borrowed. */
#include <jansson.h>

/* An inline job is JSON text: its first non-blank character opens an object. */
static int is_inline(const char *arg)
{
    while (*arg == ' ' || *arg == '\t' || *arg == '\n' || *arg == '\r')
        arg++;
    return *arg == '{';
}

enum err evaljob_load(const char *arg, const char *topic, const char *const *sets, size_t n_sets,
                      struct jobspec **out, int *bad_set)
{
    *bad_set = 0;
    enum err e = is_inline(arg) ? jobspec_select(arg, strlen(arg), "--job", topic, out)
                                : jobspec_load(arg, topic, out);
    if (e)
        return e;
    /* The paper's verdicts, the examination's, unless --judge / --set judge= says otherwise:
     * Table 2 stays the paper's whatever a job body asks of its crawls. */
    (*out)->params.judge = 0;
    for (size_t i = 0; i < n_sets; i++) {
        char key[128];
        const char *eq = strchr(sets[i], '=');
        if (!eq) {
            e = err_set(ERR_INVAL, "--set wants KEY=VALUE, not '%s'", sets[i]);
        } else {
            snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
            if (jobspec_params_set(&(*out)->params, key, eq + 1) != ERR_OK)
                e = err_set(ERR_INVAL, "--set: %s", err_msg());
        }
        if (e) {
            *bad_set = 1;
            jobspec_free(*out);
            *out = NULL;
            return e;
        }
    }
    return ERR_OK;
}

/* ARG as parsed JSON, with the cap jobspec_load has (checked before reading the file). */
static enum err load_root(const char *arg, json_t **root)
{
    json_error_t jerr;
    const char *name = arg;
    if (is_inline(arg)) {
        name = "--job";
        if (strlen(arg) > JOBSPEC_MAX_BODY)
            return err_set(ERR_TOOBIG, "--job: over %u bytes", JOBSPEC_MAX_BODY);
        *root = json_loads(arg, JSON_REJECT_DUPLICATES, &jerr);
    } else {
        struct stat st;
        if (stat(arg, &st) != 0)
            return err_set(ERR_IO, "cannot open %s: %s", arg, strerror(errno));
        if (st.st_size > (off_t)JOBSPEC_MAX_BODY)
            return err_set(ERR_TOOBIG, "%s: over %u bytes", arg, JOBSPEC_MAX_BODY);
        *root = json_load_file(arg, JSON_REJECT_DUPLICATES, &jerr);
    }
    if (!*root)
        return err_set(ERR_PARSE, "%s: invalid JSON at line %d column %d: %s", name, jerr.line,
                       jerr.column, jerr.text);
    return ERR_OK;
}

enum err evaljob_topics(const char *arg, char ***topics, size_t *n)
{
    *topics = NULL;
    *n = 0;
    json_t *root = NULL;
    enum err e = load_root(arg, &root);
    if (e)
        return e;
    json_t *single = json_object_get(root, "topic");
    size_t cap = single ? 1 : json_object_size(root);
    if (!json_is_object(root) || cap == 0 || (single && !json_is_string(single))) {
        e = err_set(ERR_INVAL,
                    "%s: neither a job body nor a non-empty object of job bodies "
                    "keyed by topic",
                    is_inline(arg) ? "--job" : arg);
        goto out;
    }
    char **t = calloc(cap, sizeof *t);
    if (!t) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    *topics = t;
    if (single) {
        t[(*n)++] = strdup(json_string_value(single));
    } else {
        const char *key;
        json_t *v;
        json_object_foreach(root, key, v)
        {
            t[(*n)++] = strdup(key);
        }
    }
    for (size_t i = 0; i < *n; i++)
        if (!t[i])
            e = err_set(ERR_NOMEM, "out of memory");
    if (e) {
        evaljob_topics_free(t, *n);
        *topics = NULL;
        *n = 0;
    }
out:
    json_decref(root);
    return e;
}

void evaljob_topics_free(char **topics, size_t n)
{
    if (!topics)
        return;
    for (size_t i = 0; i < n; i++)
        free(topics[i]);
    free(topics);
}
