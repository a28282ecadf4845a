/* A process's credentials, read from the kernel when they are used, never
 * remembered from its parent: fork copies them, but setuid() and the exec
 * of a setuid binary change them afterwards, with no record in the perf
 * rings to say so.
 *
 * What files are opened on rests on /proc/PID/status (its Uid: and Gid:
 * lines: real, effective, saved and filesystem ids), read through a
 * /proc/PID directory fd (proccreds__open): the ids are those of that
 * process and of no other that reuses the pid once it is reaped (the read
 * then fails). Not on the owner of that fd's directory: an fstat of it
 * says root:root once the process is reaped (the kernel has no task left
 * to ask), so a check bound to it would take every process that is gone
 * for root's. The Name: line before the ids is escaped by the kernel, so a
 * process name cannot forge a line.
 *
 * Labels, read on the sampling path, use that owner looked up by path
 * (proccreds__owner_pid): the kernel gives a /proc/PID directory its
 * process's effective ids, dumpable or not, and a lookup of a reaped
 * process fails; at 0.8 µs against 4-10 µs for the status. Thread-safe
 * (no state). */
#ifndef SMOLDER_COMMON_PROCCREDS_H
#define SMOLDER_COMMON_PROCCREDS_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct proccreds {
	uid_t ruid, euid, suid, fsuid;
	gid_t rgid, egid, sgid, fsgid;
};

/* /proc/PID as a directory fd (O_PATH): reads through it reach this
 * process only. Returns the fd (the caller closes it), or -errno. */
int proccreds__open(int pid);

/* Reads the credentials of the process procfd is, now. Returns 0 with
 * *out, -ENOENT or -ESRCH when it has been reaped, -EINVAL when the text
 * lacks the ids, or another -errno. *out is untouched on failure. */
int proccreds__read(int procfd, struct proccreds *out);
/* The same by pid, for callers that keep no fd: the pid may name another
 * process by then, so nothing that protects a file may rest on it. */
int proccreds__read_pid(int pid, struct proccreds *out);

/* Whose process pid is now, cheaply: the owner of /proc/PID, looked up by
 * path (its effective uid and gid, even when it is not dumpable). 0, or
 * -ENOENT once it is reaped. The pid may name another process by then:
 * for labels, never for what protects a file. */
int proccreds__owner_pid(int pid, uid_t *euid, gid_t *egid);

/* Parses the text of a /proc/PID/status (len bytes, NUL-terminated or
 * not): the first Uid: and Gid: lines, four ids each. 0 or -EINVAL. */
int proccreds__parse(const char *text, size_t len, struct proccreds *out);

/* Whose the process is: its effective uid, the id the kernel checks its
 * file accesses against (the filesystem uid follows it; only privileged
 * code sets them apart) and the owner of the files it creates. A setuid
 * program is its owner's: it runs the owner's code with the owner's
 * rights; who started it chose only its arguments and environment. */
uid_t proccreds__user(const struct proccreds *c);
/* Whether it runs as root (its effective uid is 0). */
bool proccreds__is_root(const struct proccreds *c);

#endif
