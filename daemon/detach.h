/* SysV-style detaching: the daemon forks into the background, and the
 * foreground parent waits until start-up has succeeded or failed, so that an
 * init script's exit status tells the truth. */
#ifndef SMOLDER_DAEMON_DETACH_H
#define SMOLDER_DAEMON_DETACH_H

/* Forks into the background (setsid, a second fork, chdir /, stdin and
 * stdout to /dev/null; stderr stays until detach__done so start-up errors
 * are seen). Only the detached child returns (0); the parent exits 0 once
 * the child reports success, 1 otherwise. Returns -errno when forking
 * failed (still in the foreground). */
int detach__start(void);
/* The child reports start-up success (ok = 1) or failure to the waiting
 * parent; on success stderr goes to /dev/null. A no-op when not detached. */
void detach__done(int ok);

#endif
