/* The sampling loop: per-CPU rings in, aggregated profile out. Records of all
 * rings are gathered each poll, ordered by time (rings are not ordered with
 * each other: a sample can be read before the MMAP that explains it), then
 * fed to the process table or through unwind -> symbolize -> profile.
 * Steady state allocates nothing per sample. Single-threaded. */
#ifndef SMOLDER_COLLECTOR_SAMPLER_H
#define SMOLDER_COLLECTOR_SAMPLER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize/demangle.h"

struct agent_stats;
struct perf_features;
struct profile;
struct sampler;

struct cachedir;

struct sampler_opts {
	unsigned freq_hz;        /* sampling frequency per CPU */
	uint32_t stack_size;     /* bytes of user stack copied per sample */
	/* "cpu-clock" (default), "cycles", "off-cpu", or a CPU event and
	 * off-cpu ("cpu-clock,off-cpu"): profile/event_list.h. Each event
	 * has a window of its own (sampler__window_profile). */
	const char *event;
	/* off-cpu's rate beside a CPU event (0: freq_hz) */
	unsigned off_cpu_freq_hz;
	int per_pid;             /* group per pid, not only per service + exe */
	int group_by_thread;     /* group per thread name too (a "thread" label) */
	size_t max_frames;       /* user frames per stack (default 512) */
	/* Targets: system-wide, or these processes (a command: one child
	 * created stopped by the caller) with every thread and every process
	 * that descends from them, those they start later included. */
	int system_wide;
	const int *pids;
	size_t npids;
	/* Where kernel symbols and decompressed debug sections are kept across
	 * starts; NULL: none. Borrowed: outlives the sampler, used only by the
	 * sampling thread. */
	struct cachedir *cache;
	/* Budgets of the debug data users' binaries make the agent load
	 * (symbolize/loadbudget.h): bytes in all (0: the default, 256 MiB),
	 * and loading time in parts per million of wall time (0: 2%). */
	uint64_t debug_max_bytes;
	unsigned debug_load_ppm;
	/* How much of demangled names frames show (symbolize/demangle.h);
	 * zeroed options give NAME_DETAIL_SHORT, the default. */
	enum name_detail names;
	/* Runtimes: keep the native frames (an interpreter's eval loop)
	 * beside the language frames they ran (by default the language frames
	 * replace them) */
	bool keep_native;
	bool lines;              /* language frames carry the line they run,
	                            where the reader knows it (CPython) */
};

/* Where opening failed, for the CLI's message. */
struct sampler_error {
	int err;        /* negative errno */
	int cpu, pid;   /* -1 when not applicable */
	char what[160]; /* the failed step, e.g. "perf_event_open" */
};

/* Probes the host, opens one ring per CPU for the targets (events start
 * disabled), seeds the process table. Returns 0, or -errno with *e filled. */
int sampler__new(const struct sampler_opts *o, struct sampler **out, struct sampler_error *e);
void sampler__delete(struct sampler *s);

int sampler__enable(struct sampler *s);
/* Changes the sampling frequency of every ring's events (the CPU budget).
 * Returns 0 or -errno. */
int sampler__set_frequency(struct sampler *s, unsigned hz);
int sampler__disable(struct sampler *s);

/* Waits up to timeout_ms for data, then processes every record available.
 * Returns 0, or -errno on a failure of poll itself (EINTR is 0). */
int sampler__poll(struct sampler *s, int timeout_ms);
/* Whether the targets (-p or the command) still have a process with a
 * thread that is not a zombie: followed as trees, any process of the trees
 * (before answering no, the records already in the rings are handled: a
 * child forked just before its parent's end is known by its FORK record);
 * else any of the target processes. Always 1 system-wide. A process that
 * exited but was not reaped yet by its parent counts as gone. */
int sampler__targets_alive(struct sampler *s);
/* How the target processes are followed: 1 as process trees (events on
 * every CPU, only the records of the trees' processes kept); 0 by events on
 * their threads, inherited by the threads and processes they start later,
 * which miss what the targets started before and threads shorter than a
 * sampling period: *why is then EACCES or EPERM (events on the CPUs are not
 * permitted) or EOPNOTSUPP (side-band records carry no time before
 * 2.6.38: a child's records cannot be put after its birth); -1 system-wide. */
int sampler__follows_trees(const struct sampler *s, int *why);
/* Bounds a recording (CLOCK_MONOTONIC times; end_ns 0: unbounded).
 * Samples taken at or after end_ns are ignored: they are outside the
 * recording (when the kernel stamps samples with CLOCK_MONOTONIC; else they
 * are kept). Once the clock reaches process_by_ns, passes stop: samples
 * still waiting are counted as dropped, other records are skipped (nothing
 * needs them any more). Checked between records, so a pass cannot overrun
 * process_by_ns by much however large its backlog (record -d on a starved
 * CPU, under a fork storm). */
void sampler__set_deadline(struct sampler *s, uint64_t end_ns, uint64_t process_by_ns);
/* Processes everything left in the rings (after disabling). */
void sampler__drain(struct sampler *s);

/* The window being filled, and what the agent observed about itself
 * during it. Both owned by the sampler. With two events, the first
 * event's (sampler__window_profile gives each). */
struct profile *sampler__profile(struct sampler *s);
struct agent_stats *sampler__stats(struct sampler *s);
/* The events recorded, one window each, in the order asked: their
 * count, and window i's event name, profile and counters (NULL past the
 * end). The first window's counters are also the recording's (records
 * lost, the agent's cost); the others copy those at sampler__finish_window
 * and keep their own samples' counters. */
size_t sampler__nwindows(const struct sampler *s);
const char *sampler__window_event(const struct sampler *s, size_t i);
struct profile *sampler__window_profile(struct sampler *s, size_t i);
struct agent_stats *sampler__window_stats(struct sampler *s, size_t i);
/* Window i's rate in effect while the first event runs at hz (off-cpu
 * beside a CPU event is lowered with it, sampler__set_frequency). */
unsigned sampler__window_hz(const struct sampler *s, size_t i, unsigned hz);
const struct perf_features *sampler__features(const struct sampler *s);
/* Fills the window's agent stats that are read at its end (processes,
 * binaries, caches, names, agent CPU and RSS). */
void sampler__finish_window(struct sampler *s);
/* Starts a new window: empties the profile (its meta stays) and the agent
 * stats, and restarts the agent-CPU accounting. Sampling goes on meanwhile: the rings keep filling. */
void sampler__reset_window(struct sampler *s);
/* Bounds the interned names (frames, paths, process names), which would
 * otherwise keep every string ever seen: when they take more than
 * max(min_bytes, twice what was live after the previous compaction), the
 * strings still referred to are copied into a new table, every holder is
 * rewritten to it (no cache is emptied), and the old table is freed. Only
 * between windows (just after sampler__reset_window). Returns 1 when it
 * compacted, 0 when not needed (or the window is not empty), -ENOMEM (then
 * nothing changed). */
int sampler__compact_names(struct sampler *s, size_t min_bytes);
/* Bytes the interned names take now. */
size_t sampler__names_bytes(const struct sampler *s);
/* Human-readable mode, e.g. "dwarf unwinding, user+kernel". */
const char *sampler__mode(const struct sampler *s);

#endif
