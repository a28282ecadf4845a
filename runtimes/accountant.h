/* What runtime readers do on behalf of a process, charged to the user who
 * owns it: reads of its memory and their bytes, the frame names they
 * intern, the time they take, the readers kept open. One accountant serves
 * every reader, so a budget is one number for all runtimes, not a
 * constant of each. The native stacks read beyond a sample's copy are
 * charged to it the same way.
 *
 * Each reader open on a process gets a ledger: its own reads a second (so
 * one process cannot starve the others of its user), charged on to its
 * user's account (so one user's many processes together cannot starve
 * other users). Root's processes are bounded per process only: they are
 * what the host runs, not what an unprivileged user controls. For every
 * other user the account bounds
 *  - reads a second, and the CPU time readers spend a second, of all the
 *    user's processes; all such users together have a larger CPU share,
 *    so the sampling thread always keeps most of its time for sampling;
 *  - the readers open at once (ledgers): past it a reader is not opened;
 *  - names interned per window and their bytes: past the share a name is
 *    the marker ACCOUNTANT_NAMES_MARKER, counted, so memory stays bounded
 *    within a window, not only across them.
 *
 * Readers ask before an operation that reads (ledger__may_read) and are
 * charged as they read (memsource counts into the ledger) and for the time
 * an operation took when it ends, so a budget is checked at operation
 * boundaries, never in the middle of a walk. Not thread-safe: the sampling
 * thread owns it. */
#ifndef SMOLDER_RUNTIMES_ACCOUNTANT_H
#define SMOLDER_RUNTIMES_ACCOUNTANT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct accountant;
struct ledger;
struct strtab;
struct strtab_remap;

struct accountant_limits {
	uint32_t process_reads_per_sec; /* reads of one process's memory */
	uint32_t user_reads_per_sec;    /* of all processes of a user but root */
	uint32_t user_names_per_window; /* names interned for a user but root */
	uint64_t user_name_bytes_per_window;
	uint64_t user_cpu_ns_per_sec;   /* readers' time for a user but root */
	uint64_t users_cpu_ns_per_sec;  /* ... for all users but root together */
	uint32_t user_readers;          /* readers open at once, a user but root */
};

/* The defaults. A deep real stack at 999 Hz takes about 60,000 reads a
 * second; a process posing as a runtime, built to be walked forever, is
 * then bounded to about 50 ms of the agent's CPU a second, and a user's
 * processes together to four times that. A window of a real program
 * names a few thousand methods; a user's share is many times that. */
#define ACCOUNTANT_PROCESS_READS_PER_SEC 60000
#define ACCOUNTANT_USER_READS_PER_SEC 240000
#define ACCOUNTANT_USER_NAMES_PER_WINDOW 65536
#define ACCOUNTANT_USER_NAME_BYTES_PER_WINDOW (8u << 20)
/* A tenth of the sampling thread for one user's processes, at most a
 * quarter for all users but root: a reader refused keeps the native
 * frames, a sample lost for a busy thread is lost for everyone. A real
 * interpreter's stacks at 99 Hz on a dozen busy CPUs cost about 20 ms a
 * second. */
#define ACCOUNTANT_USER_CPU_NS_PER_SEC 100000000ull
#define ACCOUNTANT_USERS_CPU_NS_PER_SEC 250000000ull
/* A user runs a few dozen interpreters at most; each reader holds its
 * caches (about 80 KB). */
#define ACCOUNTANT_USER_READERS 64
/* What a copy of one small read's time copies: process_vm_readv takes
 * about 1 us a call and 0.1 us per KiB (64 KiB in 7 us here). */
#define ACCOUNTANT_COPY_BYTES_PER_READ 8192u
/* Users with an account at once; beyond, users share one overflow
 * account (they can only lose to each other). */
#define ACCOUNTANT_MAX_USERS 4096
/* The frame a name past its user's share becomes. */
#define ACCOUNTANT_NAMES_MARKER "[names over budget]"

/* names (borrowed) is where the marker is interned. limits NULL: the
 * defaults. NULL on ENOMEM. */
struct accountant *accountant__new(const struct accountant_limits *limits, struct strtab *names);
void accountant__delete(struct accountant *a);
/* A new window: names are counted from zero again. */
void accountant__new_window(struct accountant *a);
int accountant__remap_names(struct accountant *a, struct strtab_remap *r);

/* The limits in force. */
const struct accountant_limits *accountant__limits(const struct accountant *a);

/* A ledger for one reader open on a process of user uid. Returns 0 and
 * *out, -EDQUOT when the user (not root) has user_readers open already, or
 * -ENOMEM. Freed with ledger__delete, before the accountant. */
int accountant__ledger(struct accountant *a, uid_t uid, struct ledger **out);
/* A ledger for the native stacks of a process of user uid read beyond a
 * sample's copy (collector/livestack.h): charged as a reader's, but no
 * reader (no caches), so not counted in user_readers. 0 or -ENOMEM. */
int accountant__copy_ledger(struct accountant *a, uid_t uid, struct ledger **out);
void ledger__delete(struct ledger *l);

/* Whether an operation may read more this second (now_ns: CLOCK_MONOTONIC,
 * or any clock of the caller's: only whole seconds of it count): neither
 * the reads of the process or its user nor the CPU time of the user or of
 * all users but root are spent. A NULL ledger may always read. Counts a
 * refusal. */
bool ledger__may_read(struct ledger *l, uint64_t now_ns);
/* Charges one read of bytes bytes (memsource does, for every read). */
void ledger__charge_read(struct ledger *l, size_t bytes);
/* Charges one read of bytes bytes that copies a large range (a thread's
 * stack): it counts against the per-second shares as one read for each
 * ACCOUNTANT_COPY_BYTES_PER_READ bytes or part, and one more for the call,
 * as its time grows with what it copies, so the shares bound bytes too. */
void ledger__charge_copy(struct ledger *l, size_t bytes);
/* Charges time a reader spent for the process (in the second of the
 * last ledger__may_read): whoever spent it, the registry around a reader's
 * operation or a reader on its own (HotSpot reading the code of a frame
 * while the unwinder asks what it is). */
void ledger__charge_cpu(struct ledger *l, uint64_t ns);
/* The time charged to all ledgers since the accountant was made: the
 * readers' work, all of it, one-off and apart from the sampling's steady
 * cost. 0 for NULL. */
uint64_t accountant__cpu_ns(const struct accountant *a);
/* Interns a frame name (frame_name__intern: sanitised, suffixed), charged
 * to the user: past the user's share of the window, *id is the marker
 * and the refusal is counted. A NULL ledger interns without a bound.
 * Returns 0 or -ENOMEM. */
int ledger__intern_frame(struct ledger *l, struct strtab *names, const char *name,
			 const char *suffix, uint32_t *id);

/* What a ledger was charged, since it was made. */
struct ledger_stats {
	uint64_t reads, bytes;       /* of the process's memory */
	uint64_t names, name_bytes;  /* names interned (new ones) */
	uint64_t refused_reads;      /* operations refused for the read budget */
	uint64_t refused_names;      /* names past the share: the marker instead */
	uint64_t cpu_ns;
};
void ledger__stats(const struct ledger *l, struct ledger_stats *out);

#endif
