/* JSON text in the project's one style: compact (jsontext.h). */
#include "common/jsontext.h"

size_t jsontext_compact(char *s, size_t n)
{
    size_t out = 0;
    int in_string = 0, escaped = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_string) {
            if (escaped)
                escaped = 0;
            else if (c == '\\')
                escaped = 1;
            else if (c == '"')
                in_string = 0;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            continue;
        } else if (c == '"') {
            in_string = 1;
        }
        s[out++] = c;
    }
    s[out] = '\0';
    return out;
}
