/* String interning with an arena of NUL-terminated strings and a hash index. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/hashidx.h"
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
	struct hashidx index; /* values: ids */
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
	if (!t->entries || hashidx__init(&t->index, 512) < 0) {
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
	hashidx__fini(&t->index);
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

static uint32_t hash_of_id(const void *ctx, uint32_t id)
{
	return ((const struct strtab *)ctx)->entries[id].hash32;
}

int strtab__intern(struct strtab *t, const char *s, size_t len, uint32_t *id)
{
	uint32_t h = (uint32_t)hash__bytes(s, len, 0), v;
	size_t j;
	char *copy;
	int grew;

	if (len > UINT32_MAX - 1)
		return -EINVAL;
	for (j = hashidx__home(&t->index, h); (v = t->index.slots[j]); j = hashidx__next(&t->index, j)) {
		const struct entry *e = &t->entries[v];

		if (e->hash32 == h && e->len == len && memcmp(e->str, s, len) == 0) {
			*id = v;
			return 0;
		}
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
	grew = hashidx__reserve(&t->index, t->n - 1, hash_of_id, t);
	if (grew < 0)
		return -ENOMEM;
	if (grew) /* the empty slot found above moved */
		for (j = hashidx__home(&t->index, h); t->index.slots[j];
		     j = hashidx__next(&t->index, j))
			;
	copy = arena_alloc(t, len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->entries[t->n].str = copy;
	t->entries[t->n].len = (uint32_t)len;
	t->entries[t->n].hash32 = h;
	t->index.slots[j] = (uint32_t)t->n;
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
	return sizeof(*t) + t->bytes + t->cap * sizeof(struct entry) + hashidx__bytes(&t->index);
}
