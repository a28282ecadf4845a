/* Signal flags of the daemon. */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "daemon/signals.h"

static volatile sig_atomic_t stop_sig, hup, usr1;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup = 1;
	else if (sig == SIGUSR1)
		usr1 = 1;
	else
		stop_sig = sig;
}

void signals__install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void signals__block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void signals__restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

int signals__stop_requested(void)
{
	return stop_sig;
}

int signals__take_reload(void)
{
	if (!hup)
		return 0;
	hup = 0;
	return 1;
}

int signals__take_flush(void)
{
	if (!usr1)
		return 0;
	usr1 = 0;
	return 1;
}
