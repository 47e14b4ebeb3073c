/* Small deterministic PRNG (splitmix64) for seeded, reproducible training. */
#ifndef SITESCOUT_CLASSIFIER_RNG_H
#define SITESCOUT_CLASSIFIER_RNG_H

#include <stddef.h>
#include <stdint.h>

/*
 * The whole state is the caller's uint64_t: no hidden global state, so two
 * trainings with the same seed give the same result, on any thread.
 */
uint64_t rng_next(uint64_t *state);

/* Uniform double in [0, 1) with 53 random bits. */
double rng_uniform(uint64_t *state);

/* Uniform integer in [0, n); n > 0. */
uint64_t rng_below(uint64_t *state, uint64_t n);

/* Shuffle a[0..n) in place (Fisher-Yates), deterministic for a given state. */
void rng_shuffle(uint64_t *state, size_t *a, size_t n);

#endif
