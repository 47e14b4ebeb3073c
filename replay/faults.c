/* Deterministic fault draws: per-URL request counts and a hash of (seed, URL, count). */
#include "replay/faults.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay/synth.h"

#define FAULTS_URLS_MAX    ((size_t)1 << 20) /* URLs whose request counts are remembered */
#define FAULTS_LATENCY_CAP 20.0              /* latency draws are capped at this many means */

struct faults_count {
    uint64_t key; /* URL hash, never 0 */
    uint64_t count;
};

#define FAULTS_LOOP_SALT 0x6c6f6f70u /* "loop": loop draws apart from the per-request ones */

void faults_init(struct faults *f, uint64_t seed, const struct faults_rates *rates)
{
    *f = (struct faults){.seed = seed, .r = *rates};
}

void faults_release(struct faults *f)
{
    free(f->counts);
    f->counts = NULL;
    f->cap = f->n = 0;
}

/* Double the table while it may still grow; on out of memory it stays as it is. */
static void faults_grow(struct faults *f)
{
    size_t cap = f->cap ? f->cap * 2 : 1024;
    struct faults_count *t = calloc(cap, sizeof *t);
    if (!t)
        return;
    for (size_t i = 0; i < f->cap; i++) {
        if (!f->counts[i].key)
            continue;
        size_t j = f->counts[i].key & (cap - 1);
        while (t[j].key)
            j = (j + 1) & (cap - 1);
        t[j] = f->counts[i];
    }
    free(f->counts);
    f->counts = t;
    f->cap = cap;
}

/* How often this URL was asked for before (then count this request). */
static uint64_t faults_attempts_before(struct faults *f, uint64_t key)
{
    key |= 1;
    if (f->n + 1 > f->cap / 2 && f->cap < FAULTS_URLS_MAX)
        faults_grow(f);
    if (!f->cap)
        return 0;
    size_t mask = f->cap - 1;
    for (size_t i = key & mask;; i = (i + 1) & mask) {
        if (f->counts[i].key == key)
            return f->counts[i].count++;
        if (!f->counts[i].key) {
            if (f->n + 1 > f->cap / 2)
                return 0; /* full: new URLs count as first requests */
            f->counts[i] = (struct faults_count){key, 1};
            f->n++;
            return 0;
        }
    }
}

/* A uniform draw in [0, 1) from 64 random bits. */
static double faults_unit(uint64_t x)
{
    return (double)(x >> 11) * 0x1.0p-53;
}

void faults_decide(struct faults *f, const char *url, size_t len, struct faults_draw *out)
{
    const struct faults_rates *r = &f->r;
    memset(out, 0, sizeof *out);
    if (r->latency_ms <= 0 && r->error_rate <= 0 && r->reset_rate <= 0 && r->slow_rate <= 0 &&
        r->stall_rate <= 0)
        return;
    uint64_t h = synth_hash64(url, len);
    uint64_t n = faults_attempts_before(f, h);
    uint64_t st = synth_mix64(f->seed ^ synth_mix64(h ^ synth_mix64(n)));
    if (r->latency_ms > 0) {
        double d = -r->latency_ms * log(1.0 - faults_unit(synth_mix64(st + 1)));
        double cap = FAULTS_LATENCY_CAP * r->latency_ms;
        out->delay_ms = d < cap ? d : cap;
    }
    if (faults_unit(synth_mix64(st + 2)) < r->error_rate)
        out->error = faults_unit(synth_mix64(st + 3)) < 0.5 ? 500 : 503;
    out->reset = faults_unit(synth_mix64(st + 4)) < r->reset_rate;
    out->slow = faults_unit(synth_mix64(st + 5)) < r->slow_rate;
    out->stall = faults_unit(synth_mix64(st + 6)) < r->stall_rate;
}

int faults_loop(const struct faults *f, const char *url, size_t len, int *self)
{
    *self = 0;
    if (f->r.loop_rate <= 0)
        return 0;
    uint64_t st = synth_mix64(f->seed ^ synth_mix64(synth_hash64(url, len) ^ FAULTS_LOOP_SALT));
    if (faults_unit(synth_mix64(st + 1)) >= f->r.loop_rate)
        return 0;
    *self = faults_unit(synth_mix64(st + 2)) < 0.5;
    return faults_unit(synth_mix64(st + 3)) < 0.5 ? 301 : 302;
}
