/* Symbols of one binary, shared by every process mapping it: a sorted
 * function index built once (symtab, else dynsym, plus separate debug info
 * found by build-id / .gnu_debuglink, and MiniDebugInfo), inlined frames from
 * DWARF when present, and a bounded pc -> frames cache so that a pc seen
 * before is a hash lookup.
 *
 * Frames are ids of display strings interned in a struct strtab the caller
 * owns and passes at creation (it must outlive the symindex): the function
 * name demangled, inlined frames suffixed "_[i]", a stripped function
 * "module+0xSTART", nothing known "[module]". ';' in names becomes ':' and
 * control characters are dropped, so ids can be joined into collapsed stacks
 * as they are. Not thread-safe. */
#ifndef SMOLDER_SYMBOLIZE_SYMINDEX_H
#define SMOLDER_SYMBOLIZE_SYMINDEX_H
#include <stddef.h>
#include <stdint.h>

#include "symbolize/demangle.h"
#include "symbolize/inlineindex.h"

struct cachedir;
struct strtab;
struct symindex;

/* Opens the file at `path`, a path the caller trusts (a symlink at its end
 * is followed; another user's binary is opened with common/userfile.h and
 * given to symindex__new_fd), and indexes it: only a regular file is
 * opened, and nothing is opened before that is checked.
 * Separate debug info is searched under /usr/lib/debug only. `module` is the short name used in
 * "module+0x..." and "[module]" (normally the basename). Never fails for a
 * file that is not ELF or has no symbols: lookups then give "[module]" or
 * "module+0x...". Returns 0, -ENOMEM, or -errno from open. */
int symindex__new(const char *path, const char *module, struct strtab *names, struct symindex **out);
/* The same, with a cache directory (borrowed, may be NULL) where separate
 * debug files with compressed DWARF get a plain copy (symbolize/debugcache.h)
 * that later starts map instead of inflating. */
int symindex__new_cached(const char *path, const char *module, struct strtab *names,
		       struct cachedir *cache, struct symindex **out);
/* The same for a file already opened safely (fd is consumed, also on
 * failure; fd < 0: nothing to read, every pc is "[module]"). path names it
 * for libdwfl's messages and lookups; it is not opened. */
int symindex__new_fd(int fd, const char *path, const char *module, struct strtab *names,
		     struct cachedir *cache, struct symindex **out);
/* The same, its compressed debug data and inline trees reserved in budget
 * (symbolize/loadbudget.h; borrowed, outlives the index) for the owner of
 * the file: what the budget refuses is not loaded. */
struct loadbudget;
int symindex__new_budgeted(int fd, const char *path, const char *module, struct strtab *names,
			   struct cachedir *cache, struct loadbudget *budget, struct symindex **out);
void symindex__delete(struct symindex *s);

/* Frames at vaddr (ELF virtual address in this binary), innermost first: the
 * inlined frames ("_[i]") then the enclosing function. func_start is the
 * FDE start from the CFI (0 if unknown), used to name stripped functions.
 * Writes up to max ids and *n (>= 1 on success); when a pc has more frames
 * than max, the outermost ones are kept (the enclosing function is what
 * aggregates). At most 32 frames per pc. Returns 0, -ENOMEM, or -EINVAL
 * for max == 0. A pc seen before is a hash lookup that does not allocate. */
int symindex__lookup(struct symindex *s, uint64_t vaddr, uint64_t func_start,
		   uint32_t *out, size_t max, size_t *n);

/* One pass of a compaction of the names table (common/strtab_remap.h):
 * every frame id the symindex holds (its function names, its pc cache, its
 * "module+0x..." names, "[module]") goes through strtab_remap__id(), and in
 * the commit pass the symindex switches to r->to. Nothing is dropped: cached
 * pcs stay cached. Returns 0, or -ENOMEM in the collect pass. */
struct strtab_remap;
int symindex__remap_names(struct symindex *s, struct strtab_remap *r);

/* The binary's GNU build ID: its length (0: none), *id pointing into the
 * index's copy of the file's note (valid while s lives). */
size_t symindex__build_id(const struct symindex *s, const unsigned char **id);

/* Heap bytes of units' inlined-call trees kept (symbolize/inlineindex.h;
 * default INLINEINDEX_DEFAULT_BUDGET). */
void symindex__set_inline_budget(struct symindex *s, size_t bytes);
/* Housekeeping, now and then: inline trees built and not yet written to the
 * cache directory are written once they are age_ns old. */
void symindex__maintain(struct symindex *s, uint64_t now_ns, uint64_t age_ns);

/* How much of demangled names frames show (symbolize/demangle.h; default
 * NAME_DETAIL_DEFAULT). Set before the first lookup: names already given
 * out keep the detail they were made with. */
void symindex__set_name_detail(struct symindex *s, enum name_detail detail);

/* Where separate debug files are looked up (default /usr/lib/debug, whose
 * .build-id/ tree the distributions' debug packages fill). dir is borrowed
 * and must stay valid. For tests; not thread-safe: call before symindexes are
 * created. */
void symindex__set_debug_root(const char *dir);

struct symindex_stats {
	uint64_t symbols;   /* functions in the index */
	/* pc cache: at most 65536 entries per binary, dropped as a whole when
	 * full (evictions counts the entries dropped) */
	uint64_t lookups, hits, entries, evictions;
	int has_debuginfo;  /* DWARF or its cached index found (inlined frames) */
	struct inlineindex_stats inl; /* on pc-cache misses */
};
void symindex__stats(const struct symindex *s, struct symindex_stats *out);

#endif
