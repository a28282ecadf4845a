/* Bench workload for the off-cpu event: two threads passing a byte back
 * and forth through two pipes, each blocked in read() while the other
 * runs. Every round trip is two voluntary switch-outs and two switch-ins
 * (more when a CPU goes idle in between): a host switching context about
 * 10^5 times a second. Progress: round trips (bench_wl.h). */
#include "bench_wl.h"

static int ping[2], pong[2];
static volatile uint64_t trips;

static uint64_t count(void)
{
	return trips;
}

WL_NOINLINE static void *ponger(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1)
		if (write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

int main(void)
{
	pthread_t t;
	char c = 'x';

	(void)wl_arg; /* takes no arguments */
	wl_start_reporter(count);
	if (pipe(ping) != 0 || pipe(pong) != 0 || pthread_create(&t, NULL, ponger, NULL) != 0) {
		perror("pingpong");
		return 1;
	}
	for (;;) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
		trips++;
	}
}
