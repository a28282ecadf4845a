/* Bench workload for the off-cpu event: two threads passing a byte back
 * and forth through two pipes, each blocked in read() while the other
 * runs. Every round trip is two voluntary switch-outs and two switch-ins
 * (more when a CPU goes idle in between): a host switching context about
 * 10^5 times a second. Argument: round trips a second to keep to (the
 * pinger spins between them, which switches nothing); none: as fast as
 * the pair goes. Progress: round trips (bench_wl.h). */
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

int main(int argc, char **argv)
{
	long per_s = wl_arg(argc, argv, 1, 0, 10000000);
	uint64_t gap = per_s ? 1000000000ull / (uint64_t)per_s : 0, next = wl_mono_ns();
	pthread_t t;
	char c = 'x';

	wl_start_reporter(count);
	if (pipe(ping) != 0 || pipe(pong) != 0 || pthread_create(&t, NULL, ponger, NULL) != 0) {
		perror("pingpong");
		return 1;
	}
	for (;;) {
		if (gap) {
			next += gap;
			while (wl_mono_ns() < next)
				;
		}
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
		trips++;
	}
}
