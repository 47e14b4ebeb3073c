/* Internal to crawler/: WARC/1.1 record pieces: record headers, record ids, dates, and the archived
 * HTTP head. */
#ifndef SITESCOUT_CRAWLER_WARCREC_H
#define SITESCOUT_CRAWLER_WARCREC_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/buf.h"
#include "common/err.h"

#define WARCREC_ID_LEN     (9 + 36 + 2 + 1) /* "<urn:uuid:" ... ">" and NUL */
#define WARCREC_DATE_LEN   21               /* "2026-11-25T15:40:00Z" and NUL */
#define WARCREC_DIGEST_LEN (5 + 32 + 1)     /* "sha1:", base32 of 20 bytes, NUL */

/*
 * The SHA-1 of a[alen] then b[blen] (either may be NULL when its length is 0) as WARC
 * tools write it: "sha1:" and 32 upper-case RFC 4648 base32 letters. SHA-1 is
 * libcrypto's (OpenSSL: this is the one file that includes it). ERR_NOMEM when
 * libcrypto cannot make a digest context.
 */
enum err warcrec_digest(const void *a, size_t alen, const void *b, size_t blen,
                        char out[WARCREC_DIGEST_LEN]) WARN_UNUSED;

/* A fresh random (version 4) record id, "<urn:uuid:...>". */
void warcrec_new_id(char out[WARCREC_ID_LEN]);

/* t (seconds since the epoch) as a WARC-Date in UTC. */
void warcrec_date(time_t t, char out[WARCREC_DATE_LEN]);

/*
 * The fields of one record header; every string is borrowed, NULL leaves the field out.
 * Fields go out in the order below.
 */
struct warcrec_fields {
    const char *type; /* WARC-Type: warcinfo, request, response */
    const char *id;
    const char *date;
    const char *target_uri;
    const char *filename;      /* WARC-Filename (warcinfo) */
    const char *concurrent_to; /* another record's id */
    const char *ip;            /* WARC-IP-Address */
    const char *content_type;
    const char *block_digest;   /* "sha1:..." */
    const char *payload_digest; /* "sha1:..." */
    const char *truncated;      /* WARC-Truncated reason */
    uint64_t content_length;    /* of the block */
};

/* Append the header of a record (version line to the empty line) to out. */
enum err warcrec_header(struct buf *out, const struct warcrec_fields *f) WARN_UNUSED;

/*
 * The HTTP response head to archive, from the head as received (status line to the
 * empty line, head[len]), when curl handed the body on as body_len bytes. curl
 * undoes a Content-Encoding and chunked Transfer-Encoding; when the head names
 * either, the body archived is not the one transferred, so its Content-Encoding,
 * Transfer-Encoding and Content-Length lines are kept renamed with the prefix
 * WARCREC_DECODED_PREFIX and a Content-Length of body_len is added; *decoded is then
 * 1. Otherwise the head is archived as it came (*decoded 0). Folded lines follow the
 * line they continue. A head without its empty line gets one.
 */
#define WARCREC_DECODED_PREFIX "X-Sitescout-Decoded-"
enum err warcrec_http_head(const char *head, size_t len, uint64_t body_len, struct buf *out,
                           int *decoded) WARN_UNUSED;

#endif
