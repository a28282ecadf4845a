/* The process table: for each process its executable mappings, comm, exe and
 * service name (and, on request, its threads' names), seeded from /proc and
 * kept current by MMAP/MMAP2, COMM, FORK and EXIT records. Binaries are
 * resolved lazily (first sample in a mapping) through the shared registry,
 * so a process costs only its address map. Whose a process is (its user)
 * and which system service it runs in are read from the kernel when they
 * are needed (proctable_identity.c). Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_PROCTABLE_H
#define SMOLDER_COLLECTOR_PROCTABLE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct binaries;
struct binary;
struct strtab;
struct proctable;

struct proc_map;
struct process;

/* names and bs are borrowed. NULL on ENOMEM. */
struct proctable *proctable__new(struct strtab *names, struct binaries *bs);
void proctable__delete(struct proctable *pt);
/* fn(ctx, pid) is called when a process's image goes: it execs, or it is
 * reaped after its exit (also when the table is deleted). Whoever keeps
 * state per process beside the table (JIT maps) drops it then, so that a
 * reused pid starts clean. */
void proctable__on_image_gone(struct proctable *pt, void (*fn)(void *ctx, int pid), void *ctx);

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
/* EXIT of thread tid: the process ends with its main thread's exit, or,
 * when that left other threads running, with the last of them. */
void proctable__exit(struct proctable *pt, int pid, int tid, uint64_t now_ns);
/* Frees processes that exited more than delay_ns before now (samples of a
 * process may still arrive from another CPU's ring after its EXIT). */
void proctable__reap(struct proctable *pt, uint64_t now_ns, uint64_t delay_ns);

/* Re-reads /proc/PID/maps unless done less than min_interval_ns ago.
 * Returns 1 when re-read, 0 when rate-limited or the process is gone. */
int proctable__reread_maps(struct proctable *pt, struct process *p, uint64_t now_ns,
			   uint64_t min_interval_ns);

/* Fills the exe from /proc/PID/exe when it is still unknown (a sample read
 * before the exec's MMAP record from another CPU's ring), once per exec. */
void proctable__fill_exe(struct proctable *pt, struct process *p);

/* The executable mapping holding pc, resolving its binary on first use. */
struct proc_map *process__find_map(struct proctable *pt, struct process *p, uint64_t pc);

/* Keep the names of the processes' threads (collector/thread_names.h),
 * for grouping samples per thread; off by default: then nothing per thread
 * is kept. */
void proctable__keep_thread_names(struct proctable *pt, int on);
/* The name (strtab id) of thread tid of p: the process's comm for its main
 * thread, else what the records said or, for a thread they never named,
 * /proc/PID/task/TID/comm (rate-limited per process). 0 when unknown (not
 * kept, gone, or the read postponed). */
uint32_t proctable__thread_name(struct proctable *pt, struct process *p, int tid);

/* What a process is. Names are strtab ids (0: unknown). */
int process__pid(const struct process *p);
uint32_t process__comm(const struct process *p);
uint32_t process__exe(const struct process *p);
/* The system service ("nginx" of /system.slice/nginx.service) the process
 * runs in (collector/service_unit.h), 0: none; read again from its cgroup
 * after an exec. */
uint32_t proctable__service(struct proctable *pt, struct process *p);

/* Whose a process is, as its samples are labelled: 0 for root's, else the
 * strtab id of its user's name (collector/usernames.h), or of
 * PROCTABLE_USER_UNKNOWN when its credentials could not be read since its
 * birth or its last exec (it was gone before its first sample was
 * handled). Credentials (common/proccreds.h) are read from the kernel at
 * the first use, again after every exec and when older than
 * PROCTABLE_CREDS_TTL_NS (a root process may setuid() to a user without
 * exec), and never copied from the parent. Files opened on a process's
 * behalf do not rest on this: their openers read the credentials again. */
#define PROCTABLE_USER_UNKNOWN "?"
#define PROCTABLE_CREDS_TTL_NS 1000000000ull
uint32_t proctable__user(struct proctable *pt, struct process *p);
/* The service name of a process that no system service names: name (its
 * runtime's label or its comm; strtab id) as it is for root's processes,
 * "NAME@USER" for the others (USER as proctable__user gives it), so that a
 * user's process never takes the name of a system service or of root's
 * programs. Call proctable__user first. Returns a strtab id. */
uint32_t proctable__qualify(struct proctable *pt, struct process *p, uint32_t name);
/* An exec was seen whose new executable's mapping has not been yet. */
int process__exe_pending(const struct process *p);
/* Its EXIT was seen (it stays for a grace period, see proctable__reap). */
int process__exited(const struct process *p);
/* The path (strtab id) of the jitdump file (jit-PID.dump) it maps, the way
 * JITs point profilers at it; 0 when none. */
uint32_t process__jitdump(const struct process *p);
/* Its executable mappings, sorted by start, non-overlapping. */
size_t process__nmaps(const struct process *p);
const struct proc_map *process__map(const struct process *p, size_t i);

/* One executable mapping: [start, end) of file offset pgoff. */
void proc_map__range(const struct proc_map *m, uint64_t *start, uint64_t *end, uint64_t *pgoff);
/* The mapped file's path (strtab id; 0 for anonymous memory). */
uint32_t proc_map__path(const struct proc_map *m);
/* The binary (NULL for anonymous memory, or a file that could not be
 * resolved) and the bias to its ELF addresses (vaddr = pc - bias); valid
 * once process__find_map returned the mapping. */
struct binary *proc_map__binary(const struct proc_map *m);
uint64_t proc_map__bias(const struct proc_map *m);
/* The mapped file's inode, 0 when the record that told of it did not say. */
uint64_t proc_map__ino(const struct proc_map *m);

size_t proctable__count(const struct proctable *pt);
/* CPU spent reading processes from /proc (first sight, maps re-read),
 * since start: one-off work, apart from the steady cost of sampling. */
uint64_t proctable__load_cpu_ns(const struct proctable *pt);

/* One pass of a compaction of the names table (common/strtab_remap.h): the
 * ids of every process (comm, exe, service, user, its mappings' paths, its
 * JIT symbols, its threads' names) go through strtab_remap__id(); in the commit
 * pass the table switches to r->to. Returns 0, or -ENOMEM in the collect pass. */
struct strtab_remap;
int proctable__remap_names(struct proctable *pt, struct strtab_remap *r);

#endif
