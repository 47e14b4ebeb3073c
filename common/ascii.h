/* ASCII character helpers for parsers of HTTP and HTML bytes (locale-independent). */
#ifndef SITESCOUT_COMMON_ASCII_H
#define SITESCOUT_COMMON_ASCII_H

#include <stddef.h>
#include <string.h>

/* HTML's ASCII whitespace (space, tab, LF, CR, FF). */
static inline int ascii_is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static inline unsigned char ascii_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* Does s[0..n) start with the lowercase literal `lit`, ignoring ASCII case? */
static inline int ascii_starts_with_ci(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    if (n < k)
        return 0;
    for (size_t i = 0; i < k; i++)
        if (ascii_lower((unsigned char)s[i]) != (unsigned char)lit[i])
            return 0;
    return 1;
}

/* Value of a hexadecimal digit, or -1. */
static inline int ascii_hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
