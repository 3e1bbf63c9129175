/*
 * common/hash.h - the one 64-bit FNV-1a lagom uses (plan ids, profile
 * fingerprints).  libc-free, pure: the tuner and the pure core may link it.
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

#endif /* LAGOM_COMMON_HASH_H */
