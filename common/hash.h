/* The one hash of the project: FNV-1a over bytes, for hash tables and stable seeds. */
#ifndef SITESCOUT_COMMON_HASH_H
#define SITESCOUT_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a of n bytes (offset basis 0xcbf29ce484222325, prime 0x100000001b3). */
uint64_t hash_bytes(const void *data, size_t n);

/* The same folded to 32 bits (high half xor low half), for 32-bit tables. */
uint32_t hash_bytes32(const void *data, size_t n);

#endif
