/*
 * Functions this project does not use, made compile errors (after git's banned.h).
 * Every source file gets this header first (cmake: -include common/banned.h), so a
 * banned call anywhere fails the build with an error naming the function.
 *   strcpy, strcat, strncpy, strncat, sprintf, vsprintf: no bound on the
 *     destination, or a bound that silently truncates without NUL; use snprintf,
 *     memcpy with a known length, or common/buf.
 *   atoi, atol, atoll, atof: no error reporting; use common/num (or store_rows_i64).
 *   strtok: hidden global state; use strtok_r or explicit scanning.
 *   gets: unbounded.
 * The system headers that declare them are included first, so their own
 * declarations are not affected.
 */
#ifndef SITESCOUT_COMMON_BANNED_H
#define SITESCOUT_COMMON_BANNED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BANNED(func) sorry_##func##_is_banned_see_common_banned_h

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef atoll
#define atoll(x) BANNED(atoll)
#undef atof
#define atof(x) BANNED(atof)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gets
#define gets(x) BANNED(gets)

#endif
