/* Checked number parsing. */
#include "common/num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int num_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return 0;
    *out = (int64_t)v;
    return 1;
}

int num_parse_u64(const char *s, uint64_t *out)
{
    /* strtoull takes "-1" as ULLONG_MAX: a sign is no non-negative integer. */
    if (!s || !*s || strchr(s, '-'))
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end || errno)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

int num_parse_int(const char *s, int lo, int hi, int *out)
{
    int64_t v;
    if (!num_parse_i64(s, lo, hi, &v))
        return 0;
    *out = (int)v;
    return 1;
}

const char *num_format_double(char *buf, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, NUM_DOUBLE_BUF, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return buf;
    }
    return buf; /* NaN, or 17 digits: as exact as %.17g gets */
}

int num_parse_double(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v) || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

int num_parse_double_any(const char *s, double *out)
{
    if (!s || !*s)
        return 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end)
        return 0;
    *out = v;
    return 1;
}
