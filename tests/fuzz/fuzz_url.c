/*
 * libFuzzer harness for crawler/url: no crash, and the normal form's invariants hold;
 * and crawler/addrcheck judges a URL in any spelling as it judges its normal form.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/addrcheck.h"
#include "crawler/url.h"

/* Crash on a broken invariant: libFuzzer reports and saves the input. */
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

/* What every normalised URL must satisfy. */
static void check_normal(const char *u)
{
    size_t len = strlen(u), hn = 0;
    CHECK(len <= URL_MAX);
    CHECK(!strncmp(u, "http://", 7) || !strncmp(u, "https://", 8));
    CHECK(!strchr(u, '#') && !strchr(u, ' ') && !strchr(u, '\\'));
    for (size_t i = 0; i < len; i++)
        CHECK((unsigned char)u[i] > ' ' && (unsigned char)u[i] < 0x7f);
    const char *host = url_host_ref(u, &hn);
    CHECK(host && hn > 0);
    const char *path = url_path_and_query(u);
    CHECK(path && path[0] == '/');
    CHECK(url_same_site(u, u));

    /* normalize(normalize(x)) == normalize(x) */
    char *again = NULL;
    CHECK(url_normalize(u, &again) == ERR_OK);
    CHECK(!strcmp(again, u));
    free(again);

    /* the homepage is normal, on the same site, and its own homepage */
    char *home = NULL, *home2 = NULL;
    CHECK(url_homepage(u, &home) == ERR_OK);
    CHECK(url_same_site(u, home));
    CHECK(url_normalize(home, &home2) == ERR_OK);
    CHECK(!strcmp(home, home2));
    free(home2);
    free(home);
}

/*
 * Input: "base\nref" (a missing newline makes the whole input the ref, with a
 * fixed base). Each part alone is normalised; the ref is resolved against both
 * the fixed base and the given one.
 */
/* libFuzzer calls it; it has no header to declare it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = malloc(size + 1);
    if (!in)
        return 0;
    memcpy(in, data, size);
    in[size] = '\0';
    const char *base = "http://a/b/c/d;p?q";
    char *ref = in;
    char *nl = memchr(in, '\n', size);
    if (nl) {
        *nl = '\0';
        base = in;
        ref = nl + 1;
    }

    static struct addrcheck *ac; /* this host's addresses, read once */
    if (!ac && addrcheck_new(&ac) != ERR_OK)
        __builtin_trap();
    char *out = NULL;
    const char *inputs[] = {base, ref};
    for (size_t i = 0; i < 2; i++) {
        if (url_normalize(inputs[i], &out) == ERR_OK) {
            check_normal(out);
            CHECK(addrcheck_url(ac, inputs[i], 0) == addrcheck_url(ac, out, 0));
            free(out);
        } else {
            CHECK(out == NULL);
        }
    }

    char *nbase = NULL;
    if (url_normalize(base, &nbase) != ERR_OK)
        nbase = strdup("http://a/b/c/d;p?q");
    const char *bases[] = {base, nbase};
    for (size_t i = 0; i < 2 && bases[i]; i++) {
        if (url_resolve(bases[i], ref, &out) == ERR_OK) {
            check_normal(out);
            free(out);
        } else {
            CHECK(out == NULL);
        }
    }
    free(nbase);
    free(in);
    return 0;
}
