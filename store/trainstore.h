/*
 * The training checkpoint (table train_sites): each training website's record, as
 * soon as it is read, so that a job interrupted while training (kill, crash, pause,
 * a lost database) does not fetch those websites again. The records are opaque text
 * here (job/trainsave.h writes and reads them).
 */
#ifndef SITESCOUT_STORE_TRAINSTORE_H
#define SITESCOUT_STORE_TRAINSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct store;

/* Keep website idx's record for job (replacing one kept before). */
enum err trainstore_put(struct store *s, int64_t job, size_t idx, const char *record) WARN_UNUSED;

/* Each record kept for job, in index order; fn's error ends the walk and is returned. */
typedef enum err (*trainstore_row_fn)(void *ctx, size_t idx, const char *record);
enum err trainstore_each(struct store *s, int64_t job, trainstore_row_fn fn, void *ctx) WARN_UNUSED;

/* Forget job's records (training is over). */
enum err trainstore_clear(struct store *s, int64_t job) WARN_UNUSED;

#endif
