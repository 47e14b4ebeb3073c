/*
 * Checked number parsing: the whole string must be one number in range, or the
 * parse fails and the output is left alone. The only way text becomes a number here
 * (atoi and friends are banned: common/banned.h). And the way back, for doubles users
 * read: the shortest text that parses to the same number.
 */
#ifndef SITESCOUT_COMMON_NUM_H
#define SITESCOUT_COMMON_NUM_H

#include <stdint.h>

/* A decimal integer in [lo, hi] (leading blanks and a sign allowed). 1 on success. */
int num_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* A decimal integer in [0, UINT64_MAX] (no sign). 1 on success. */
int num_parse_u64(const char *s, uint64_t *out);

/* An int in [lo, hi]. 1 on success. */
int num_parse_int(const char *s, int lo, int hi, int *out);

/* A finite floating-point number in [lo, hi]. 1 on success. */
int num_parse_double(const char *s, double lo, double hi, double *out);

/*
 * Any number strtod reads, as it reads it, the whole string: NaN and (-)Infinity
 * included, out of range as +-HUGE_VAL or 0. For numbers another program wrote
 * (PostgreSQL's float8 text), not for users' input. 1 on success.
 */
int num_parse_double_any(const char *s, double *out);

/*
 * The shortest %g text (at most 17 significant digits) that reads back as v exactly:
 * 0.9 gives "0.9", not "0.90000000000000002". buf needs 32 bytes; returns buf.
 */
#define NUM_DOUBLE_BUF 32
const char *num_format_double(char *buf, double v);

#endif
