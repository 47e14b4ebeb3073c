/* Synthetic hosts of the replay web (spider trap, huge page, junk) and deterministic hashing. */
#ifndef SITESCOUT_REPLAY_SYNTH_H
#define SITESCOUT_REPLAY_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

#define SYNTH_HUGE_BYTES ((uint64_t)100 << 20) /* body of every page of a --huge-host */
#define SYNTH_JUNK_MIN   1024                  /* junk bodies are 1 KiB ... */
#define SYNTH_JUNK_MAX   (256 * 1024)          /* ... to 256 KiB */

/* splitmix64's finaliser: a well-mixed 64-bit function of x. */
uint64_t synth_mix64(uint64_t x);

/* A 64-bit hash of bytes (FNV-1a, then mixed). */
uint64_t synth_hash64(const void *data, size_t len);

/*
 * The spider-trap page for a path: an events calendar where every day page links
 * to the previous and next day, month and year and to event pages, and every
 * event page links on to the next day's event: an endless supply of new URLs.
 * Paths are /calendar/YYYY-MM-DD.html and /calendar/YYYY-MM-DD/event-N.html; any
 * other path shows the first day (2004-06-01). Appends the HTML to out.
 */
enum err synth_trap_page(const char *path, size_t len, struct buf *out) WARN_UNUSED;

/* Bytes [pos, pos + n) of the huge HTML body (SYNTH_HUGE_BYTES long). */
void synth_huge_fill(uint64_t pos, char *out, size_t n);

/* The length of the junk body for seed, in [SYNTH_JUNK_MIN, SYNTH_JUNK_MAX). */
uint64_t synth_junk_length(uint64_t seed);

/* Bytes [pos, pos + n) of the junk body for seed: pseudo-random binary bytes. */
void synth_junk_fill(uint64_t seed, uint64_t pos, char *out, size_t n);

#endif
