/*
 * common/hash.h - the FNV-1a hashes lagom uses: 64-bit (plan ids, profile
 * fingerprints) and 32-bit (the check of lagom's segment in a job's comment).
 * libc-free, pure: the tuner and the pure core may link it.
 */
#ifndef LAGOM_COMMON_HASH_H
#define LAGOM_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a's 64-bit offset basis: the hash of nothing. */
#define LAGOM_FNV1A64_INIT 14695981039346656037ull

/* h with len more bytes of data hashed in (start from LAGOM_FNV1A64_INIT);
 * hashing a text in pieces gives the hash of the whole. */
uint64_t lagom_fnv1a64_update(uint64_t h, const void *data, size_t len);

/* 64-bit FNV-1a of len bytes. */
uint64_t lagom_fnv1a64(const void *data, size_t len);

/* 32-bit FNV-1a of len bytes (offset basis 0x811c9dc5, prime 0x01000193).
 * Its value is part of a wire format (the "#xxxxxxxx" check of the comment
 * segment sacct shows): it must not change. */
uint32_t lagom_fnv1a32(const void *data, size_t len);

#endif /* LAGOM_COMMON_HASH_H */
