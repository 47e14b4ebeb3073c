/*
 * Internal to store/: PostgreSQL array literals built in a buffer ("{\"a\",\"b\"}", "{1.5,NULL}"),
 * handed to a statement as one text parameter and spread into rows there by unnest(): many rows in
 * one statement, one round trip.
 */
#ifndef SITESCOUT_STORE_SQLARRAY_H
#define SITESCOUT_STORE_SQLARRAY_H

#include "common/buf.h"
#include "common/err.h"

/* Start n empty literals ("{"); release them with sqlarray_release even on error. */
enum err sqlarray_init(struct buf *arr, int n) WARN_UNUSED;
/* Close n literals ("}"). */
enum err sqlarray_close(struct buf *arr, int n) WARN_UNUSED;
void sqlarray_release(struct buf *arr, int n);

/* Append one element: quoted text (NULL stays NULL), a double (NaN becomes NULL), an
 * integer. */
enum err sqlarray_text(struct buf *b, const char *s) WARN_UNUSED;
enum err sqlarray_double(struct buf *b, double v) WARN_UNUSED;
enum err sqlarray_long(struct buf *b, long long v) WARN_UNUSED;

#endif
