/* The subcommands' option parser: matches argv against a command's table of options. */
#include "cli/opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/num.h"

static int parse_choice(const char *const *choices, const char *arg, int *out)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(choices[i], arg) == 0) {
            *out = i;
            return 1;
        }
    return 0;
}

static int append(const char *cmd, const struct opts_entry *e, const char *value)
{
    struct opts_list *l = e->dest;
    if (l->n == l->max)
        return cli_usage_error(cmd, "%s", e->full);
    l->items[l->n++] = value;
    return CLI_OK;
}

/* Store one option's value; CLI_USAGE (after the error line) if it is not one. */
static int opts_store_value(const char *cmd, const struct opts_entry *e, const char *value)
{
    int64_t ll;
    int ok = 1;
    switch (e->kind) {
    case OPTS_KIND_STRING:
        *(const char **)e->dest = value;
        break;
    case OPTS_KIND_FLAG:
        *(int *)e->dest = 1;
        break;
    case OPTS_KIND_INT:
        if ((ok = num_parse_i64(value, e->lo, e->hi, &ll)))
            *(int *)e->dest = (int)ll;
        break;
    case OPTS_KIND_INT64:
        if ((ok = num_parse_i64(value, e->lo, e->hi, &ll)))
            *(int64_t *)e->dest = ll;
        break;
    case OPTS_KIND_UINT64:
        ok = num_parse_u64(value, e->dest);
        break;
    case OPTS_KIND_DOUBLE:
        ok = num_parse_double(value, e->dlo, e->dhi, e->dest);
        break;
    case OPTS_KIND_CHOICE:
        ok = parse_choice(e->choices, value, e->dest);
        break;
    case OPTS_KIND_KEYVALUE:
        if (!(ok = strchr(value, '=') != NULL))
            break;
        /* fall through */
    case OPTS_KIND_LIST:
        return append(cmd, e, value);
    case OPTS_KIND_CALL:
        return e->call(e->dest, value);
    }
    if (!ok)
        return cli_usage_error(cmd, "--%s wants %s, not '%s'", e->name, e->wants, value);
    return CLI_OK;
}

/* The entry "--name" (of length len) means: an exact name, else a unique prefix; or NULL. */
static const struct opts_entry *find(const struct opts_parser *p, const char *name, size_t len)
{
    const struct opts_entry *found = NULL;
    int prefixes = 0;
    if (len == 0) /* "--=x": no name at all, not a prefix of every one */
        return NULL;
    for (size_t i = 0; i < p->n_entries; i++) {
        const struct opts_entry *e = &p->entries[i];
        if (strncmp(e->name, name, len) != 0)
            continue;
        if (e->name[len] == '\0')
            return e;
        found = e;
        prefixes++;
    }
    return prefixes == 1 ? found : NULL;
}

static int bad_option(const struct opts_parser *p, const char *arg, int missing_value)
{
    if (p->errors == OPTS_ERR_JOINT)
        return cli_usage_error(p->cmd, "unknown option or missing value: '%s'", arg);
    if (p->errors == OPTS_ERR_SPLIT && missing_value)
        return cli_usage_error(p->cmd, "option '%s' needs a value", arg);
    return cli_usage_error(p->cmd, "unknown option '%s'", arg);
}

/* Parse the option at argv[*i] (advancing *i past a separate value). */
static int one_option(const struct opts_parser *p, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    if (arg[1] != '-') /* no command has short options */
        return bad_option(p, arg, 0);
    const char *name = arg + 2, *eq = strchr(name, '=');
    const struct opts_entry *e = find(p, name, eq ? (size_t)(eq - name) : strlen(name));
    if (!e)
        return bad_option(p, arg, 0);
    if (e->kind == OPTS_KIND_FLAG) {
        /* "--flag=x" is the value-trouble case, as getopt_long saw it. */
        return eq ? bad_option(p, arg, 1) : opts_store_value(p->cmd, e, NULL);
    }
    if (eq)
        return opts_store_value(p->cmd, e, eq + 1);
    if (*i + 1 >= argc)
        return bad_option(p, arg, 1);
    return opts_store_value(p->cmd, e, argv[++*i]);
}

int opts_parse(const struct opts_parser *p, int argc, char **argv, int *nargs)
{
    int n = 0, i = 1;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (p->n_entries && strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (!p->n_entries || arg[0] != '-' || arg[1] == '\0') {
            argv[1 + n++] = argv[i];
            if (p->stop_at_arg) {
                i++;
                break;
            }
            continue;
        }
        int rc = one_option(p, argc, argv, &i);
        if (rc)
            return rc;
    }
    for (; i < argc; i++)
        argv[1 + n++] = argv[i];
    *nargs = n;
    if (p->max_args >= 0 && n > p->max_args)
        return cli_usage_error(p->cmd, "unexpected argument '%s'", argv[1 + p->max_args]);
    return CLI_OK;
}

int opts_keyvalue(const char *arg, char *key, size_t keysz, const char **value)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= keysz)
        return 0;
    snprintf(key, keysz, "%.*s", (int)(eq - arg), arg);
    *value = eq + 1;
    return 1;
}
