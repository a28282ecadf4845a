/* The registry of binaries: one object per file, identified by (device,
 * inode), shared by every process that maps it. It holds what unwinding and
 * symbolization need of the file (the open ELF, its load segments, its CFI and
 * its symbol index), each loaded lazily on first use, so memory grows with the
 * number of distinct binaries, not with the number of processes. Files are
 * read, never mapped (their owners may cut them short at any time), and
 * what reading them holds is charged to the owner's share of the load
 * budget. Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_BINARY_H
#define SMOLDER_COLLECTOR_BINARY_H
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize/demangle.h"

struct binaries;
struct binary;
struct cfi;
struct cachedir;
struct symindex;
struct strtab;

/* names is borrowed (frame strings go there). NULL on ENOMEM. */
struct binaries *binaries__new(struct strtab *names);
void binaries__delete(struct binaries *bs);
/* Where symbol tables keep plain copies of compressed debug files (borrowed,
 * NULL: none); applies to binaries loaded from now on. */
void binaries__set_cache(struct binaries *bs, struct cachedir *cache);
/* The budgets the debug data of binaries loaded from now on draws on
 * (symbolize/loadbudget.h; borrowed, outlives the registry). */
struct loadbudget;
void binaries__set_budget(struct binaries *bs, struct loadbudget *budget);
/* How much of demangled names the symbols of binaries loaded from now on
 * show (symbolize/demangle.h). */
void binaries__set_name_detail(struct binaries *bs, enum name_detail detail);

/* Binaries are reference-counted by the mappings that resolved to them:
 * binaries__get and binaries__get_vdso return a new reference, released with
 * binaries__put. A binary no mapping uses any more stays loaded for a grace
 * period (processes of the same binary come and go), then binaries__trim
 * frees it, with its fd, CFI, symbols and DWARF: memory follows the
 * binaries in use, not every binary ever seen. */

/* Finds or opens the binary for a mapping of `path` (as the process sees it)
 * in process `pid`. The file is opened through /proc/PID/root (mount
 * namespaces), then through /proc/PID/map_files/START-END (deleted files),
 * then at `path` itself (processes already gone); dev/ino, when non-zero, must
 * match what the opened file is, so a replaced file is never mistaken for the
 * mapped one. A file that cannot be opened or is not ELF still gets an object
 * (so it is not retried per sample) whose cfi and symbols are absent.
 * Returns 0 and *out (owned by the registry), or -ENOMEM. */
int binaries__get(struct binaries *bs, int pid, const char *path, uint64_t dev, uint64_t ino,
		  uint64_t map_start, uint64_t map_end, struct binary **out);
size_t binaries__count(const struct binaries *bs);
/* Every binary whose symbols were indexed: module name, path and build
 * ID, for the dumps' mappings (profile/mappings.h). */
struct mappings;
const struct mappings *binaries__mappings(const struct binaries *bs);
/* Another reference to b / one reference less (b may be freed by the next
 * binaries__trim once unused for its grace period). */
void binaries__ref(struct binary *b);
void binaries__put(struct binaries *bs, struct binary *b, uint64_t now_ns);
/* Frees the binaries unused since before now_ns - grace_ns, and also the
 * oldest unused ones while more than max_idle are unused; the others'
 * symbols do their housekeeping (symindex__maintain). Returns how many
 * were freed. */
size_t binaries__trim(struct binaries *bs, uint64_t now_ns, uint64_t grace_ns, size_t max_idle);

/* Cache counters summed over every binary (since start): CFI rule lookups,
 * symbol (pc -> frames) lookups, and the inlined-call trees of compilation
 * units (one lookup per symbol-cache miss in a binary with DWARF): lookups,
 * hits and evictions. */
struct binaries_stats {
	uint64_t cfi_lookups, cfi_hits, cfi_evictions;
	uint64_t sym_lookups, sym_hits, sym_evictions;
	uint64_t inline_lookups, inline_hits, inline_evictions;
	uint64_t inline_builds, inline_loads, inline_index_bytes, inline_rejected;
	/* CPU spent opening binaries, loading their CFI and symbols, building
	 * units' inline trees: one-off work, not the steady cost of sampling */
	uint64_t load_cpu_ns;
};
void binaries__stats(const struct binaries *bs, struct binaries_stats *out);

/* One pass of a compaction of the names table (common/strtab_remap.h) over
 * every binary's symbols (symindex__remap_names); in the commit pass the
 * registry switches to r->to for binaries loaded later. Returns 0, or
 * -ENOMEM in the collect pass. */
struct strtab_remap;
int binaries__remap_names(struct binaries *bs, struct strtab_remap *r);

/* The vDSO ("[vdso]" in maps). It is no file, but the kernel maps the same
 * image into every 64-bit process, so ours stands for all of them: a copy is
 * kept in an unlinked private temporary file, giving the unwinder its CFI and
 * the symbolizer its symbols (clock_gettime, gettimeofday...). Returns 0 and
 * *out, -ENOENT when there is no vDSO, or -errno; the failure is remembered. */
int binaries__get_vdso(struct binaries *bs, struct binary **out);

/* The bias of an executable mapping: ELF vaddr = pc - bias, for a mapping
 * [map_start, map_end) of file offset pgoff. The PT_LOAD segment it maps is
 * the executable one among those its file range overlaps: linkers that
 * pack segments (lld, mold) put the read-only and the executable segment in
 * one file page, and picking by pgoff alone took the read-only one, whose
 * vaddr is a page off. */
uint64_t binary__bias(const struct binary *b, uint64_t map_start, uint64_t map_end, uint64_t pgoff);
/* The CFI (read on first call, its bytes reserved in the load budget) or
 * NULL when the file has none, it cannot be read any more (cut short since
 * it was opened), or the budget refused it. */
struct cfi *binary__cfi(struct binary *b);
/* The runtime a reader recognised in the binary (collector/runtimes.c
 * offers each binary to the readers once): true with its tag (0: none
 * did) and the reader's facts about it, false when it was not offered
 * yet. */
bool binary__runtime(const struct binary *b, uint8_t *tag, void **data);
/* Records what the readers said; data is freed with free_data (may be
 * NULL) when the binary goes. */
void binary__set_runtime(struct binary *b, uint8_t tag, void *data, void (*free_data)(void *));
/* The file read afresh (never mapped: unwind/elffile.h) for the runtime
 * readers' lookups of symbols, to be closed by binary__close_elf as soon
 * as they are done: what they read (.dynsym, .symtab, .dynamic, their
 * strings, a few bytes of data) is freed then, and reserved in the load
 * budget until then. NULL when the file is no ELF or the budget refused it. One at a
 * time per binary. */
Elf *binary__open_elf(struct binary *b);
/* Accepts NULL. */
void binary__close_elf(struct binary *b, Elf *elf);
/* Instead of binary__close_elf, for the Elf a reader recognised the binary
 * in: what the reader keeps may point into what it read there (Go's
 * pc-line table and code), so the Elf stays, charged, until the binary
 * goes, after the reader's data is freed. One per binary. */
void binary__keep_elf(struct binary *b, Elf *elf);
/* The symbol index (built on first call), or NULL on allocation failure. */
struct symindex *binary__symindex(struct binary *b);
/* The frame "[module]" for a pc of this binary that nothing names, interned
 * once (no string is built per sample); 0 on ENOMEM. */
uint32_t binary__unknown_frame(struct binary *b);
/* The short module name used in frames ("libc.so.6"). */
const char *binary__module(const struct binary *b);
/* The ELF entry point (e_entry, an ELF vaddr), 0 when the file has none. */
uint64_t binary__entry(const struct binary *b);
const char *binary__path(const struct binary *b);
int binary__is_elf(const struct binary *b);

#endif
