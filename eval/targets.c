/* Targets for an experiment's figures, from the user's file (`name op value` lines). */
#include "eval/targets.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/num.h"
#include "eval/reportfigs.h"

static const char *const op_names[] = {"<=", ">=", "<", ">"};

const char *targets_op_name(enum targets_op op)
{
    return op >= TARGETS_LE && op <= TARGETS_GT ? op_names[op] : "?";
}

const char *targets_verdict_name(enum targets_verdict v)
{
    switch (v) {
    case TARGETS_HOLDS:
        return "holds";
    case TARGETS_FAILS:
        return "does not hold";
    default:
        return "cannot be decided";
    }
}

enum targets_verdict targets_check(const struct targets_item *it, double measured)
{
    if (isnan(measured))
        return TARGETS_UNDECIDED;
    int ok = 0;
    switch (it->op) {
    case TARGETS_LE:
        ok = measured <= it->value;
        break;
    case TARGETS_GE:
        ok = measured >= it->value;
        break;
    case TARGETS_LT:
        ok = measured < it->value;
        break;
    case TARGETS_GT:
        ok = measured > it->value;
        break;
    }
    return ok ? TARGETS_HOLDS : TARGETS_FAILS;
}

/* "pprs_ratio, precision_gain, ..." for the error of an unknown figure. */
static enum err figure_list(struct buf *b)
{
    enum err e = ERR_OK;
    for (size_t i = 0; i < REPORTFIGS_NAMED && !e; i++)
        e = buf_appendf(b, "%s%s", i ? ", " : "", reportfigs_name(i));
    return e;
}

static enum err bad_figure(const char *path, unsigned line, const char *name)
{
    struct buf names;
    buf_init(&names, 0);
    enum err e = figure_list(&names);
    if (!e)
        e = err_set(ERR_PARSE, "%s:%u: no figure '%s' (figures: %s)", path, line, name,
                    buf_str(&names));
    buf_release(&names);
    return e;
}

/* One line that is not blank or a comment: FIGURE OP VALUE. */
static enum err parse_line(const char *path, unsigned line, char *text, struct targets_item *it)
{
    static const char *const ws = " \t\r\n";
    char *save = NULL;
    char *name = strtok_r(text, ws, &save), *op = strtok_r(NULL, ws, &save),
         *value = strtok_r(NULL, ws, &save);
    if (!name || !op || !value || strtok_r(NULL, ws, &save))
        return err_set(ERR_PARSE, "%s:%u: want FIGURE OP VALUE, e.g. 'pprs_ratio <= 0.6'", path,
                       line);
    int fig = reportfigs_find(name);
    if (fig < 0)
        return bad_figure(path, line, name);
    it->figure = (size_t)fig;
    size_t k = 0;
    while (k < sizeof op_names / sizeof op_names[0] && strcmp(op, op_names[k]) != 0)
        k++;
    if (k == sizeof op_names / sizeof op_names[0])
        return err_set(ERR_PARSE, "%s:%u: '%s' is not one of <= >= < >", path, line, op);
    it->op = (enum targets_op)k;
    if (!num_parse_double(value, -DBL_MAX, DBL_MAX, &it->value) ||
        strlen(value) >= sizeof it->value_text)
        return err_set(ERR_PARSE, "%s:%u: '%s' is not a number", path, line, value);
    snprintf(it->value_text, sizeof it->value_text, "%s", value);
    return ERR_OK;
}

static enum err read_lines(FILE *f, struct targets *t)
{
    char text[TARGETS_LINE_MAX + 2];
    unsigned line = 0;
    while (fgets(text, sizeof text, f)) {
        line++;
        size_t len = strlen(text);
        if (len > TARGETS_LINE_MAX && text[len - 1] != '\n')
            return err_set(ERR_PARSE, "%s:%u: line longer than %d bytes", t->path, line,
                           TARGETS_LINE_MAX);
        const char *p = text + strspn(text, " \t\r\n");
        if (!*p || *p == '#')
            continue;
        if (t->n == TARGETS_MAX)
            return err_set(ERR_PARSE, "%s:%u: more than %d targets", t->path, line, TARGETS_MAX);
        enum err e = parse_line(t->path, line, text, &t->items[t->n]);
        if (e)
            return e;
        t->n++;
    }
    if (ferror(f))
        return err_set(ERR_IO, "cannot read %s: %s", t->path, strerror(errno));
    return ERR_OK;
}

enum err targets_load(const char *path, struct targets **out)
{
    *out = NULL;
    struct targets *t = calloc(1, sizeof *t);
    if (!t || !(t->path = strdup(path))) {
        free(t);
        return err_set(ERR_NOMEM, "out of memory");
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        enum err e = err_set(ERR_IO, "cannot read %s: %s", path, strerror(errno));
        targets_free(t);
        return e;
    }
    enum err e = read_lines(f, t);
    fclose(f);
    if (e) {
        targets_free(t);
        return e;
    }
    *out = t;
    return ERR_OK;
}

void targets_free(struct targets *t)
{
    if (!t)
        return;
    free(t->path);
    free(t);
}
