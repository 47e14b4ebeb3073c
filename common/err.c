/* Error codes and the per-thread detail message. */
#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_msg[1024];

const char *err_str(enum err e)
{
    switch (e) {
    case ERR_OK:
        return "ok";
    case ERR_NOMEM:
        return "out of memory";
    case ERR_INVAL:
        return "invalid argument";
    case ERR_IO:
        return "I/O error";
    case ERR_DB:
        return "database error";
    case ERR_NOTFOUND:
        return "not found";
    case ERR_PARSE:
        return "parse error";
    case ERR_TOOBIG:
        return "too big";
    case ERR_TIMEOUT:
        return "timed out";
    case ERR_CONFLICT:
        return "conflict";
    case ERR_NET:
        return "network error";
    case ERR_INTERRUPT:
        return "interrupted";
    }
    return "unknown error";
}

enum err err_set(enum err e, const char *fmt, ...)
{
    /* Formatted aside first: the arguments may include err_msg() itself (a cause
     * wrapped in context), and vsnprintf must not read the buffer it writes. */
    char msg[sizeof last_msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(last_msg, msg, sizeof msg);
    return e;
}

const char *err_msg(void)
{
    return last_msg;
}

void err_clear(void)
{
    last_msg[0] = '\0';
}
