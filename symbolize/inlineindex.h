/* Inlined frames of one binary: the compact trees of its compilation units
 * (symbolize/inlines.h), built from DWARF the first time a pc lands in a
 * unit, kept within a byte budget, and written to the cache directory so
 * that the next run (or a restarted daemon) maps them instead of parsing
 * any DWARF at all.
 *
 * The file of a binary (symbolize/inlineindex_file.h) holds the table of
 * every unit's address ranges and the trees of the units built so far. It
 * is keyed by the binary's identity (build-id, owner, size, mtime, and the
 * path when there is no build-id) and everything in it is checked before it
 * is used: a damaged, truncated or foreign file is ignored and rebuilt.
 *
 * Trees built in this run live on the heap until they are written; past
 * the budget the file is rewritten with them (they are then mapped from the
 * page cache, and only the pages lookups touch are resident) or, without a
 * cache directory, the least recently used are dropped. Not thread-safe. */
#ifndef SMOLDER_SYMBOLIZE_INLINEINDEX_H
#define SMOLDER_SYMBOLIZE_INLINEINDEX_H
#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbolize/inlines.h"

struct cachedir;
struct loadbudget;
struct inlineindex;

/* Heap bytes of trees kept per binary by default. */
#define INLINEINDEX_DEFAULT_BUDGET (8u << 20)
/* Longest identity of a binary (inlineindex__key). */
#define INLINEINDEX_KEY_MAX 512

/* Where the binary's DWARF comes from, when it has to be read. */
struct inlineindex_source {
	Dwfl_Module *mod;   /* borrowed, outlives the index */
	uint64_t bias;      /* module address = ELF vaddr + bias */
	int dwarf_ok;       /* 0: DWARF may not be read (budget): cached trees only */
};

/* The identity of a binary: its owner, size and mtime (st, of the file
 * opened), its build-id (id[0..id_len), may be empty) and, without a
 * build-id, its path. The owner is part of it so that no user's file can
 * stand for another user's (or root's) binary with the same build-id.
 * Writes at most INLINEINDEX_KEY_MAX bytes to key; returns the length, or 0
 * for a build-id over 256 bytes (then nothing is cached). */
struct stat;
size_t inlineindex__key(const struct stat *st, const unsigned char *id, size_t id_len,
			const char *path, unsigned char *key);

/* The index of a binary: from its file in cache (may be NULL) when a valid
 * one exists for key[0..key_len), else the unit table read from the DWARF.
 * budget (may be NULL) is charged for heap trees as owner's. Returns 0,
 * -ENOENT (no usable DWARF and no cached file: no inlined frames), or
 * -ENOMEM. */
int inlineindex__open(const struct inlineindex_source *src, struct cachedir *cache,
		      const unsigned char *key, size_t key_len, struct loadbudget *budget,
		      uid_t owner, struct inlineindex **out);
/* Writes what was built and not yet saved, then frees everything. */
void inlineindex__delete(struct inlineindex *x);

/* Frames at vaddr, innermost first, ending with the enclosing function, as
 * inlines__at. Names point into trees the index holds: valid until the next
 * call on x. Returns the number of frames (0: no unit or function covers
 * vaddr, or its tree could not be had). */
size_t inlineindex__at(struct inlineindex *x, uint64_t vaddr, struct inline_frame *out, size_t max);

/* The file and line of vaddr from its unit's line table (read only when
 * lines were asked: inlines__set_lines): 0, or -ENOENT (x NULL, no unit,
 * no row, line 0). *file points into libdw's data, valid while x lives. */
int inlineindex__line(struct inlineindex *x, uint64_t vaddr, const char **file, unsigned *line);

/* Housekeeping, called now and then: what was built and not saved is
 * written once it is at least `age_ns` old. */
void inlineindex__maintain(struct inlineindex *x, uint64_t now_ns, uint64_t age_ns);
/* Writes now what was built and not saved. Returns 0 or -errno. */
int inlineindex__save(struct inlineindex *x);

/* Heap bytes of trees kept (default INLINEINDEX_DEFAULT_BUDGET). */
void inlineindex__set_budget(struct inlineindex *x, size_t bytes);

struct inlineindex_stats {
	uint64_t units;       /* compilation units with code */
	uint64_t lookups;     /* pcs asked for (pc-cache misses of the symindex) */
	uint64_t hits;        /* ... whose unit's tree was ready (heap or file) */
	uint64_t builds;      /* trees built from DWARF */
	uint64_t loads;       /* trees taken from the cache file (checked once each) */
	uint64_t evictions;   /* heap trees dropped unsaved (no cache directory) */
	uint64_t saves;       /* cache file written */
	uint64_t rejected;    /* cache files or trees in them found damaged */
	uint64_t heap_bytes;  /* trees held on the heap */
	uint64_t file_bytes;  /* the mapped cache file */
	uint64_t build_cpu_ns;
};
void inlineindex__stats(const struct inlineindex *x, struct inlineindex_stats *out);

#endif
