/* The process table: for each process its executable mappings, comm, exe and
 * service name, seeded from /proc and kept current by MMAP/MMAP2, COMM, FORK
 * and EXIT records. Binaries are resolved lazily (first sample in a mapping)
 * through the shared registry, so a process costs only its address map.
 * Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_PROCTABLE_H
#define SMOLDER_COLLECTOR_PROCTABLE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct binaries;
struct binary;
struct perfmap;
struct strtab;
struct proctable;

/* One executable mapping. Value type, owned by its process. */
struct proc_map {
	uint64_t start, end, pgoff;
	uint64_t dev, ino;  /* 0 when unknown (plain MMAP records) */
	uint32_t path;      /* strtab id of the path; 0 for anonymous memory */
	int resolved;       /* bin/bias below are valid */
	struct binary *bin; /* NULL for anonymous memory or unresolvable */
	uint64_t bias;      /* ELF vaddr = pc - bias */
};

struct process {
	int pid;
	uint32_t comm, exe, service; /* strtab ids (0 unknown) */
	uid_t uid;
	struct proc_map *maps;       /* sorted by start, non-overlapping */
	size_t nmaps, cap;
	int exe_pending;             /* exec seen, exe comes with the next exec mapping */
	uint64_t maps_reread_ns;     /* last /proc/PID/maps re-read (rate limit) */
	uint64_t exited_ns;          /* 0 while alive */
	struct perfmap *jit;
	uint64_t jit_loaded_ns;
	int jit_tried;
	int exe_looked_up;           /* /proc/PID/exe read since the last exec */
};

/* names and bs are borrowed. NULL on ENOMEM. */
struct proctable *proctable__new(struct strtab *names, struct binaries *bs);
void proctable__delete(struct proctable *pt);

/* Reads every process in /proc (or only `pid` when > 0). Processes that vanish
 * meanwhile are skipped. Returns the number of processes loaded, or -errno. */
int proctable__seed(struct proctable *pt, int pid);

/* The process, or NULL. */
struct process *proctable__find(struct proctable *pt, int pid);
/* The process, loading it from /proc when unknown (creating an empty entry
 * when /proc has nothing, so that later records can fill it). NULL on ENOMEM. */
struct process *proctable__get(struct proctable *pt, int pid);

/* Side-band records. `exec`: the mapping is executable. is_exec of a COMM:
 * 1 exec, 0 rename, -1 unknown (the kernel lacks comm_exec, before 3.16):
 * then a main thread's COMM is taken for an exec when /proc/PID/exe changed
 * (or, the process being gone, when the name changed). */
int proctable__mmap(struct proctable *pt, int pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    uint64_t dev, uint64_t ino, const char *path, int exec);
int proctable__comm(struct proctable *pt, int pid, int tid, const char *comm, int is_exec);
int proctable__fork(struct proctable *pt, int pid, int ppid, int tid, int ptid);
void proctable__exit(struct proctable *pt, int pid, int tid, uint64_t now_ns);
/* Frees processes that exited more than delay_ns before now (samples of a
 * process may still arrive from another CPU's ring after its EXIT). */
void proctable__reap(struct proctable *pt, uint64_t now_ns, uint64_t delay_ns);

/* Re-reads /proc/PID/maps unless done less than min_interval_ns ago.
 * Returns 1 when re-read, 0 when rate-limited or the process is gone. */
int proctable__reread_maps(struct proctable *pt, struct process *p, uint64_t now_ns,
			   uint64_t min_interval_ns);

/* Fills p->exe from /proc/PID/exe when it is still unknown (a sample read
 * before the exec's MMAP record from another CPU's ring), once per exec. */
void proctable__fill_exe(struct proctable *pt, struct process *p);

/* The executable mapping holding pc, resolving its binary on first use. */
struct proc_map *process__find_map(struct proctable *pt, struct process *p, uint64_t pc);

size_t proctable__count(const struct proctable *pt);

/* One pass of a compaction of the names table (common/strtab_remap.h): the
 * ids of every process (comm, exe, service, its mappings' paths, its JIT
 * symbols) go through strtab_remap__id(); in the commit pass the table
 * switches to r->to. Returns 0, or -ENOMEM in the collect pass. */
struct strtab_remap;
int proctable__remap_names(struct proctable *pt, struct strtab_remap *r);

#endif
