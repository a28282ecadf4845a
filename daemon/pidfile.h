/* The pid file of a detached daemon: created with our pid and locked
 * (flock) for our lifetime, so that a second instance fails to start. */
#ifndef SMOLDER_DAEMON_PIDFILE_H
#define SMOLDER_DAEMON_PIDFILE_H

/* Creates path (O_NOFOLLOW) with our pid, locked. What is already there
 * is used only when it is a regular file of our effective uid with a
 * single name; a symlink is -ELOOP, anything else -EPERM, never written.
 * Returns an fd to keep open, -EWOULDBLOCK when another process holds the
 * lock, or -errno. */
int pidfile__create(const char *path);
/* Removes the pid file and closes fd (at exit). Accepts fd < 0. */
void pidfile__remove(const char *path, int fd);

#endif
