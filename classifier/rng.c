/* splitmix64 (Steele, Lea & Flood 2014): tiny, fast, good enough for seeding and shuffles. */
#include "classifier/rng.h"

uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double rng_uniform(uint64_t *state)
{
    return (double)(rng_next(state) >> 11) * 0x1.0p-53;
}

uint64_t rng_below(uint64_t *state, uint64_t n)
{
    /* Rejection keeps the result unbiased; the loop almost never repeats. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = rng_next(state);
    while (x >= limit);
    return x % n;
}

void rng_shuffle(uint64_t *state, size_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rng_below(state, i);
        size_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}
