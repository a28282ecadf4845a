/* The process trees a recording of processes follows (`record -p`, `record
 * -- CMD`): the target processes, the processes that descend from them when
 * the recording starts (read from /proc), and every process forked from a
 * member since (FORK records). Membership is by birth: a child that execs or
 * is re-parented stays a member. The sampler opens its events on the CPUs and
 * keeps only the records of members; events on the tasks themselves (inherit)
 * would miss what the targets started before, and sample threads shorter than
 * a sampling period hardly ever (their period starts with them).
 * A value owned by the sampler. Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_PTREE_H
#define SMOLDER_COLLECTOR_PTREE_H
#include <stddef.h>
#include <stdint.h>

struct ptree;

/* An empty tree; NULL on ENOMEM. */
struct ptree *ptree__new(void);
/* Accepts NULL. */
void ptree__delete(struct ptree *t);

/* Adds a target, alive. Returns 0, -EINVAL (pid <= 0) or -ENOMEM. */
int ptree__add(struct ptree *t, int pid);
/* Adds what descends from the living members now, read from `proc` (the
 * /proc mount; another directory laid out alike in tests): through the
 * children file of every thread (/proc/PID/task/TID/children, 3.5+ with
 * CONFIG_PROC_CHILDREN), else through the parent pid in every
 * /proc/PID/stat. A member given as a thread id is first replaced by its
 * process (Tgid). Processes that vanish meanwhile are skipped. Returns the
 * number of processes added, or -ENOMEM (then those added so far stay). */
int ptree__add_descendants(struct ptree *t, const char *proc);

/* Whether a record of process pid taken at `time` (the records' clock; 0:
 * unknown) is the tree's: pid is a member, alive, or it exited at or after
 * `time` (its last samples may be handled after its EXIT; a later process
 * that reuses the pid is not the member). */
int ptree__member(const struct ptree *t, int pid, uint64_t time);
/* A FORK record: pid created by process ppid at `time` (pid == ppid: a new
 * thread). Returns 1 when pid is a member (its creator is one), 0 when it is
 * not: then a member that had the pid before (a process whose EXIT was
 * missed) is dropped. -ENOMEM: not added. */
int ptree__fork(struct ptree *t, int pid, int ppid, uint64_t time);
/* Process pid ended (its last thread exited) at `time`: it is no longer
 * alive, and its records up to `time` stay the tree's until ptree__reap. */
void ptree__exit(struct ptree *t, int pid, uint64_t time);
/* Forgets members that ended more than delay before now. */
void ptree__reap(struct ptree *t, uint64_t now, uint64_t delay);

/* The living members, one per call: start with *pos = 0; returns 1 and sets
 * *pid, or 0 at the end. ptree__exit of the pid returned may be called
 * meanwhile; nothing else changes the tree during the walk. */
int ptree__next_alive(const struct ptree *t, size_t *pos, int *pid);
/* Members, alive or ended and not reaped yet. */
size_t ptree__count(const struct ptree *t);

#endif
