/* What a long-running service needs from its host: SysV-style detaching with
 * a locked pidfile, and systemd's readiness protocol (NOTIFY_SOCKET). */
#ifndef SMOLDER_COLLECTOR_DAEMON_H
#define SMOLDER_COLLECTOR_DAEMON_H

/* Forks into the background (setsid, chdir /, stdio to /dev/null). Only the
 * detached child returns (0); the parent exits 0 once the child has written
 * its pidfile, or 1 when the child failed to. Returns -errno when forking
 * failed (still in the foreground). */
int daemon__detach(void);
/* The child reports start-up success (ok = 1) or failure to the waiting parent. */
void daemon__detach_done(int ok);

/* Creates path with our pid, locked (flock) for our lifetime so a second
 * instance fails with -EWOULDBLOCK. Returns an fd to keep open, or -errno. */
int daemon__pidfile_create(const char *path);
/* Removes the pidfile (at exit). */
void daemon__pidfile_remove(const char *path, int fd);

/* Sends a state string ("READY=1", "STOPPING=1", "RELOADING=1", "STATUS=...")
 * to $NOTIFY_SOCKET when set. Returns 0 (also when unset) or -errno. */
int daemon__notify(const char *state);

#endif
