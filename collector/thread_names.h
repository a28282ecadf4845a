/* The names of one process's threads (each thread's comm), for grouping
 * samples per thread. The process table keeps one per process when asked
 * to (proctable__keep_thread_names) and feeds it from the side-band
 * records: a COMM record of a thread names it (pthread_setname_np,
 * PR_SET_NAME), a FORK of a thread gives the new thread its creator's name
 * (clone copies it), an EXIT drops it, an exec empties the table. A thread
 * no record named (one that predates the agent) is read from
 * /proc/PID/task/TID/comm, at most THREAD_NAMES_READS_PER_SEC times a second
 * per process.
 *
 * Bounded: at most THREAD_NAMES_MAX names per process; a name past that
 * empties the table first (as the agent's other caches are emptied when
 * full), and the threads still alive are read again from /proc. A process
 * with 100,000 threads costs what one with THREAD_NAMES_MAX does.
 *
 * The main thread is not kept here: its name is the process's comm. Names
 * are ids of the caller's strtab (never 0; "" has an id). Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_THREAD_NAMES_H
#define SMOLDER_COLLECTOR_THREAD_NAMES_H
#include <stddef.h>
#include <stdint.h>

#define THREAD_NAMES_MAX 4096
#define THREAD_NAMES_READS_PER_SEC 100

struct strtab;
struct strtab_remap;
struct thread_names;

/* NULL on ENOMEM. */
struct thread_names *thread_names__new(void);
/* Accepts NULL. */
void thread_names__delete(struct thread_names *t);

/* Thread tid is called name (a strtab id, not 0). Returns 0 or -ENOMEM
 * (the table unchanged). */
int thread_names__set(struct thread_names *t, int tid, uint32_t name);
/* The name of tid, 0 when unknown. t may be NULL. */
uint32_t thread_names__get(const struct thread_names *t, int tid);
/* Thread tid exited. t may be NULL. */
void thread_names__forget(struct thread_names *t, int tid);
/* Every thread but the main one ended (exec). t may be NULL. */
void thread_names__clear(struct thread_names *t);
size_t thread_names__count(const struct thread_names *t);
/* Times the table was emptied because it was full, since it was made. */
uint64_t thread_names__overflows(const struct thread_names *t);

/* Whether a read of a thread's name from /proc is allowed at now_ns (a
 * monotonic clock), counting it when it is: THREAD_NAMES_READS_PER_SEC in
 * each second. */
int thread_names__may_read(struct thread_names *t, uint64_t now_ns);
/* Reads /proc/PID/task/TID/comm and interns it in names (without its
 * newline; "" stays ""). Returns 0 with *name set, or -errno (the thread is
 * gone: -ENOENT or -ESRCH; -ENOMEM). Does not count against the limit. */
int thread_names__read(struct strtab *names, int pid, int tid, uint32_t *name);

/* The name of tid: the one kept, else (when the limit allows) read from
 * /proc and kept; 0 when unknown. t may be NULL (nothing kept: 0). The CPU
 * time of a read is added to *load_ns. */
uint32_t thread_names__lookup(struct thread_names *t, struct strtab *names, int pid, int tid,
			      uint64_t *load_ns);

/* One pass of a compaction of the names table (common/strtab_remap.h).
 * t may be NULL. Returns 0, or -ENOMEM in the collect pass. */
int thread_names__remap(struct thread_names *t, struct strtab_remap *r);

#endif
