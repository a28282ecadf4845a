/* The binaries a profile's unnamed frames are in (mappings.h). Entries in
 * an array in the order added, found by module name through a map from
 * the name's hash to the first entry of that hash; entries of one hash are
 * chained. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/u64map.h"
#include "profile/mappings.h"

struct entry {
	struct mapping m;
	size_t module_len;
	uint64_t hash;
	size_t next; /* the next entry of the same hash, + 1; 0: none */
};

struct mappings {
	struct entry *e;
	size_t n, cap;
	struct u64map *by_hash; /* hash of the module -> first entry + 1 */
};

struct mappings *mappings__new(void)
{
	struct mappings *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->by_hash = u64map__new(64);
	if (!m->by_hash) {
		free(m);
		return NULL;
	}
	return m;
}

void mappings__delete(struct mappings *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		free((char *)m->e[i].m.module);
		free((char *)m->e[i].m.path);
		free((char *)m->e[i].m.build_id);
	}
	free(m->e);
	u64map__delete(m->by_hash);
	free(m);
}

static uint64_t name_hash(const char *module, size_t len)
{
	return hash__bytes(module, len, 0x6d6170);
}

static bool is_hex(const char *s)
{
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

static const struct entry *first_of(const struct mappings *m, uint64_t hash)
{
	uint64_t v;

	return u64map__get(m->by_hash, hash, &v) && v - 1 < m->n ? &m->e[v - 1] : NULL;
}

static const struct entry *next_of(const struct mappings *m, const struct entry *e)
{
	return e->next && e->next - 1 < m->n ? &m->e[e->next - 1] : NULL;
}

static bool same_name(const struct entry *e, const char *module, size_t len)
{
	return e->module_len == len && !memcmp(e->m.module, module, len);
}

/* The last entry of hash's chain, + 1; 0 when the chain is empty. */
static size_t chain_tail(const struct mappings *m, uint64_t hash)
{
	const struct entry *e = first_of(m, hash);

	if (!e)
		return 0;
	while (next_of(m, e))
		e = next_of(m, e);
	return (size_t)(e - m->e) + 1;
}

int mappings__add(struct mappings *m, const char *module, const char *path, const char *build_id)
{
	size_t len = module ? strlen(module) : 0, tail;
	uint64_t hash;
	const struct entry *e;
	struct entry fresh;

	if (!len || (build_id && (strlen(build_id) > MAPPING_BUILD_ID_HEX_MAX || !is_hex(build_id))))
		return -EINVAL;
	path = path ? path : "";
	build_id = build_id ? build_id : "";
	hash = name_hash(module, len);
	for (e = first_of(m, hash); e; e = next_of(m, e))
		if (same_name(e, module, len) && !strcmp(e->m.path, path) && !strcmp(e->m.build_id, build_id))
			return 0;
	if (m->n == MAPPINGS_MAX)
		return -ENOSPC;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct entry *grown = realloc(m->e, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		m->e = grown;
		m->cap = cap;
	}
	memset(&fresh, 0, sizeof(fresh));
	fresh.m.module = strdup(module);
	fresh.m.path = strdup(path);
	fresh.m.build_id = strdup(build_id);
	fresh.module_len = len;
	fresh.hash = hash;
	tail = chain_tail(m, hash);
	if (!fresh.m.module || !fresh.m.path || !fresh.m.build_id ||
	    (!tail && u64map__put(m->by_hash, hash, m->n + 1) != 0)) {
		free((char *)fresh.m.module);
		free((char *)fresh.m.path);
		free((char *)fresh.m.build_id);
		return -ENOMEM;
	}
	if (tail)
		m->e[tail - 1].next = m->n + 1;
	m->e[m->n++] = fresh;
	return 0;
}

void mappings__hex(const unsigned char *id, size_t len, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (len > MAPPING_BUILD_ID_HEX_MAX / 2)
		len = MAPPING_BUILD_ID_HEX_MAX / 2;
	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * len] = '\0';
}

int mappings__add_bytes(struct mappings *m, const char *module, const char *path, const unsigned char *id,
			size_t len)
{
	char hex[MAPPING_BUILD_ID_HEX_MAX + 1];

	mappings__hex(id, len, hex);
	return mappings__add(m, module, path, len ? hex : NULL);
}

size_t mappings__count(const struct mappings *m)
{
	return m ? m->n : 0;
}

const struct mapping *mappings__at(const struct mappings *m, size_t i)
{
	return m && i < m->n ? &m->e[i].m : NULL;
}

size_t mappings__named(const struct mappings *m, const char *module, size_t len, size_t *idx, size_t max)
{
	const struct entry *e;
	size_t n = 0;

	if (!m || !len)
		return 0;
	for (e = first_of(m, name_hash(module, len)); e; e = next_of(m, e)) {
		if (!same_name(e, module, len))
			continue;
		if (n < max)
			idx[n] = (size_t)(e - m->e);
		n++;
	}
	return n;
}

const struct mapping *mappings__find(const struct mappings *m, const char *module, size_t len, bool *ambiguous)
{
	size_t idx, n = mappings__named(m, module, len, &idx, 1);

	*ambiguous = n > 1;
	return n == 1 ? &m->e[idx].m : NULL;
}
