/* Leveled logging to stderr, one line per message, safe from any thread. */
#ifndef SITESCOUT_COMMON_LOG_H
#define SITESCOUT_COMMON_LOG_H

#include "common/err.h"

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR, LOG_QUIET };

/* Messages below the level are dropped. Default LOG_INFO, or
 * SITESCOUT_LOG=debug|info|warn|error|quiet. */
void log_set_level(enum log_level level);

void log_msg(enum log_level level, const char *fmt, ...) PRINTF_LIKE(2, 3);

/*
 * Written at the start of every log line (NULL: nothing), e.g. "\r\033[K" while a
 * progress line is drawn on the same terminal, so that a log line replaces it instead
 * of being glued to it. Set it before threads that log start, clear it after.
 */
void log_set_line_prefix(const char *prefix);

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

#endif
