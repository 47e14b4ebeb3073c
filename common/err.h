/* Project-wide error codes, with a per-thread detail message for the user. */
#ifndef SITESCOUT_COMMON_ERR_H
#define SITESCOUT_COMMON_ERR_H

#define WARN_UNUSED       __attribute__((warn_unused_result))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

enum err {
    ERR_OK = 0,
    ERR_NOMEM,     /* allocation failed */
    ERR_INVAL,     /* bad argument or input */
    ERR_IO,        /* file or process I/O failed */
    ERR_DB,        /* database error */
    ERR_NOTFOUND,  /* a named thing does not exist */
    ERR_PARSE,     /* malformed data */
    ERR_TOOBIG,    /* a cap was exceeded */
    ERR_TIMEOUT,   /* gave up waiting */
    ERR_CONFLICT,  /* the operation does not fit the current state */
    ERR_NET,       /* network failure */
    ERR_INTERRUPT, /* stopped by a signal or a user */
};

/* Static name of a code, e.g. "invalid argument". */
const char *err_str(enum err e);

/*
 * Record a human-readable detail for the error about to be returned; the
 * message lives in thread-local storage until the next err_set or err_clear.
 * Returns e so that `return err_set(ERR_INVAL, "...")` reads naturally. The
 * arguments may include err_msg(), to wrap a cause in context:
 * `err_set(e, "fold %u: %s", f, err_msg())`.
 */
enum err err_set(enum err e, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* The last detail set on this thread, or err_str of nothing set (""). */
const char *err_msg(void);

void err_clear(void);

#endif
