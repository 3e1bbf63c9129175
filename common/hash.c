/*
 * common/hash.c - 64-bit FNV-1a (common/hash.h).
 */
#include "config.h"

#include "common/hash.h"

#define FNV1A64_PRIME 1099511628211ull

uint64_t lagom_fnv1a64_update(uint64_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= FNV1A64_PRIME;
	}
	return h;
}

uint64_t lagom_fnv1a64(const void *data, size_t len)
{
	return lagom_fnv1a64_update(LAGOM_FNV1A64_INIT, data, len);
}
