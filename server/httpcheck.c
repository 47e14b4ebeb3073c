/* Checks of the raw parts of an HTTP request: NUL escapes, the Bearer scheme, lengths. */
#include "server/httpcheck.h"

#include <stddef.h>
#include <string.h>

#include "common/ascii.h"

int httpcheck_has_nul(const char *target)
{
    for (const char *p = strchr(target, '%'); p; p = strchr(p + 1, '%'))
        if (p[1] == '0' && p[2] == '0')
            return 1;
    return 0;
}

const char *httpcheck_bearer(const char *value)
{
    size_t n = strlen(value);
    if (!ascii_starts_with_ci(value, n, "bearer") || value[6] != ' ')
        return NULL;
    const char *t = value + 6;
    while (*t == ' ')
        t++;
    return t;
}

int httpcheck_content_length(const char *value, uint64_t *n)
{
    if (!*value)
        return 0;
    uint64_t x = 0;
    for (const char *p = value; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        unsigned d = (unsigned)(*p - '0');
        x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
    }
    *n = x;
    return 1;
}
