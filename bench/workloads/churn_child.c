/* Bench workload: the short-lived process of the churn workload; dynamically
 * linked, about half a millisecond of CPU in a call chain, then exits. */
#include <stdint.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile uint64_t sink;

NOINLINE static uint64_t spin(uint64_t x)
{
	for (int i = 0; i < 200000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

NOINLINE static uint64_t work(uint64_t x)
{
	return spin(x) ^ spin(x + 1);
}

int main(void)
{
	sink = work((uint64_t)time(NULL));
	return 0;
}
