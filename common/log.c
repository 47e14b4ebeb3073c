/* Leveled logging to stderr. */
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int current_level = -1;
static const char *line_prefix = "";

static const char *const level_names[] = {"debug", "info", "warn", "error", "quiet"};

static int log_level_parse(const char *name)
{
    for (int i = 0; i <= LOG_QUIET; i++)
        if (name && strcmp(name, level_names[i]) == 0)
            return i;
    return -1;
}

static enum log_level log_get_level(void)
{
    if (current_level < 0) {
        int l = log_level_parse(getenv("SITESCOUT_LOG"));
        current_level = l < 0 ? LOG_INFO : l;
    }
    return (enum log_level)current_level;
}

void log_set_level(enum log_level level)
{
    current_level = (int)level;
}

void log_set_line_prefix(const char *prefix)
{
    line_prefix = prefix ? prefix : "";
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    if (level < log_get_level())
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    char line[2048];
    int n = snprintf(line, sizeof line, "%s", line_prefix);
    n += (int)strftime(line + n, sizeof line - (size_t)n, "%H:%M:%S", &tm);
    n += snprintf(line + n, sizeof line - (size_t)n, ".%03ld %-5s ", ts.tv_nsec / 1000000L,
                  level_names[level]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One fputs call so lines from different threads do not interleave. */
    size_t len = strlen(line);
    if (len + 1 < sizeof line) {
        line[len] = '\n';
        line[len + 1] = '\0';
    }
    fputs(line, stderr);
}
