/* Fast non-cryptographic hashes for in-memory tables (not for hostile-keyed
 * tables exposed to collisions attacks: keys here are addresses and ids). */
#ifndef SMOLDER_COMMON_HASH_H
#define SMOLDER_COMMON_HASH_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* splitmix64 finaliser: good avalanche for addresses that share low bits. */
static inline uint64_t hash__u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static inline uint64_t hash__mix(uint64_t h, uint64_t v)
{
	return hash__u64(h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)));
}

/* FNV-1a 64 over bytes, finalised. */
static inline uint64_t hash__bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = (const unsigned char *)p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return hash__u64(h);
}

#endif
