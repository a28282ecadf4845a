/* Bench workload: N processes of one binary (argv[1], default 200), all
 * busy in the same loop (-O2 -fomit-frame-pointer), so that every one of them
 * is sampled. Each child counts its work in a shared page; the parent reports
 * the sum and takes the children down with it. */
#include "bench_wl.h"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define MAX_CHILDREN 1000

static uint64_t *slots; /* one cache line per child */
static long nchildren;
static volatile uint64_t sink;

static uint64_t count(void)
{
	uint64_t s = 0;

	for (long i = 0; i < nchildren; i++)
		s += __atomic_load_n(&slots[i * 8], __ATOMIC_RELAXED);
	return s;
}

WL_NOINLINE static uint64_t step(uint64_t x)
{
	for (int i = 0; i < 5000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

WL_NOINLINE static uint64_t layer(uint64_t x, int n)
{
	return n ? layer(step(x), n - 1) : x;
}

WL_NOINLINE static void child_loop(long slot)
{
	uint64_t x = (uint64_t)slot;

	for (;;) {
		x = layer(x, 4);
		sink = x;
		__atomic_fetch_add(&slots[slot * 8], 1, __ATOMIC_RELAXED);
	}
}

int main(int argc, char **argv)
{
	pid_t parent = getpid();

	nchildren = wl_arg(argc, argv, 1, 200, MAX_CHILDREN);
	slots = mmap(NULL, (size_t)nchildren * 64, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long i = 0; i < nchildren; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			kill(0, SIGKILL);
			return 1;
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			child_loop(i);
		}
	}
	/* The children are forked before the reporter thread exists. */
	wl_start_reporter(count);
	for (;;)
		pause();
	return 0;
}
