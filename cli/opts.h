/* The subcommands' option parser: each command declares a table of its long options. */
#ifndef SITESCOUT_CLI_OPTS_H
#define SITESCOUT_CLI_OPTS_H

#include <stddef.h>
#include <stdint.h>

/*
 * A command builds its table on the stack, pointing each entry at the field the value
 * goes to (git's parse-options, smaller):
 *
 *     struct opts_entry tab[] = {
 *         OPTS_STRING("job", &o.job_file),
 *         OPTS_INT("workers", &o.workers, 1, 64, "1..64"),
 *         OPTS_FLAG("print-routes", &o.print_routes),
 *     };
 *
 * Options are spelled --name VALUE or --name=VALUE; a unique prefix of a name is the
 * name (what getopt_long accepted, so scripts keep working). Options and arguments may
 * mix; "--" ends the options. Values are borrowed from argv.
 *
 * A bad value gets "sitescout CMD: --NAME wants WANTS, not 'VALUE'", the same line the
 * commands have always printed: WANTS is the entry's text ("1..64", "a job id").
 */

enum opts_kind {
    OPTS_KIND_STRING,   /* const char **: the value; the last one given wins */
    OPTS_KIND_FLAG,     /* int *: set to 1; takes no value */
    OPTS_KIND_INT,      /* int *: a whole decimal integer in [lo, hi] */
    OPTS_KIND_INT64,    /* int64_t *: the same */
    OPTS_KIND_UINT64,   /* uint64_t *: a whole non-negative decimal integer */
    OPTS_KIND_DOUBLE,   /* double *: a finite number in [dlo, dhi] */
    OPTS_KIND_CHOICE,   /* int *: the index of the value in choices (NULL-terminated) */
    OPTS_KIND_LIST,     /* struct opts_list *: each value appended; repeatable */
    OPTS_KIND_KEYVALUE, /* struct opts_list *: as LIST, and each value must be KEY=VALUE */
    OPTS_KIND_CALL,     /* call(dest, value): a check of the command's own */
};

/* The values of a repeatable option, in argv order. The caller provides the array. */
struct opts_list {
    const char **items;
    int n, max;
};

/*
 * A check of the command's own (OPTS_CALL): returns 0 (CLI_OK) to go on, or prints its
 * error line (cli_usage_error) and returns the exit code.
 */
typedef int (*opts_call_fn)(void *dest, const char *value);

struct opts_entry {
    const char *name; /* without the leading "--" */
    enum opts_kind kind;
    void *dest;
    long long lo, hi;           /* OPTS_KIND_INT, OPTS_KIND_INT64 */
    double dlo, dhi;            /* OPTS_KIND_DOUBLE */
    const char *wants;          /* numbers, choices, KEYVALUE: what a good value is */
    const char *const *choices; /* OPTS_KIND_CHOICE */
    const char *full;           /* LIST, KEYVALUE: the error line when max values came */
    opts_call_fn call;          /* OPTS_KIND_CALL */
};

/* The conditional expressions only check, at compile time, that dest has the right type. */
#define OPTS_STRING(n, d)                                                                          \
    {                                                                                              \
        .name = (n), .kind = OPTS_KIND_STRING, .dest = (1 ? (d) : (const char **)0)                \
    }
#define OPTS_FLAG(n, d)                                                                            \
    {                                                                                              \
        .name = (n), .kind = OPTS_KIND_FLAG, .dest = (1 ? (d) : (int *)0)                          \
    }
#define OPTS_INT(n, d, l, h, w)                                                                    \
    {                                                                                              \
        .name = (n), .kind = OPTS_KIND_INT, .dest = (1 ? (d) : (int *)0), .lo = (l), .hi = (h),    \
        .wants = (w)                                                                               \
    }
#define OPTS_INT64(n, d, l, h, w)                                                                  \
    {                                                                                              \
        .name = (n), .kind = OPTS_KIND_INT64, .dest = (1 ? (d) : (int64_t *)0), .lo = (l),         \
        .hi = (h), .wants = (w)                                                                    \
    }
#define OPTS_UINT64(n, d, w)                                                                       \
    {                                                                                              \
        .name = (n), .kind = OPTS_KIND_UINT64, .dest = (1 ? (d) : (uint64_t *)0), .wants = (w)     \
    }
#define OPTS_DOUBLE(n, d, l, h, w)                                                                 \
    {                                                                                              \
        .name = (n), .kind = OPTS_KIND_DOUBLE, .dest = (1 ? (d) : (double *)0), .dlo = (l),        \
        .dhi = (h), .wants = (w)                                                                   \
    }
#define OPTS_CHOICE(n, d, c, w)                                                                    \
    {                                                                                              \
        .name = (n), .kind = OPTS_KIND_CHOICE, .dest = (1 ? (d) : (int *)0), .choices = (c),       \
        .wants = (w)                                                                               \
    }
#define OPTS_LIST(n, d, f)                                                                         \
    {                                                                                              \
        .name = (n), .kind = OPTS_KIND_LIST, .dest = (1 ? (d) : (struct opts_list *)0),            \
        .full = (f)                                                                                \
    }
#define OPTS_KEYVALUE(n, d, f, w)                                                                  \
    {                                                                                              \
        .name = (n), .kind = OPTS_KIND_KEYVALUE, .dest = (1 ? (d) : (struct opts_list *)0),        \
        .full = (f), .wants = (w)                                                                  \
    }
#define OPTS_CALL(n, d, fn)                                                                        \
    {                                                                                              \
        .name = (n), .kind = OPTS_KIND_CALL, .dest = (d), .call = (fn)                             \
    }

/* Text of a macro's value, for WANTS strings built from limits: "1.." OPTS_STR(MAX). */
#define OPTS_STR_(x) #x
#define OPTS_STR(x)  OPTS_STR_(x)

/*
 * How a command words an unknown option or a missing value. Each command kept the
 * wording it always had; argv's own spelling of the option is quoted.
 */
enum opts_errors {
    OPTS_ERR_JOINT,   /* both: "unknown option or missing value: '--x'" */
    OPTS_ERR_UNKNOWN, /* both: "unknown option '--x'" */
    OPTS_ERR_SPLIT,   /* "unknown option '--x'", and "option '--x' needs a value" */
};

struct opts_parser {
    const char *cmd; /* the command, for its error lines */
    const struct opts_entry *entries;
    size_t n_entries; /* with none, every argument is an argument, "--x" too */
    enum opts_errors errors;
    int stop_at_arg; /* the first argument ends the options (db ACTION [psql's args]) */
    int max_args;    /* more arguments: "unexpected argument"; -1 for any number */
};

/*
 * Parse argv[1..argc) (argv[0] is the command name) into the entries' destinations.
 * The arguments that are not options move to argv[1..*nargs], in order. Returns 0
 * (CLI_OK), or CLI_USAGE after printing the one-line error and the hint to --help.
 */
int opts_parse(const struct opts_parser *p, int argc, char **argv, int *nargs);

/*
 * Split "key=value": the key (non-empty, shorter than keysz) into key, *value points
 * after the '='. Returns 0 if arg is not of that form.
 */
int opts_keyvalue(const char *arg, char *key, size_t keysz, const char **value);

#endif
