/* SHA-1 per FIPS 180-4 §6.1, and base32 per RFC 4648 §6. */
#include "crawler/sha1.h"

#include <string.h>

static uint32_t rol(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

/*
 * One 64-byte block. The message schedule lives in a 16-word ring and the four kinds of
 * round are separate loops: branch-free bodies the compiler unrolls (about twice as
 * fast as one loop that asks which round it is in).
 */
#define W(t)                                                                                       \
    (w[(t)&15] = rol(w[((t) + 13) & 15] ^ w[((t) + 8) & 15] ^ w[((t) + 2) & 15] ^ w[(t)&15], 1))
#define ROUND(f, k, wt)                                                                            \
    do {                                                                                           \
        uint32_t tmp = rol(a, 5) + (f) + e + (k) + (wt);                                           \
        e = d;                                                                                     \
        d = c;                                                                                     \
        c = rol(b, 30);                                                                            \
        b = a;                                                                                     \
        a = tmp;                                                                                   \
    } while (0)

static void sha1_block(struct sha1 *s, const unsigned char *p)
{
    uint32_t w[16];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
    int t = 0;
    for (; t < 16; t++)
        ROUND((b & c) | (~b & d), 0x5a827999u, w[t]);
    for (; t < 20; t++)
        ROUND((b & c) | (~b & d), 0x5a827999u, W(t));
    for (; t < 40; t++)
        ROUND(b ^ c ^ d, 0x6ed9eba1u, W(t));
    for (; t < 60; t++)
        ROUND((b & c) | (b & d) | (c & d), 0x8f1bbcdcu, W(t));
    for (; t < 80; t++)
        ROUND(b ^ c ^ d, 0xca62c1d6u, W(t));
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
}
#undef ROUND
#undef W

void sha1_init(struct sha1 *s)
{
    static const uint32_t h0[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
    memcpy(s->h, h0, sizeof h0);
    s->len = 0;
    s->fill = 0;
}

void sha1_update(struct sha1 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    if (!len)
        return; /* data may be NULL then */
    s->len += len;
    if (s->fill) {
        size_t take = 64 - s->fill < len ? 64 - s->fill : len;
        memcpy(s->block + s->fill, p, take);
        s->fill += take;
        p += take;
        len -= take;
        if (s->fill < 64)
            return;
        sha1_block(s, s->block);
        s->fill = 0;
    }
    for (; len >= 64; p += 64, len -= 64)
        sha1_block(s, p);
    memcpy(s->block, p, len);
    s->fill = len;
}

void sha1_final(struct sha1 *s, unsigned char out[SHA1_LEN])
{
    uint64_t bits = s->len * 8;
    unsigned char pad[72] = {0x80};
    size_t n = s->fill < 56 ? 56 - s->fill : 120 - s->fill;
    for (int i = 0; i < 8; i++)
        pad[n + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1_update(s, pad, n + 8);
    for (int i = 0; i < 5; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}

void sha1_warc_label(const unsigned char digest[SHA1_LEN], char out[SHA1_WARC_LEN])
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    memcpy(out, "sha1:", 5);
    /* 160 bits = 32 groups of 5, read most significant first. */
    for (int i = 0; i < SHA1_B32_LEN; i++) {
        int bit = i * 5, v = 0;
        for (int j = 0; j < 5; j++, bit++)
            v = v << 1 | ((digest[bit / 8] >> (7 - bit % 8)) & 1);
        out[5 + i] = alphabet[v];
    }
    out[5 + SHA1_B32_LEN] = '\0';
}
