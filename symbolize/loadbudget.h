/* Global budgets for the one-off work a user can make the agent do: loading
 * their binaries' debug data, reading their JIT symbol files. Every binary a
 * process maps is read on its owner's behalf, and its debug data costs what
 * its owner wants: twenty 289 KB libraries whose MiniDebugInfo
 * and compressed DWARF declare 128-256 MB each took the agent to 7 GB, and
 * a 15 s recording to 88 s. Per-binary limits cannot stop that; these do:
 *
 *  - bytes: what is read of binaries (files are read, never mapped:
 *    unwind tables, symbol tables, notes, DWARF read into memory),
 *    inflated debug data (MiniDebugInfo, compressed DWARF sections), the
 *    inline trees built from DWARF and the JIT names read from perf maps
 *    and jitdumps may hold, in all
 *    (max_bytes) and per owner of the binaries (a quarter of it for each
 *    user but root, whose system libraries share the rest with everyone):
 *    one user cannot starve the others;
 *  - time: loading debug data and reading JIT files (perf maps, jitdumps)
 *    draw on a bucket of CPU time that refills at load_ppm parts per
 *    million of wall time (2% by default) up to a burst; an empty bucket
 *    refuses the next load until it refills. Each user but root also has
 *    a bucket of a quarter of that, so one user's loads leave time for
 *    the others'.
 *
 * A binary refused by a budget keeps its symbol-table names (.symtab,
 * .dynsym; or module+0x... when even those are refused or need
 * MiniDebugInfo), or is unwound without its CFI, and is counted; sampling
 * never waits for it. Not thread-safe. */
#ifndef SMOLDER_SYMBOLIZE_LOADBUDGET_H
#define SMOLDER_SYMBOLIZE_LOADBUDGET_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LOADBUDGET_DEFAULT_BYTES (256ull << 20)
#define LOADBUDGET_DEFAULT_LOAD_PPM 20000u      /* 2% of a CPU */
#define LOADBUDGET_BURST_NS (2000000000ull)     /* 2 s of CPU in reserve */

struct loadbudget;

/* max_bytes 0: LOADBUDGET_DEFAULT_BYTES; load_ppm 0: the default. Returns
 * 0 or -ENOMEM. */
int loadbudget__new(uint64_t max_bytes, unsigned load_ppm, struct loadbudget **out);
void loadbudget__delete(struct loadbudget *b);

/* Reserves bytes for a binary owned by owner: 0, or -ENOSPC when that would
 * pass the total or the owner's share (nothing reserved then). */
int loadbudget__charge(struct loadbudget *b, uid_t owner, uint64_t bytes);
/* How many bytes a charge for owner could reserve now. */
uint64_t loadbudget__room(const struct loadbudget *b, uid_t owner);
/* Gives back what a charge reserved. */
void loadbudget__release(struct loadbudget *b, uid_t owner, uint64_t bytes);

/* Whether a load for owner may start at now_ns (monotonic): neither the
 * global time bucket nor the owner's is empty. When one is, the refusal is
 * counted. */
int loadbudget__may_load(struct loadbudget *b, uid_t owner, uint64_t now_ns);
/* A load for owner took cpu_ns of CPU, ending at now_ns: drawn from both
 * buckets. */
void loadbudget__spent(struct loadbudget *b, uid_t owner, uint64_t cpu_ns, uint64_t now_ns);
/* A binary's debug data was refused for its bytes (counted). */
void loadbudget__refused(struct loadbudget *b);

struct loadbudget_stats {
	uint64_t bytes, max_bytes;  /* reserved now, and the bound */
	uint64_t refused_bytes;     /* loads refused by the byte budgets, since start */
	uint64_t refused_time;      /* ... and by the time budget */
};
void loadbudget__stats(const struct loadbudget *b, struct loadbudget_stats *out);

#endif
