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

/* Sets the calling thread's scheduling for the agent: its nice value to
 * `nice` when that is a higher priority than its current one (never lowers
 * it: a unit file's stronger Nice= wins), and the batch policy when it runs
 * under the normal one. Threads created afterwards inherit both, a child
 * forked before does not.
 *
 * Nice, because the agent's work is small but due on time, and rings left
 * unread overflow. On a host saturated by runnable processes an agent at
 * the default priority gets a 1/N share of a CPU: with 200 busy processes
 * on 2 CPUs, `record` took 23 s of wall time for 0.2 s of CPU and lost a
 * third of its samples; at nice -10, none. A nice value cannot starve the
 * host as a real-time policy (perf record -r) could if the agent
 * misbehaved, and cpu_budget still bounds what it takes.
 *
 * Batch, because a woken task of high priority preempts the task running
 * on the CPU it wakes on, and the agent is woken by the samples themselves
 * (at every sample while runtimes are read): each sample ended the sampled
 * thread's turn on the CPU, so the next ones fell on whatever ran next. A
 * busy thread sharing its CPU got 58-96 % of its share of samples. A batch
 * task never preempts on wakeup; it runs on an idle CPU at once, and on a
 * busy one at the next tick, with its nice value's share as before. The
 * sampler goes back to the normal policy while runtimes are read
 * (collector/sampler.c, pace_wakeups).
 *
 * Needs CAP_SYS_NICE (or RLIMIT_NICE) for the nice value: call it before
 * privileges__drop_except. Both are tried; returns 0, or the -errno of
 * the first that failed. */
int privileges__agent_priority(int nice);

/* The calling thread's effective set (0 when unknown). */
uint64_t privileges__effective(void);

#endif
