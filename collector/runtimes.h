/* The registry of language runtime readers: the one table of readers
 * (runtimes/runtime.h), which binaries each recognised, and the instances
 * open on each process. The unwinder and the symbolizer reach readers only
 * through it, so a new runtime is a reader in runtimes/ and a row in the
 * table, and nothing else outside runtimes/ changes.
 *
 * Beside them, per process, the ledger its native stack reads beyond a
 * sample's copy are charged to (runtimes__stack_ledger).
 *
 * Instances are opened on a process's first sample that needs one, with
 * the process's own view of the binary, and closed when its image goes
 * (exec, exit). A failed open is retried after RUNTIMES_RETRY_NS, doubling
 * with each failure up to RUNTIMES_RETRY_MAX_NS. Each instance reads
 * through a ledger of the accountant, charged to the process's user.
 * Not thread-safe: the sampling thread owns it. */
#ifndef SMOLDER_COLLECTOR_RUNTIMES_H
#define SMOLDER_COLLECTOR_RUNTIMES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtimes/runtime.h"

struct accountant;
struct agent_stats;
struct ledger;
struct binary;
struct process;
struct proctable;
struct runtimes;
struct strtab;
struct strtab_remap;

#define RUNTIMES_RETRY_NS 1000000000ull
#define RUNTIMES_RETRY_MAX_NS (64ull * 1000000000ull)
/* A command line read for a label: class paths run to hundreds of
 * kilobytes, the main class is after them. */
#define RUNTIMES_CMDLINE_MAX (1u << 20)
#define RUNTIMES_LABEL_MAX 256

struct runtimes_opts {
	bool lines;       /* language frames carry the line they run */
	bool keep_native; /* keep the native frames that ran language frames
	                     (an eval loop) beside them */
};

/* The registry over the readers runtimes/ offers. names, pt, acct and st
 * are borrowed (st: the window's stats, where per-sample counts go).
 * NULL on ENOMEM. */
struct runtimes *runtimes__new(struct strtab *names, struct proctable *pt, struct accountant *acct,
			       struct agent_stats *st, const struct runtimes_opts *o);
/* The same over another table (tests: a reader of their own). At most
 * RUNTIME_MAX_READERS readers. */
struct runtimes *runtimes__new_table(const struct runtime_reader *const *table, size_t n,
				     struct strtab *names, struct proctable *pt,
				     struct accountant *acct, struct agent_stats *st,
				     const struct runtimes_opts *o);
void runtimes__delete(struct runtimes *rs);
const struct runtimes_opts *runtimes__opts(const struct runtimes *rs);

/* Unwinding. The runtime's part of the module of a pc at vaddr of bin
 * (offered to the readers on first call): roots, registers to keep, and
 * the tag of the reader that recognised it. */
void runtimes__describe_file(struct runtimes *rs, struct binary *bin, uint64_t vaddr,
			     struct unwind_module *out);
/* A pc of p that no binary holds, in memory p maps under the name path
 * (a strtab id, 0: anonymous memory): 0 when an instance of p describes
 * it (out filled, its tag set), -ENOENT otherwise. Instances of readers
 * whose host p maps are opened on the way. */
int runtimes__describe_code(struct runtimes *rs, struct process *p, uint64_t pc, uint32_t path,
			    uint64_t now_ns, struct unwind_module *out);

/* The language frames of a sample of p (s: everything but tag), read by
 * each reader whose code the unwound frames ran (those tagged and kept),
 * into out (emptied first). Counts what happened in the window's stats.
 * Returns the number of splices. */
size_t runtimes__read_stacks(struct runtimes *rs, struct process *p, struct runtime_sample *s,
			     struct runtime_stack *out);

/* Whether a reader read a sample's language stack within the last
 * RUNTIMES_EAGER_HOLD_NS: the sampler then has every sample handled at
 * once, so that stacks are read as near the sample as the host allows. */
#define RUNTIMES_EAGER_HOLD_NS (10ull * 1000000000ull)
bool runtimes__eager(const struct runtimes *rs, uint64_t now_ns);

/* The ledger that reads of p's native stack beyond a sample's copy are
 * charged to (collector/livestack.h): made on first use with the user p
 * runs as, dropped with p's image like its instances, so an exec into
 * another user's program starts a ledger of that user. NULL on ENOMEM. */
struct ledger *runtimes__stack_ledger(struct runtimes *rs, struct process *p);
/* Time spent reading a stack beyond its copy, charged to l's user and
 * counted with the readers' time: one-off work of a user's deep stack,
 * not the sampling's steady cost (runtimes__cpu_ns). */
void runtimes__charge_stack_cpu(struct runtimes *rs, struct ledger *l, uint64_t ns);

/* The instance of p that described a frame tagged tag, and its reader:
 * NULL when none is open. */
void *runtimes__instance(struct runtimes *rs, struct process *p, uint8_t tag,
			 const struct runtime_reader **reader);

/* A label for p from its command line by the reader whose `labels` takes
 * its comm (Java's main class), read once per process; 0 when none. */
uint32_t runtimes__label(struct runtimes *rs, struct process *p);

/* Whether what instances read for p since the last call was read from
 * the image they were opened on (collector/image_pin.h): when it was not
 * (p exec'd, or its pid was reused, since), its instances are closed, none
 * opens again until runtimes__forget, and what they read must be thrown
 * away. True when nothing was read. */
bool runtimes__same_image(struct runtimes *rs, struct process *p);

/* Readers' time since start (opening, reading stacks): one-off work
 * charged to the users whose processes caused it, never the sampling's
 * steady cost, so that no user's processes lower the rate of others'. */
uint64_t runtimes__cpu_ns(const struct runtimes *rs);

/* Closes the instances that read nothing for RUNTIMES_IDLE_NS (a process
 * that sleeps gives back what its reader holds, and its user's place), and
 * at once those of an image gone that no one said was (its exit record
 * lost): with them goes the pin, the fd on /proc/PID/mem. */
#define RUNTIMES_IDLE_NS (60ull * 1000000000ull)
void runtimes__trim(struct runtimes *rs, uint64_t now_ns);

/* The image of pid went (exec, exit): its instances are closed. */
void runtimes__forget(struct runtimes *rs, int pid);
int runtimes__remap_names(struct runtimes *rs, struct strtab_remap *r);
/* A new window whose stats are st (zeroed): every reader's block named,
 * in the table's order; the names budgets of users start over. */
void runtimes__start_window(struct runtimes *rs, struct agent_stats *st);
/* Where the samples handled from now on count what their runtime frames
 * were (stacks named, lag, proof): a recording of two events keeps each
 * event's apart. */
void runtimes__count_into(struct runtimes *rs, struct agent_stats *st);
/* At a window's end: every reader's block in st (named, its levels and
 * totals filled; the per-sample counts are already there). */
void runtimes__finish_window(struct runtimes *rs, struct agent_stats *st);

#endif
