/* Names of JIT code, per process: /tmp/perf-PID.map and the process's
 * jitdump file, read through its root (kept open, so a process's files can
 * still be read after it exited: JVMs write their map at exit), re-read
 * on a miss when they changed, at most once a second.
 *
 * Whose they must be is read before every read of them: the process's
 * credentials (common/proccreds.h), through the /proc/PID fd its root was
 * opened through, so both are the same process's. Its files must belong
 * to its effective uid, root's only when that is root (common/userfile.h).
 * When its owner changed (setuid, the exec of a setuid binary), what was
 * read under the former owner's rule is dropped and read again. Once the
 * process is gone (reaped), its last read credentials stand: they were
 * read after its root was opened, and a process that was root then has a
 * root in a mount namespace no user controls (host root cannot be mapped
 * in a user's namespace, and a process cannot leave one), which the fd
 * keeps whatever it did since; one never read names nothing.
 *
 * A pc no file names yet gets a pending frame: JITs write a function's
 * name after it started running, and some only at exit. At the window's
 * end (jitnames__settle) every pending pc is looked up once more in freshly
 * read files and renamed to its name, or to "[unknown]"; the caller then
 * renames the window's stacks (profile__rename_frames). Pending frames
 * never outlive a window. Not thread-safe. */
#ifndef SMOLDER_SYMBOLIZE_JITNAMES_H
#define SMOLDER_SYMBOLIZE_JITNAMES_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct jitnames;
struct strtab;
struct strtab_remap;

/* Pending pcs kept per process and in all; past them a pc is unknown. */
#define JITNAMES_PENDING_PER_PROCESS 4096
#define JITNAMES_PENDING_MAX 65536

/* names is borrowed; unknown is its "[unknown]" id. Returns 0 or -ENOMEM. */
int jitnames__new(struct strtab *names, uint32_t unknown, struct jitnames **out);
void jitnames__delete(struct jitnames *jn);

/* The frame of JIT pc in process pid (jitdump: strtab id of its
 * jit-PID.dump path, 0 none): 0 and *id (a name, or with may_pend a pending
 * frame), -ENOENT when it is unknown (and, with may_pend, no more can be
 * pending), -ENOMEM. */
int jitnames__lookup(struct jitnames *jn, int pid, uint32_t jitdump, uint64_t pc,
		     uint64_t now_ns, int may_pend, uint32_t *id);

/* The process's image is gone: its pending pcs are settled (from its files,
 * read through its root), then its state is dropped. */
void jitnames__forget(struct jitnames *jn, int pid);
/* Forgets, as jitnames__forget does, every process that is gone although
 * it was not forgotten: one whose frames were named after its exit was
 * handled (it was a zombie then) holds its /proc directory open until
 * this. Call it now and then (the sampler: every second). Returns how
 * many were forgotten. */
size_t jitnames__forget_gone(struct jitnames *jn);

/* Settles every pending pc. Returns the number of frames to rename. */
size_t jitnames__settle(struct jitnames *jn);
/* What a settled frame id becomes (ids that were not pending stay).
 * ctx is the jitnames: usable as profile__rename_frames' callback. */
uint32_t jitnames__renamed(void *ctx, uint32_t id);
/* Forgets the renames once applied. */
void jitnames__clear_renames(struct jitnames *jn);

/* Reading the files draws on budget's time (symbolize/loadbudget.h;
 * borrowed): with the bucket empty, a miss waits for the next chance. */
struct loadbudget;
void jitnames__set_budget(struct jitnames *jn, struct loadbudget *budget);
/* CPU spent reading JIT files, since start. */
uint64_t jitnames__load_cpu_ns(const struct jitnames *jn);
/* Processes with a map or jitdump read. */
size_t jitnames__processes(const struct jitnames *jn);

/* One pass of a compaction of the names table (common/strtab_remap.h):
 * between windows, when nothing is pending. Returns 0, -EBUSY when pcs are
 * pending, or -ENOMEM in the collect pass. */
int jitnames__remap_names(struct jitnames *jn, struct strtab_remap *r);

#endif
