/* Compacting a string table: the strings still in use are copied into a new
 * table and every holder of ids is rewritten to the new ids, so that the
 * strings nothing refers to any more (frames of binaries since unloaded, JIT
 * names of processes since gone) are freed with the old table.
 *
 * Two passes over the same holders, so that a failure changes nothing:
 *   1. collect (r->commit == 0): each holder passes each of its ids to
 *      strtab_remap__id(), which interns the string in the new table and
 *      remembers old -> new; the holder itself is left as it is. May fail
 *      with -ENOMEM: the caller then drops the new table and keeps the old.
 *   2. commit (strtab_remap__commit(), then the same walk): each id is
 *      replaced by its new id (an array lookup that cannot fail) and each
 *      holder switches its table pointer to r->to.
 * Not thread-safe; the tables must not change between the passes except
 * through strtab_remap__id(). */
#ifndef SMOLDER_COMMON_STRTAB_REMAP_H
#define SMOLDER_COMMON_STRTAB_REMAP_H
#include <stddef.h>
#include <stdint.h>

struct strtab;

struct strtab_remap {
	const struct strtab *from;
	struct strtab *to;
	int commit;       /* 0: collect pass; 1: commit pass */
	uint32_t *map;    /* from's id -> to's id; 0: not collected */
	size_t nmap;      /* ids of `from` + 1 */
	uint64_t missed;  /* commit pass: ids the collect pass never saw (a
			   * holder's bug); they became 0, "unknown" */
};

/* Prepares a remap from `from` into `to` (usually empty). Returns 0 or
 * -ENOMEM (r unchanged). Both tables are borrowed. */
int strtab_remap__init(struct strtab_remap *r, const struct strtab *from, struct strtab *to);
/* Frees what init allocated. Accepts a zeroed or finished r. */
void strtab_remap__fini(struct strtab_remap *r);
/* Ends the collect pass: from now on strtab_remap__id() rewrites ids. */
void strtab_remap__commit(struct strtab_remap *r);

/* Collect pass: interns the string of *id in r->to (once per id), leaves
 * *id alone; 0 or -ENOMEM. Commit pass: *id becomes its id in r->to;
 * always 0. id 0 ("none") stays 0 in both passes; an id `from` does not
 * have is left alone in the collect pass and becomes 0 in the commit pass. */
int strtab_remap__id(struct strtab_remap *r, uint32_t *id);

/* strtab_remap__id() on every value of a map whose values are ids (in the
 * commit pass the values are rewritten in place). m may be NULL. */
struct u64map;
int strtab_remap__map_values(struct strtab_remap *r, struct u64map *m);

#endif
