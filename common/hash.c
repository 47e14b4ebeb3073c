/* FNV-1a. */
#include "common/hash.h"

uint64_t hash_bytes(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint32_t hash_bytes32(const void *data, size_t n)
{
    uint64_t h = hash_bytes(data, n);
    return (uint32_t)(h ^ (h >> 32));
}
