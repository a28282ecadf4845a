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

#endif
