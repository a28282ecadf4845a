/* Workload: main -> busy_loop runs for argv[1] seconds; a SIGALRM every 10 ms
 * runs on_alarm -> in_handler, which spins for 5 ms. About half the samples
 * land in the handler: their stacks must read main;busy_loop;[signal];
 * on_alarm;in_handler, the interrupted function named exactly (looked up
 * at the interrupted pc, not at pc - 1). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "wl_time.h"

volatile unsigned long sink;
static volatile sig_atomic_t stop;

unsigned long in_handler(unsigned long n);
unsigned long busy_loop(double end);

WL_NOINLINE unsigned long in_handler(unsigned long n)
{
	double end = wl_now() + 0.005;
	unsigned long x = n;

	while (wl_now() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005UL + 1;
	return x;
}

static WL_NOINLINE void on_alarm(int sig)
{
	(void)sig;
	sink += in_handler(sink);
}

WL_NOINLINE unsigned long busy_loop(double end)
{
	unsigned long x = 1;

	while (wl_now() < end)
		for (int i = 0; i < 1000; i++)
			x = (x ^ (x >> 13)) * 0x9E3779B97F4A7C15UL;
	return x;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct itimerval it;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) != 0) {
		perror("sigaction");
		return 1;
	}
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = 10000;
	it.it_value.tv_usec = 10000;
	setitimer(ITIMER_REAL, &it, NULL);
	sink += busy_loop(wl_now() + wl_seconds(argc, argv, 2.0));
	return 0;
}
