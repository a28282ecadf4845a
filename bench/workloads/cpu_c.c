/* Bench workload: CPU-bound C built with -O2 -fomit-frame-pointer, a few
 * call chains of noinline functions, one worker per thread (argv[1], default
 * the number of CPUs), the main thread being one of them. Counts units of work.
 * argv[2]: frames of a stable base the workers run under (default none):
 * the "deep" row, 300 frames of about 240 bytes, deeper than the kernel's
 * default stack copy. */
#include "bench_wl.h"


#define MAX_THREADS 64

static uint64_t done[MAX_THREADS * 8]; /* one cache line per thread */
static long nthreads, base_depth;
static volatile uint64_t sink;
static volatile int stop; /* never set: work() is not taken for noreturn */

static uint64_t count(void)
{
	uint64_t s = 0;

	for (long i = 0; i < nthreads; i++)
		s += __atomic_load_n(&done[i * 8], __ATOMIC_RELAXED);
	return s;
}

WL_NOINLINE static uint64_t mix(uint64_t x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

WL_NOINLINE static uint64_t leaf_a(uint64_t x) { return mix(x, 2000); }
WL_NOINLINE static uint64_t leaf_b(uint64_t x) { return mix(x ^ 0x55, 1000) + leaf_a(x); }
WL_NOINLINE static uint64_t mid_c(uint64_t x) { return leaf_b(x) ^ mix(x, 500); }
WL_NOINLINE static uint64_t mid_d(uint64_t x) { return mid_c(x + 1) + leaf_a(x + 2); }

WL_NOINLINE static uint64_t deep(uint64_t x, int depth)
{
	if (depth == 0)
		return mid_d(x);
	return deep(x + (uint64_t)depth, depth - 1) ^ 1;
}

WL_NOINLINE static void unit_of_work(long slot)
{
	uint64_t x = (uint64_t)slot;

	x = leaf_a(x);
	x = mid_c(x);
	x = mid_d(x);
	x = deep(x, 12);
	sink = x;
	__atomic_fetch_add(&done[slot * 8], 1, __ATOMIC_RELAXED);
}

WL_NOINLINE static void work(long slot)
{
	while (!stop)
		unit_of_work(slot);
}

WL_NOINLINE static uint64_t base(long slot, long depth)
{
	volatile unsigned char pad[160];

	pad[depth % 160] = (unsigned char)slot;
	if (depth <= 1)
		work(slot);
	else
		base(slot, depth - 1);
	/* using the frame after the call keeps this from being a tail call */
	return pad[depth % 160] + pad[(depth + 1) % 160];
}

static void *worker(void *arg)
{
	long slot = (long)arg;

	if (base_depth)
		sink = base(slot, base_depth);
	else
		work(slot);
	return NULL;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	nthreads = wl_arg(argc, argv, 1, ncpu > 0 ? ncpu : 1, MAX_THREADS);
	base_depth = wl_arg(argc, argv, 2, 0, 10000);
	wl_start_reporter(count);
	for (long i = 1; i < nthreads; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, (void *)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	worker((void *)0);
	return 0;
}
