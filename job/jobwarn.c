/* Warnings about a job's examples (jobwarn.h). */
#include "job/jobwarn.h"

#include <stdio.h>

#include "job/jobspec.h"

/*
 * One row per warning: its code (stable, for scripts), the count it is about and the
 * least that needs no warning, and its message: "only N KIND example websites: ADVICE".
 */
struct warning {
    const char *code;
    size_t (*count)(const struct jobspec *js);
    size_t below;
    const char *kind, *advice;
};

static size_t n_relevant(const struct jobspec *js)
{
    return js->n_relevant;
}

static size_t n_other(const struct jobspec *js)
{
    return js->n_other;
}

static const struct warning warnings[] = {
    {"few_relevant_examples", n_relevant, JOBWARN_FEW_RELEVANT, "relevant",
     "with few examples the crawl finds less of the topic and "
     "can mistake a neighbouring topic for it (measured on 23 topics with 5 relevant and 5 "
     "other examples: precision 0.98, recall 0.86; with 2 relevant examples on the demo "
     "web, precision 0.45, recall 0.4). Add relevant websites: with 25-30 of them and 100 "
     "others, precision was 0.99 and recall 0.92. Label the wrong verdicts you see: the job "
     "learns from them."},
    {"few_other_examples", n_other, JOBWARN_FEW_OTHER, "other",
     "the model knows what is not the topic only from these. "
     "Add websites that are not on the topic, above all ones on neighbouring topics that a "
     "crawl from your start sites would meet (about 100)."},
};

static void message(const struct warning *w, size_t count, char *out, size_t n)
{
    snprintf(out, n, "only %zu %s example websites: %s", count, w->kind, w->advice);
}

/* Append s to out as a JSON string (the messages are ASCII; quotes and backslashes
 * escaped all the same). */
static enum err append_string(struct buf *out, const char *s)
{
    enum err e = buf_append_char(out, '"');
    for (; !e && *s; s++)
        e = (*s == '"' || *s == '\\') ? buf_appendf(out, "\\%c", *s) : buf_append_char(out, *s);
    return e ? e : buf_append_char(out, '"');
}

enum err jobwarn_json(const struct jobspec *js, struct buf *out, size_t *n)
{
    size_t k = 0;
    enum err e = buf_append_char(out, '[');
    for (size_t i = 0; !e && i < sizeof warnings / sizeof warnings[0]; i++) {
        const struct warning *w = &warnings[i];
        size_t count = w->count(js);
        if (count >= w->below)
            continue;
        char msg[512];
        message(w, count, msg, sizeof msg);
        e = buf_appendf(out, "%s{\"code\":\"%s\",\"message\":", k++ ? "," : "", w->code);
        if (!e)
            e = append_string(out, msg);
        if (!e)
            e = buf_append_char(out, '}');
    }
    if (!e)
        e = buf_append_char(out, ']');
    if (n)
        *n = k;
    return e;
}

void jobwarn_print(const struct jobspec *js, void (*line)(void *ctx, const char *text), void *ctx)
{
    for (size_t i = 0; i < sizeof warnings / sizeof warnings[0]; i++) {
        const struct warning *w = &warnings[i];
        size_t count = w->count(js);
        if (count >= w->below)
            continue;
        char msg[512], text[600];
        message(w, count, msg, sizeof msg);
        snprintf(text, sizeof text, "warning: %s", msg);
        line(ctx, text);
    }
}
