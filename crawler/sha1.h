/* SHA-1 (FIPS 180-4) and its RFC 4648 base32 spelling, for WARC record digests. */
#ifndef SITESCOUT_CRAWLER_SHA1_H
#define SITESCOUT_CRAWLER_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_LEN     20
#define SHA1_B32_LEN 32 /* base32 of 20 bytes: 160 bits in 5-bit letters, no padding */

/* Embedded and zero-free: sha1_init before the first sha1_update. */
struct sha1 {
    uint32_t h[5];
    uint64_t len; /* bytes hashed so far */
    unsigned char block[64];
    size_t fill; /* bytes in block */
};

void sha1_init(struct sha1 *s);
void sha1_update(struct sha1 *s, const void *data, size_t len);
void sha1_final(struct sha1 *s, unsigned char out[SHA1_LEN]);

/* The digest as WARC tools write it: "sha1:" then 32 upper-case base32 letters, NUL-ended. */
#define SHA1_WARC_LEN (5 + SHA1_B32_LEN + 1)
void sha1_warc_label(const unsigned char digest[SHA1_LEN], char out[SHA1_WARC_LEN]);

#endif
