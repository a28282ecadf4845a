/* Rewriting string ids from one table to a compacted one, in two passes. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"

int strtab_remap__init(struct strtab_remap *r, const struct strtab *from, struct strtab *to)
{
	size_t n = strtab__count(from) + 1;
	uint32_t *map = calloc(n, sizeof(*map));

	if (!map)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	r->from = from;
	r->to = to;
	r->map = map;
	r->nmap = n;
	return 0;
}

void strtab_remap__fini(struct strtab_remap *r)
{
	if (!r)
		return;
	free(r->map);
	r->map = NULL;
	r->nmap = 0;
}

void strtab_remap__commit(struct strtab_remap *r)
{
	r->commit = 1;
}

int strtab_remap__id(struct strtab_remap *r, uint32_t *id)
{
	uint32_t old = *id;
	const char *s;
	int err;

	if (old == 0)
		return 0;
	if (old >= r->nmap) {
		if (r->commit) {
			r->missed++;
			*id = 0;
		}
		return 0;
	}
	if (r->commit) {
		if (!r->map[old])
			r->missed++;
		*id = r->map[old];
		return 0;
	}
	if (r->map[old])
		return 0;
	s = strtab__str(r->from, old);
	if (!s)
		return 0;
	err = strtab__intern(r->to, s, strtab__len(r->from, old), &r->map[old]);
	return err < 0 ? err : 0;
}

int strtab_remap__map_values(struct strtab_remap *r, struct u64map *m)
{
	uint64_t key, val;
	uint32_t id;
	size_t pos = 0;
	int err = 0;

	while (!err && m && u64map__next(m, &pos, &key, &val)) {
		id = (uint32_t)val;
		err = strtab_remap__id(r, &id);
		if (!err && r->commit)
			(void)u64map__put(m, key, id); /* overwrites: no insert */
	}
	return err;
}
