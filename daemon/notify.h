/* systemd's readiness protocol (sd_notify without libsystemd). */
#ifndef SMOLDER_DAEMON_NOTIFY_H
#define SMOLDER_DAEMON_NOTIFY_H

/* Sends a state string ("READY=1", "STOPPING=1", "RELOADING=1",
 * "STATUS=...") to $NOTIFY_SOCKET when it is set. Returns 0 (also when it
 * is unset) or -errno. */
int notify__send(const char *state);

#endif
