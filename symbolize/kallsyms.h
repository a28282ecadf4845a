/* Kernel symbols from /proc/kallsyms, sorted once. Frames are interned as
 * "name_[k]"; when kptr_restrict hides addresses (all zero) every kernel pc is
 * "[kernel]_[k]". Not thread-safe. */
#ifndef SMOLDER_SYMBOLIZE_KALLSYMS_H
#define SMOLDER_SYMBOLIZE_KALLSYMS_H
#include <stddef.h>
#include <stdint.h>

struct strtab;
struct kallsyms;

/* pcs cached by kallsyms__lookup; the cache is emptied when full. */
#define KALLSYMS_CACHE_MAX 8192

/* The per-pc cache of kallsyms__lookup, for reporting its hit rate. */
struct kallsyms_stats {
	uint64_t lookups;   /* kallsyms__lookup calls */
	uint64_t hits;      /* of those, answered from the cache */
	uint64_t entries;   /* pcs cached now */
	uint64_t evictions; /* pcs dropped because the cache was full */
};

/* Reads `path` (normally "/proc/kallsyms"). Returns 0, -errno, -ENOMEM.
 * A file with no usable addresses still loads (restricted mode). */
int kallsyms__load(const char *path, struct strtab *names, struct kallsyms **out);
void kallsyms__delete(struct kallsyms *k);
/* True when addresses were hidden (kptr_restrict). */
int kallsyms__restricted(const struct kallsyms *k);
/* The frame id for a kernel pc (cached). Returns 0 or -ENOMEM. */
int kallsyms__lookup(struct kallsyms *k, uint64_t pc, uint32_t *id);
/* Symbols kept (one per address). */
size_t kallsyms__count(const struct kallsyms *k);
void kallsyms__stats(const struct kallsyms *k, struct kallsyms_stats *st);

/* One pass of a compaction of the names table (common/strtab_remap.h): the
 * frame ids of the symbols looked up so far and of the pc cache go through
 * strtab_remap__id(); in the commit pass the table switches to r->to.
 * Returns 0, or -ENOMEM in the collect pass. */
struct strtab_remap;
int kallsyms__remap_names(struct kallsyms *k, struct strtab_remap *r);

/* For symbolize/kallsyms_cache.c, which stores the parsed table as is. */

/* Bytes per symbol in kallsyms_arrays.syms: the low 32 bits of its address,
 * then the offset of its name in the blob (both uint32_t, host order). */
#define KALLSYMS_SYM_SIZE 8

/* The table as kallsyms.c keeps it: symbols sorted by address, one per
 * address; the upper address halves in hi, or all equal to base when hi is
 * NULL; names NUL-terminated in the blob. */
struct kallsyms_arrays {
	size_t n;         /* symbols */
	void *syms;       /* n * KALLSYMS_SYM_SIZE bytes */
	uint32_t *hi;     /* n upper halves, or NULL */
	uint32_t base;
	char *blob;
	size_t blob_len;
};

/* The address of the first text symbol of `path` (0 when kptr_restrict
 * hides addresses from this process), reading only as far as that line.
 * Returns 0, -ENODATA (no text symbol), -errno. */
int kallsyms__first_text(const char *path, uint64_t *addr);
/* Borrows k's arrays (valid until kallsyms__delete; not to be modified).
 * Returns 0, -ENODATA for a restricted or empty table, -EBUSY once
 * kallsyms__lookup has run (names are then replaced by frame ids). */
int kallsyms__arrays(const struct kallsyms *k, struct kallsyms_arrays *a);
/* A table from arrays of hostile origin (malloc'd): checks them (-EBADMSG:
 * not what a parse makes) and on success takes ownership of a->syms, a->hi
 * and a->blob; on failure they stay the caller's. Returns 0, -EBADMSG,
 * -ENOMEM. */
int kallsyms__from_arrays(struct strtab *names, const struct kallsyms_arrays *a,
			  struct kallsyms **out);
/* The same for arrays that point into [map, map + map_len), a private
 * writable mapping (MAP_PRIVATE) of a cache file: no copy, and only the
 * pages touched count. On success the table owns the mapping and unmaps it
 * when deleted; on failure it stays the caller's. */
int kallsyms__from_mapping(struct strtab *names, const struct kallsyms_arrays *a, void *map,
			   size_t map_len, struct kallsyms **out);

#endif
