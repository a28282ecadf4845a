/* Least privilege for the daemon: once the perf events are open, the agent
 * keeps only the capabilities it still uses, so that a compromise through
 * the input it parses (other users' binaries, /proc, collector answers)
 * cannot use the rest. */
#ifndef SMOLDER_DAEMON_PRIVILEGES_H
#define SMOLDER_DAEMON_PRIVILEGES_H
#include <stdint.h>

#define PRIV_BIT(cap) ((uint64_t)1 << (cap))

/* What the sampling daemon still needs after start-up: reading every
 * process's /proc/PID/{maps,root} (CAP_SYS_PTRACE), other users' binaries
 * and perf maps (CAP_DAC_READ_SEARCH), /proc/kallsyms addresses when
 * kptr_restrict is 1 (CAP_SYSLOG), and /proc/PID/map_files for binaries
 * deleted while mapped (CAP_CHECKPOINT_RESTORE, Linux 5.9+; before, that
 * needs CAP_SYS_ADMIN, which is not kept: such binaries are then reached
 * only if opened before the drop). */
uint64_t privileges__daemon_keep(void);

/* Reduces the calling thread's effective, permitted and inheritable sets to
 * (current & keep), drops every other capability from the bounding set when
 * allowed (CAP_SETPCAP), and sets no_new_privs. Threads created afterwards
 * inherit the reduced sets: call it before starting them. Returns 0 or
 * -errno (capset failed; nothing is guaranteed then). */
int privileges__drop_except(uint64_t keep);

/* Sets the calling thread's nice value to `nice` when that is a higher
 * priority than its current one (never lowers it: a unit file's stronger
 * Nice= wins). Threads created afterwards inherit it, a child forked before
 * does not. Why: the agent's work is small but due on time, and rings left
 * unread overflow. On a host saturated by runnable processes an agent at the
 * default priority gets a 1/N share of a CPU: with 200 busy processes on 2
 * CPUs, `record` took 23 s of wall time for 0.2 s of CPU and lost a third
 * of its samples; at nice -10, none. A nice value cannot starve the host as
 * a real-time policy (perf record -r) could if the agent misbehaved, and
 * cpu_budget still bounds what it takes. Needs CAP_SYS_NICE (or
 * RLIMIT_NICE): call it before privileges__drop_except. Returns 0 or
 * -errno (nothing changed). */
int privileges__raise_priority(int nice);

/* The calling thread's effective set (0 when unknown). */
uint64_t privileges__effective(void);

#endif
