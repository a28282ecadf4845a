/* `smolder run`: the always-on service. Samples every CPU without pause; at
 * each window's end the window's dump goes to the spool and the uploader
 * thread delivers it; SIGHUP reloads the configuration, SIGUSR1 ends the
 * window now, SIGTERM/SIGINT flush the window and stop. Logs everything it
 * does; returns when stopped. */
#ifndef SMOLDER_DAEMON_SERVICE_H
#define SMOLDER_DAEMON_SERVICE_H

#include "daemon/conf_source.h"

struct service_opts {
	struct conf_source conf;  /* file and overrides, re-read on SIGHUP */
	int detach;               /* fork into the background (SysV init) */
	const char *pidfile;      /* NULL: none */
};

/* Runs the service. Returns the process exit status: 0 after a clean stop,
 * 1 when it could not start or failed, 2 for a configuration that does not
 * load. */
int service__run(const struct service_opts *o);

#endif
