/* Page classifier model bytes: the versioned, self-contained format a model is stored in. */
#ifndef SITESCOUT_CLASSIFIER_PAGECLS_FORMAT_H
#define SITESCOUT_CLASSIFIER_PAGECLS_FORMAT_H

#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"

/* Part of the pagecls.h contract (include that): the model type lives there. */
struct pagecls;

/*
 * Model bytes: versioned, little-endian, self-contained (the kind, tokeniser options,
 * vocabulary, IDF, centroids or SVM weights, cross-validation figures). serialize appends to out
 * (which keeps its cap); deserialize checks every length, id and number and returns
 * ERR_PARSE for anything malformed, truncated or with trailing bytes. *out is the
 * caller's (pagecls_free).
 */
/* Written: 3 (with the kind: kNN or SVM); read: 1 to 3 (1 and 2 are kNN models, 1 has
 * no calibration). */
#define PAGECLS_FORMAT_VERSION 3
enum err pagecls_serialize(const struct pagecls *m, struct buf *out) WARN_UNUSED;
enum err pagecls_deserialize(const void *data, size_t len, struct pagecls **out) WARN_UNUSED;

#endif
