/* LD_PRELOAD allocation counter for the steady-state test: counts calls of
 * malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign made
 * by the process, in all and within ALLOC_COUNT_WINDOW="FROM,TO" (seconds
 * since the process started, e.g. "3,6": after start-up, before the dump is
 * written), and writes "TOTAL IN_WINDOW" to the file named by
 * ALLOC_COUNT_FILE at exit. The real functions are reached with dlsym
 * (RTLD_NEXT); dlsym itself may calloc before that is set up, which a small
 * static arena serves. Not thread-safe in its arena (only used before main). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long long count, in_window;
static double t0 = -1, win_from, win_to;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
void *memalign(size_t align, size_t n); /* obsolete: not declared by stdlib.h */
static void (*real_free)(void *);

static char arena[16384] __attribute__((aligned(16)));
static size_t arena_used;

static int in_arena(const void *p)
{
	return (const char *)p >= arena && (const char *)p < arena + sizeof(arena);
}

static void *arena_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (arena_used + n > sizeof(arena))
		return NULL;
	p = arena + arena_used;
	arena_used += n;
	return p;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void counted(void)
{
	double t;

	__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
	if (t0 < 0)
		return;
	t = now_s() - t0;
	if (t >= win_from && t < win_to)
		__atomic_add_fetch(&in_window, 1, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void start(void)
{
	const char *w = getenv("ALLOC_COUNT_WINDOW");

	if (w && sscanf(w, "%lf,%lf", &win_from, &win_to) == 2)
		t0 = now_s();
}

static void init(void)
{
	static int busy;

	if (real_malloc || busy)
		return;
	busy = 1;
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	busy = 0;
}

void *malloc(size_t n)
{
	init();
	if (!real_malloc)
		return arena_alloc(n);
	counted();
	return real_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	init();
	if (!real_calloc)
		return arena_alloc(a * b); /* the arena is zeroed static memory */
	counted();
	return real_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	init();
	if (in_arena(p)) {
		size_t avail = (size_t)(arena + sizeof(arena) - (char *)p);
		void *q = malloc(n);

		if (q)
			memcpy(q, p, n < avail ? n : avail);
		return q;
	}
	counted();
	return real_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	init();
	counted();
	return real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	init();
	counted();
	return real_aligned_alloc(align, n);
}

void *memalign(size_t align, size_t n)
{
	init();
	counted();
	return real_memalign(align, n);
}

void free(void *p)
{
	if (!p || in_arena(p))
		return;
	init();
	real_free(p);
}

__attribute__((destructor)) static void report(void)
{
	unsigned long long n = __atomic_load_n(&count, __ATOMIC_RELAXED);
	unsigned long long w = __atomic_load_n(&in_window, __ATOMIC_RELAXED);
	const char *path = getenv("ALLOC_COUNT_FILE");
	FILE *f;

	if (!path || !(f = fopen(path, "we")))
		return;
	fprintf(f, "%llu %llu\n", n, w);
	fclose(f);
}
