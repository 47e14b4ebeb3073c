/* libFuzzer harness for classifier/pagecls model bytes: any input loads or fails with ERR_PARSE. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "common/buf.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

static const char probe[] = "The rocket launches into orbit; bake the flour. Café don't 1997";

/* A loaded model must classify to finite confidences and serialise to bytes that load
 * back into the same model (the format has one spelling per model, except for zero
 * centroid weights, which may be listed or not). */
/* libFuzzer calls it; it has no header to declare it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pagecls *m = NULL;
    enum err e = pagecls_deserialize(data, size, &m);
    CHECK(e == ERR_OK || e == ERR_PARSE || e == ERR_NOMEM);
    if (e)
        return 0;
    struct pagecls_scratch *s = NULL;
    if (pagecls_scratch_new(m, &s) == ERR_OK) {
        struct pagecls_result r;
        if (pagecls_classify(m, s, probe, sizeof probe - 1, &r) == ERR_OK) {
            double sum = 0;
            for (uint32_t k = 0; k < pagecls_classes(m); k++) {
                CHECK(isfinite(r.pr[k]) && r.pr[k] >= 0 && r.pr[k] <= 1);
                sum += r.pr[k];
            }
            CHECK(fabs(sum - 1) < 1e-9);
        }
        pagecls_scratch_free(s);
    }
    struct buf b;
    buf_init(&b, 0);
    if (pagecls_serialize(m, &b) == ERR_OK) {
        struct pagecls *m2 = NULL;
        CHECK(pagecls_deserialize(b.data, b.len, &m2) == ERR_OK);
        struct buf b2;
        buf_init(&b2, 0);
        CHECK(pagecls_serialize(m2, &b2) == ERR_OK);
        CHECK(b.len == b2.len && memcmp(b.data, b2.data, b.len) == 0);
        buf_release(&b2);
        pagecls_free(m2);
    }
    buf_release(&b);
    pagecls_free(m);
    return 0;
}
