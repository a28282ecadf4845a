/* Open-addressing (linear probing, backward-shift deletion) u64 -> u64 map. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/u64map.h"

struct slot {
	uint64_t key;
	uint64_t val;
};

struct u64map {
	struct slot *slots;
	uint8_t *used;
	size_t cap; /* power of two */
	size_t count;
};

static size_t round_pow2(size_t n)
{
	size_t c = 16;

	while (c < n && c < ((size_t)1 << 40))
		c <<= 1;
	return c;
}

struct u64map *u64map__new(size_t capacity_hint)
{
	struct u64map *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cap = round_pow2(capacity_hint + capacity_hint / 2);
	m->slots = calloc(m->cap, sizeof(*m->slots));
	m->used = calloc(m->cap, 1);
	if (!m->slots || !m->used) {
		u64map__delete(m);
		return NULL;
	}
	return m;
}

void u64map__delete(struct u64map *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m->used);
	free(m);
}

static size_t find_slot(const struct u64map *m, uint64_t key, bool *found)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)hash__u64(key) & mask;

	while (m->used[i]) {
		if (m->slots[i].key == key) {
			*found = true;
			return i;
		}
		i = (i + 1) & mask;
	}
	*found = false;
	return i;
}

bool u64map__get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	bool found;
	size_t i = find_slot(m, key, &found);

	if (found)
		*val = m->slots[i].val;
	return found;
}

static int grow(struct u64map *m)
{
	struct u64map n;
	size_t i;

	n.cap = m->cap * 2;
	n.count = 0;
	n.slots = calloc(n.cap, sizeof(*n.slots));
	n.used = calloc(n.cap, 1);
	if (!n.slots || !n.used) {
		free(n.slots);
		free(n.used);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		bool found;
		size_t j;

		if (!m->used[i])
			continue;
		j = find_slot(&n, m->slots[i].key, &found);
		n.slots[j] = m->slots[i];
		n.used[j] = 1;
		n.count++;
	}
	free(m->slots);
	free(m->used);
	*m = n;
	return 0;
}

int u64map__put(struct u64map *m, uint64_t key, uint64_t val)
{
	bool found;
	size_t i = find_slot(m, key, &found);

	if (found) {
		m->slots[i].val = val;
		return 0;
	}
	/* keep load <= 3/4 so probe chains stay short */
	if ((m->count + 1) * 4 > m->cap * 3) {
		if (grow(m) < 0)
			return -ENOMEM;
		i = find_slot(m, key, &found);
	}
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->used[i] = 1;
	m->count++;
	return 0;
}

bool u64map__del(struct u64map *m, uint64_t key)
{
	size_t mask = m->cap - 1;
	bool found;
	size_t i = find_slot(m, key, &found), j;

	if (!found)
		return false;
	m->used[i] = 0;
	m->count--;
	/* backward-shift: pull later members of the probe chain into the hole */
	j = i;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!m->used[j])
			break;
		home = (size_t)hash__u64(m->slots[j].key) & mask;
		/* can the entry at j live at i? (i is cyclically between home and j) */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			m->slots[i] = m->slots[j];
			m->used[i] = 1;
			m->used[j] = 0;
			i = j;
		}
	}
	return true;
}

size_t u64map__count(const struct u64map *m) { return m->count; }

void u64map__clear(struct u64map *m)
{
	memset(m->used, 0, m->cap);
	m->count = 0;
}

size_t u64map__bytes(const struct u64map *m)
{
	return sizeof(*m) + m->cap * (sizeof(struct slot) + 1);
}

bool u64map__next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	size_t i;

	for (i = *pos; i < m->cap; i++) {
		if (m->used[i]) {
			*key = m->slots[i].key;
			*val = m->slots[i].val;
			*pos = i + 1;
			return true;
		}
	}
	*pos = m->cap;
	return false;
}
