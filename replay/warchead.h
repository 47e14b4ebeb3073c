/* WARC record headers: where one ends, and the fields the index needs. */
#ifndef SITESCOUT_REPLAY_WARCHEAD_H
#define SITESCOUT_REPLAY_WARCHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define WARCHEAD_MAX (64 * 1024) /* cap on one WARC record header */

/* The fields of a WARC record header that the index needs. */
struct warchead {
    int is_response;         /* WARC-Type: response */
    uint64_t content_length; /* length of the record block */
    const char *uri;         /* WARC-Target-URI without <>, borrowed from the input; or NULL */
    size_t uri_len;
};

/*
 * The length of a record header (version line to the empty line, inclusive) at the
 * start of data, or 0 if no empty line occurs in the first len bytes. Lines end in
 * CRLF or LF.
 */
size_t warchead_end(const char *data, size_t len);

/* Parse a complete header of head_len bytes (from warchead_end). ERR_PARSE if malformed. */
enum err warchead_parse(const char *data, size_t head_len, struct warchead *h) WARN_UNUSED;

#endif
