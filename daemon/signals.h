/* The daemon's signals: TERM/INT stop it (the current window is flushed),
 * HUP reloads the configuration, USR1 ends the current window now. Handlers
 * only set flags; the sampling thread reads them between polls. Only the
 * sampling thread runs the handlers: other threads are created with these
 * signals blocked. */
#ifndef SMOLDER_DAEMON_SIGNALS_H
#define SMOLDER_DAEMON_SIGNALS_H
#include <signal.h>

/* Installs the handlers, and ignores SIGPIPE (a collector closing the
 * connection must not kill the agent). */
void signals__install(void);
/* Blocks the handled signals in the calling thread (old gets the previous
 * mask), so that a thread created meanwhile inherits them blocked; restore
 * with signals__restore(old). */
void signals__block(sigset_t *old);
void signals__restore(const sigset_t *old);

/* The stop signal received (SIGTERM, SIGINT), 0 while none. */
int signals__stop_requested(void);
/* 1 once per SIGHUP / SIGUSR1 received since the last call, else 0. */
int signals__take_reload(void);
int signals__take_flush(void);

#endif
