/* The symbolizer: the one entry point that turns a pc into frame names.
 * A user pc comes with what the caller (the collector) knows of the code it
 * is in: the symbol index of the binary mapped there, or nothing for
 * anonymous memory, which is JIT code when the process's perf map names it.
 * A kernel pc is named from /proc/kallsyms. Frames are ids of display
 * strings interned in the caller's struct strtab, following the
 * conventions of profile/frame_name.h, so stacks are id arrays and names
 * are built once per distinct pc, not per sample.
 *
 * Per process, the symbolizer keeps only JIT maps; the caller tells it when
 * a process's image goes (exec, exit) so a reused pid never inherits them.
 * Not thread-safe: the sampling thread owns it. */
#ifndef SMOLDER_SYMBOLIZE_SYMBOLIZER_H
#define SMOLDER_SYMBOLIZE_SYMBOLIZER_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cachedir;
struct runtime_reader;
struct strtab;
struct strtab_remap;
struct symbolizer;
struct symindex;

/* Inlined frames one pc may expand into, at most. */
#define SYMBOLIZER_MAX_FRAMES_PER_PC 16

/* What the caller knows of the code holding a user pc. */
struct symbolize_code {
	struct symindex *index;  /* the mapped binary's symbols; NULL: no ELF file
	                          * there (anonymous memory, a memfd, unreadable) */
	uint32_t module_frame;   /* "[module]" of the mapped file, interned once
	                          * per binary; 0: none known */
	uint32_t path;           /* strtab id of the mapped file's path as the
	                          * process sees it; 0 for anonymous memory */
	uint64_t vaddr;          /* the pc in the binary's ELF addresses */
	uint64_t func_start;     /* start of its function from the CFI; 0: unknown */
	/* code a runtime reader described (runtimes/runtime.h): named by its
	 * instance first; NULL: none */
	const struct runtime_reader *reader;
	void *instance;
	uint64_t slot;           /* the word the frame's shape keeps (an
	                          * interpreted frame's method) */
	uint64_t bcp;            /* an interpreted frame's position in its
	                          * method (unwind_frame.bcp); 0: unknown */
	uint64_t now_ns;         /* CLOCK_MONOTONIC now: readers pace their
	                          * re-reads by it (sample times may be
	                          * another clock) */
	int exact;               /* pc is where the frame was (the leaf, or an
	                          * interrupted one), not a return address */
	int signal_frame;        /* the CFI marks it a signal trampoline: named
	                          * "[signal]" whatever the symbol (__restore_rt,
	                          * often stripped to libc.so.6+0x...) */
};

/* The process a user pc belongs to: its JIT symbols are read on its
 * behalf, from /tmp/perf-PID.map and the jitdump file it maps, owned by
 * its user as the kernel says when they are read (symbolize/jitnames.h). */
struct symbolize_process {
	int pid;
	uint32_t jitdump;        /* strtab id of its jit-PID.dump path; 0: none */
};

/* Native frames named from now on carry their file and line (DWARF line
 * tables; inlined frames their call sites): "f (file.c:LINE)". Process-
 * wide (the binaries and their caches are shared): set once at start,
 * before any binary is indexed. */
void symbolizer__set_lines(int on);

/* names is borrowed (frames are interned there) and must outlive the
 * symbolizer. With kernel set, the kernel's symbol table is loaded (from
 * cache when it holds this boot's, cache may be NULL); without, every
 * kernel pc is "[kernel]_[k]". Returns 0, or -ENOMEM. */
int symbolizer__new(struct strtab *names, struct cachedir *cache, int kernel,
		    struct symbolizer **out);
void symbolizer__delete(struct symbolizer *sz);

/* The frames of user pc, innermost first (the function last, after what
 * was inlined into it), into out[0..max), their number in *n (>= 1 on
 * success). An ELF binary's pc is named from its index, a stripped
 * function "module+0xSTART", else "[module]"; anonymous memory from the
 * process's perf map or jitdump (read again when they changed, at most once
 * a second), else "[module]" or "[unknown]". now_ns paces the perf-map reloads.
 * Returns 0, or -EINVAL for max == 0. A pc seen before allocates nothing. */
int symbolizer__user(struct symbolizer *sz, const struct symbolize_process *proc, uint64_t pc,
		     const struct symbolize_code *code, uint64_t now_ns, uint32_t *out, size_t max,
		     size_t *n);
/* The frame of a kernel pc ("name_[k]", or "[kernel]_[k]" when unknown). */
uint32_t symbolizer__kernel(struct symbolizer *sz, uint64_t pc);
/* The "[unknown]" frame. */
uint32_t symbolizer__unknown(const struct symbolizer *sz);
/* The "[truncated]" frame: the root of a stack whose unwinding stopped
 * before its outermost frame (the stack copy ended, the depth limit, no
 * CFI, a bad pc), so that a cut stack never poses as a root of its own. */
uint32_t symbolizer__truncated(const struct symbolizer *sz);

/* Reading JIT files draws on budget's time (symbolize/loadbudget.h;
 * borrowed, outlives the symbolizer). */
struct loadbudget;
void symbolizer__set_budget(struct symbolizer *sz, struct loadbudget *budget);

/* The image of process pid is gone (exec, or the process was reaped):
 * its pending JIT frames are settled, its JIT maps dropped. */
void symbolizer__forget_process(struct symbolizer *sz, int pid);
/* Forgets the processes that are gone though no one said so
 * (jitnames__forget_gone); call it now and then. */
void symbolizer__forget_gone(struct symbolizer *sz);

/* At a window's end: anonymous code no file named when it was sampled got
 * a pending frame; each is now looked up once more in freshly read files
 * (symbolize/jitnames.h). Returns how many frames are renamed; the caller
 * applies symbolizer__renamed to the window (profile__rename_frames), then
 * clears the renames. */
size_t symbolizer__settle(struct symbolizer *sz);
uint32_t symbolizer__renamed(void *sz, uint32_t id);
void symbolizer__clear_renames(struct symbolizer *sz);

struct symbolizer_stats {
	uint64_t ksym_lookups, ksym_hits, ksym_evictions; /* kernel symbol cache */
	uint64_t jit_processes;  /* processes with a perf map or jitdump loaded */
	uint64_t load_cpu_ns;    /* CPU spent reading JIT files, since start */
};
void symbolizer__stats(const struct symbolizer *sz, struct symbolizer_stats *out);

/* One pass of a compaction of the names table (common/strtab_remap.h):
 * every id the symbolizer holds (its fixed frames, kernel symbols, JIT
 * symbols) goes through strtab_remap__id(); in the commit pass it switches
 * to r->to. Returns 0, or -ENOMEM in the collect pass. */
int symbolizer__remap_names(struct symbolizer *sz, struct strtab_remap *r);

#endif
