// Bench workload: C++ with deep inlined templates (-O2 -g): a compile-time
// recursion of always-inline template levels under noinline entry points,
// plus std::sort of a small vector; one worker per CPU (argv[1]).
#include "bench_wl.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

namespace bench {
namespace detail {

template <int N, typename T>
struct Level {
	__attribute__((always_inline)) static inline T run(T x)
	{
		T y = Level<N - 1, T>::run(x * T(3) + T(N));
		return y ^ (y >> (N % 7 + 1));
	}
};

template <typename T>
struct Level<0, T> {
	__attribute__((always_inline)) static inline T run(T x)
	{
		for (int i = 0; i < 64; i++)
			x = x * T(2862933555777941757ull) + T(3037000493ull);
		return x;
	}
};

} // namespace detail

template <typename T, int Depth>
class Pipeline {
public:
	__attribute__((noinline)) T step(T x) const
	{
		for (int i = 0; i < 16; i++)
			x = detail::Level<Depth, T>::run(x + T(i));
		return x;
	}
};

template <typename T>
__attribute__((noinline)) T sort_some(std::vector<T> &v, T seed)
{
	for (auto &e : v)
		e = seed = seed * T(6364136223846793005ull) + T(1);
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

} // namespace bench

static const long kMaxThreads = 64;
static std::atomic<uint64_t> done[kMaxThreads * 8];
static long nthreads;
static volatile uint64_t sink;

static uint64_t count()
{
	uint64_t s = 0;
	for (long i = 0; i < nthreads; i++)
		s += done[i * 8].load(std::memory_order_relaxed);
	return s;
}

static void *worker(void *arg)
{
	long slot = (long)arg;
	bench::Pipeline<uint64_t, 12> p12;
	bench::Pipeline<uint64_t, 8> p8;
	std::vector<uint64_t> v(256);
	uint64_t x = (uint64_t)slot;

	for (;;) {
		x = p12.step(x);
		x ^= p8.step(x);
		x += bench::sort_some(v, x);
		sink = x;
		done[slot * 8].fetch_add(1, std::memory_order_relaxed);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	nthreads = wl_arg(argc, argv, 1, ncpu > 0 ? ncpu : 1, kMaxThreads);
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
