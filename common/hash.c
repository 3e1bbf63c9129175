/*
 * common/hash.c - 64-bit and 32-bit FNV-1a (common/hash.h).
 */
#include "config.h"

#include "common/hash.h"

#define FNV1A64_PRIME 1099511628211ull
#define FNV1A32_INIT 0x811c9dc5u
#define FNV1A32_PRIME 0x01000193u

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

uint32_t lagom_fnv1a32(const void *data, size_t len)
{
	const unsigned char *b = data;
	uint32_t h = FNV1A32_INIT;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= FNV1A32_PRIME;
	}
	return h;
}
