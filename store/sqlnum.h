/*
 * Internal to store/: numbers as text parameters of a statement (libpq's text format), written into
 * a caller's char array (its size taken with sizeof: an array, not a pointer) and returned: NUM an
 * integer, DBL a double to the last bit (%.17g; NaN and Infinity as PostgreSQL reads them).
 */
#ifndef SITESCOUT_STORE_SQLNUM_H
#define SITESCOUT_STORE_SQLNUM_H

#include <stdio.h>

#define NUM(buf, v) (snprintf((buf), sizeof(buf), "%lld", (long long)(v)), (buf))
#define DBL(buf, v) (snprintf((buf), sizeof(buf), "%.17g", (double)(v)), (buf))

#endif
