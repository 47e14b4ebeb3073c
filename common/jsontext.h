/*
 * JSON text in the project's one style: compact, without white space between tokens
 * ({"a":1,"b":[1,2]}), as jansson's JSON_COMPACT writes it. PostgreSQL's json functions
 * write "a" : 1 and put line breaks in arrays; the API's answers go through this so
 * that every one reads the same (docs/api.md, "Conventions").
 */
#ifndef SITESCOUT_COMMON_JSONTEXT_H
#define SITESCOUT_COMMON_JSONTEXT_H

#include <stddef.h>

/*
 * Remove the white space (space, tab, CR, LF) outside strings from the JSON text
 * s[0..n), in place, and NUL-terminate it (s[n] must be writable, as a C string's NUL
 * is); returns its new length. Strings (with their
 * escapes) are kept as they are; text that is not JSON is only shortened the same way.
 */
size_t jsontext_compact(char *s, size_t n);

#endif
