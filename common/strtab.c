/* String interning with an arena of NUL-terminated strings and a hash index. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/strtab.h"

/* Strings live in chunks that never move, so returned pointers stay valid. */
#define CHUNK_SIZE (64 * 1024)

struct entry {
	const char *str;
	uint32_t len;
	uint32_t hash32;
};

struct strtab {
	struct entry *entries; /* index = id; entries[0] unused */
	size_t n, cap;
	uint32_t *index; /* open addressing over ids; 0 = empty */
	size_t index_cap;
	char **chunks;
	size_t nchunks, chunks_cap;
	size_t chunk_used; /* bytes used in the last chunk */
	size_t chunk_size; /* size of the last chunk */
	size_t bytes;
};

struct strtab *strtab__new(void)
{
	struct strtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cap = 256;
	t->entries = calloc(t->cap, sizeof(*t->entries));
	t->index_cap = 512;
	t->index = calloc(t->index_cap, sizeof(*t->index));
	if (!t->entries || !t->index) {
		strtab__delete(t);
		return NULL;
	}
	t->n = 1;
	return t;
}

void strtab__delete(struct strtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->entries);
	free(t->index);
	free(t);
}

static char *arena_alloc(struct strtab *t, size_t n)
{
	char *p;

	if (t->nchunks == 0 || t->chunk_used + n > t->chunk_size) {
		size_t sz = n > CHUNK_SIZE ? n : CHUNK_SIZE;

		if (t->nchunks == t->chunks_cap) {
			size_t nc = t->chunks_cap ? t->chunks_cap * 2 : 8;
			char **c = realloc(t->chunks, nc * sizeof(*c));

			if (!c)
				return NULL;
			t->chunks = c;
			t->chunks_cap = nc;
		}
		p = malloc(sz);
		if (!p)
			return NULL;
		t->chunks[t->nchunks++] = p;
		t->chunk_used = 0;
		t->chunk_size = sz;
		t->bytes += sz;
	}
	p = t->chunks[t->nchunks - 1] + t->chunk_used;
	t->chunk_used += n;
	return p;
}

static int rehash(struct strtab *t)
{
	size_t ncap = t->index_cap * 2, i;
	uint32_t *ni = calloc(ncap, sizeof(*ni));

	if (!ni)
		return -ENOMEM;
	for (i = 1; i < t->n; i++) {
		size_t j = t->entries[i].hash32 & (ncap - 1);

		while (ni[j])
			j = (j + 1) & (ncap - 1);
		ni[j] = (uint32_t)i;
	}
	free(t->index);
	t->index = ni;
	t->index_cap = ncap;
	return 0;
}

int strtab__intern(struct strtab *t, const char *s, size_t len, uint32_t *id)
{
	uint32_t h = (uint32_t)hash__bytes(s, len, 0);
	size_t j = h & (t->index_cap - 1);
	char *copy;

	if (len > UINT32_MAX - 1)
		return -EINVAL;
	while (t->index[j]) {
		const struct entry *e = &t->entries[t->index[j]];

		if (e->hash32 == h && e->len == len && memcmp(e->str, s, len) == 0) {
			*id = t->index[j];
			return 0;
		}
		j = (j + 1) & (t->index_cap - 1);
	}
	if (t->n >= UINT32_MAX - 1)
		return -ENOMEM;
	if (t->n == t->cap) {
		size_t nc = t->cap * 2;
		struct entry *ne = realloc(t->entries, nc * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		t->entries = ne;
		t->cap = nc;
	}
	if ((t->n + 1) * 2 > t->index_cap) {
		if (rehash(t) < 0)
			return -ENOMEM;
		j = h & (t->index_cap - 1);
		while (t->index[j])
			j = (j + 1) & (t->index_cap - 1);
	}
	copy = arena_alloc(t, len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->entries[t->n].str = copy;
	t->entries[t->n].len = (uint32_t)len;
	t->entries[t->n].hash32 = h;
	t->index[j] = (uint32_t)t->n;
	*id = (uint32_t)t->n;
	t->n++;
	return 0;
}

int strtab__intern_cstr(struct strtab *t, const char *s, uint32_t *id)
{
	return strtab__intern(t, s, strlen(s), id);
}

const char *strtab__str(const struct strtab *t, uint32_t id)
{
	if (id == 0 || id >= t->n)
		return NULL;
	return t->entries[id].str;
}

size_t strtab__len(const struct strtab *t, uint32_t id)
{
	if (id == 0 || id >= t->n)
		return 0;
	return t->entries[id].len;
}

size_t strtab__count(const struct strtab *t) { return t->n - 1; }

size_t strtab__bytes(const struct strtab *t)
{
	return sizeof(*t) + t->bytes + t->cap * sizeof(struct entry) + t->index_cap * sizeof(uint32_t);
}
