/* Workload: a process posing as CPython 3.11 (doc/security.md 5c, 5d), to
 * attack the agent's CPython reader the way a local user can. It exports
 * what the reader recognises an interpreter by (_PyEval_EvalFrameDefault,
 * _PyRuntime, PyCode_Type, Py_Version) and lays its interpreter, thread
 * and frame states, code objects and strings out with the very table the
 * reader reads them by (runtimes/cpython_layout.c), so the offsets are
 * right by construction and what the test measures is the attack, not a
 * layout the reader refuses. Its threads spin in _PyEval_EvalFrameDefault,
 * which keeps the frame it runs and a pointer into that frame's bytecode in
 * its own stack frame as CPython's eval loop does, so the samples land in
 * the eval loop and prove what it ran.
 *
 *   plain   three frames (fake_outer -> fake_middle -> fake_hot in
 *           fake_cpython.py), nothing changes: the control, showing that
 *           the agent reads and names this interpreter at all.
 *   rename  COUNT frames (default 256): the innermost runs fake_hot, the
 *           others run code objects replaced about every 100 us by new
 *           ones (new addresses, new first lines) with new 1 KB names and
 *           file names, so that every stack read interns new names. THREADS
 *           threads (default 1) run them, each with its thread state: at
 *           nice 19 on a busy host each thread is a share of the CPU, and
 *           so of the samples, that the attacker adds at will.
 *   decoys  COUNT thread states (default 4,095) with thread ids that no
 *           thread has, renumbered about every 100 us, and none for the
 *           thread that runs: every sample makes the reader look for the
 *           thread through the whole list, and no walk can stop early at
 *           a state it walked before. (A state of the running thread at
 *           the list's end would be found by the first walk and cost
 *           nothing after it.)
 *
 * Usage: fake_cpython MODE SECONDS [COUNT [THREADS]]. The tests run it
 * under the name python3.11 (the name agents before Py_Version was read
 * took the version from). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>

#include "runtimes/cpython_layout.h"
#include "wl_time.h"

/* What the reader recognises an interpreter by. Their types are not
 * CPython's: only their addresses and Py_Version's value are read. */
const unsigned long Py_Version = 0x030B07F0; /* 3.11.7 final */
unsigned char _PyRuntime[4096] __attribute__((aligned(64)));
unsigned char PyCode_Type[512] __attribute__((aligned(64)));
void *_PyEval_EvalFrameDefault(void *tstate, unsigned char *frame, int throwflag);

#define RENAME_DEFAULT 256
#define DECOYS_DEFAULT 4095
#define MAX_COUNT 4096
#define MAX_THREADS 64
/* Generations of renamed code objects, written in turn: the reader may
 * still be reading one while the next are written. */
#define GENERATIONS 8
/* Bytes of each renamed name: 1 KB, of which the reader keeps the first
 * 256 characters, where the generation is written. */
#define NAME_LEN 1000
#define STR_BYTES (72 + NAME_LEN + 8)
#define CODE_BYTES 256
#define BYTECODE_UNITS 16
#define FRAME_BYTES 96
#define TSTATE_BYTES 512
#define STEP_NS 100000

static const struct cpython_layout *L;
static volatile sig_atomic_t stop;
static double deadline;
volatile unsigned long sink;

enum mode { PLAIN, RENAME, DECOYS };
static enum mode mode;
static unsigned count, nthreads = 1;
static unsigned long generation;

static unsigned char interp[4096] __attribute__((aligned(64)));
static unsigned char cframe[64] __attribute__((aligned(64)));
static unsigned char *tstates; /* count of them (decoys), or one a thread */
static unsigned char *frames;  /* outermost first */
static unsigned nframes;
static unsigned char *codes;   /* plain: 3; rename: GENERATIONS x (nframes - 1),
				  then fake_hot */
static unsigned char *strs;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void put64(unsigned char *base, uint32_t off, uint64_t v)
{
	memcpy(base + off, &v, sizeof(v));
}

static void put32(unsigned char *base, uint32_t off, uint32_t v)
{
	memcpy(base + off, &v, sizeof(v));
}

static uint64_t addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static void *zalloc(size_t n)
{
	void *p = aligned_alloc(64, (n + 63) & ~(size_t)63);

	if (!p) {
		perror("fake_cpython: aligned_alloc");
		exit(1);
	}
	memset(p, 0, n);
	return p;
}

/* A compact ASCII str (PyASCIIObject followed by its characters). */
static void make_str(unsigned char *s, const char *text, size_t len)
{
	/* state: kind 1 (bits 2-4), compact (bit 5), ascii (bit 6), ready (bit 7) */
	put64(s, 0, 1);
	put64(s, L->str_size, len);
	put32(s, L->str_state, (1u << 2) | (1u << 5) | (1u << 6) | (1u << 7));
	if (text)
		memcpy(s + L->str_data, text, len);
	s[L->str_data + len] = 0;
}

/* A code object with its bytecode inline (3.11's co_code_adaptive). */
static void make_code(unsigned char *c, const unsigned char *name, const unsigned char *file, int32_t line)
{
	put64(c, 0, 1);
	put64(c, 8, addr(PyCode_Type));
	put64(c, 16, BYTECODE_UNITS);
	put32(c, L->code_firstlineno, (uint32_t)line);
	put64(c, L->code_filename, addr(file));
	put64(c, L->code_name, addr(name));
	put64(c, (uint32_t)L->code_qualname, addr(name));
	put64(c, L->code_linetable, 0);
}

static unsigned char *bytecode(unsigned char *code)
{
	return code + L->code_bytecode;
}

/* A thread state of the first interpreter: next, its TID, its frames. */
static void make_tstate(unsigned char *ts, unsigned char *next, int32_t tid, uint64_t thread)
{
	put64(ts, L->tstate_next, addr(next));
	put64(ts, L->tstate_interp, addr(interp));
	put64(ts, L->tstate_frame, addr(cframe));
	put64(ts, L->tstate_thread_id, thread);
	put32(ts, (uint32_t)L->tstate_native_id, (uint32_t)tid);
	/* the data stack holds every frame: none lies at or above its top */
	put64(ts, L->tstate_datastack, addr(frames));
	put64(ts, L->tstate_datastack + 8, addr(frames + nframes * FRAME_BYTES));
	put64(ts, L->tstate_datastack + 16, addr(frames + nframes * FRAME_BYTES + 4096));
}

/* Frame i (0 outermost) runs code, at its first instruction. */
static void set_frame_code(unsigned i, unsigned char *code)
{
	unsigned char *f = frames + (size_t)i * FRAME_BYTES;

	put64(f, L->frame_code, addr(code));
	put64(f, L->frame_instr, addr(bytecode(code) + 2));
}

static void make_frames(unsigned n)
{
	unsigned i;

	nframes = n;
	frames = zalloc((size_t)n * FRAME_BYTES);
	for (i = 0; i < n; i++) {
		unsigned char *f = frames + (size_t)i * FRAME_BYTES;

		put64(f, L->frame_back, i ? addr(f - FRAME_BYTES) : 0);
		f[L->frame_entry] = i == 0;
	}
	put64(cframe, (uint32_t)L->cframe_current, addr(frames + (size_t)(n - 1) * FRAME_BYTES));
}

static unsigned char *str_at(unsigned k)
{
	return strs + (size_t)k * STR_BYTES;
}

/* Writes generation g's renamed codes and points the frames at them: new
 * objects (another generation's memory), new first lines, and names whose
 * first characters say which generation and frame they are. */
static void rename_codes(unsigned long g)
{
	static const char hex[] = "0123456789abcdef";
	unsigned slot = (unsigned)(g % GENERATIONS), j, k;

	for (j = 0; j + 1 < nframes; j++) {
		size_t at = (size_t)slot * (nframes - 1) + j;
		unsigned char *code = codes + at * CODE_BYTES;
		unsigned char *name = str_at((unsigned)(2 * at)), *file = str_at((unsigned)(2 * at + 1));

		for (k = 0; k < 16; k++) {
			char d = hex[(g >> (60 - 4 * k)) & 15];

			name[L->str_data + k] = (unsigned char)d;
			file[L->str_data + k] = (unsigned char)d;
		}
		name[L->str_data + 16] = hex[j & 15];
		name[L->str_data + 17] = hex[(j >> 4) & 15];
		file[L->str_data + 16] = hex[j & 15];
		file[L->str_data + 17] = hex[(j >> 4) & 15];
		make_code(code, name, file, (int32_t)(g & 0x7fffffff));
		set_frame_code(j, code);
	}
}

/* Renumbers the decoys: thread ids above any pid_max (4,194,304), new at
 * each generation. */
static void renumber_decoys(unsigned long g)
{
	unsigned i;

	for (i = 0; i < count; i++)
		put32(tstates + (size_t)i * TSTATE_BYTES, (uint32_t)L->tstate_native_id,
		      0x40000000u | (uint32_t)((g * MAX_COUNT + i) & 0x3fffffff));
}

/* What the program does between two stretches of the eval loop: change
 * what the reader finds. Every thread renames the frames they all run, so
 * that they change as often as any of the threads runs (at nice 19 each
 * runs in bursts, now and then). */
__attribute__((noinline)) static void step(void)
{
	unsigned long g = __sync_add_and_fetch(&generation, 1);

	if (mode == RENAME)
		rename_codes(g);
	else if (mode == DECOYS)
		renumber_decoys(g);
	if (wl_now() >= deadline)
		stop = 1;
}

/* The eval loop: like CPython's, it keeps the frame it runs and its
 * instruction pointer in its own stack frame for as long as it runs it,
 * which is what the reader's proof of a sample's frames looks for
 * (runtimes/cpython_proof.c). */
WL_NOINLINE void *_PyEval_EvalFrameDefault(void *tstate, unsigned char *frame, int throwflag)
{
	volatile uint64_t running[2];
	unsigned long x = (unsigned long)throwflag;

	(void)tstate;
	running[0] = addr(frame);
	memcpy((void *)&running[1], frame + L->frame_instr, sizeof(running[1]));
	while (!stop) {
		double end = wl_now() + STEP_NS / 1e9;
		unsigned i;

		do {
			for (i = 0; i < 2000; i++) {
				x = x * 6364136223846793005UL + 1442695040888963407UL;
				x ^= x >> 17;
			}
		} while (wl_now() < end);
		sink += x + running[0] + running[1];
		step();
	}
	return NULL;
}

static void build_plain(int32_t tid)
{
	static const char *const names[3] = { "fake_outer", "fake_middle", "fake_hot" };
	unsigned i;

	make_frames(3);
	codes = zalloc(3 * CODE_BYTES);
	strs = zalloc(4 * STR_BYTES);
	make_str(str_at(3), "fake_cpython.py", strlen("fake_cpython.py"));
	for (i = 0; i < 3; i++) {
		make_str(str_at(i), names[i], strlen(names[i]));
		make_code(codes + i * CODE_BYTES, str_at(i), str_at(3), (int32_t)(10 * (i + 1)));
		set_frame_code(i, codes + i * CODE_BYTES);
	}
	tstates = zalloc(TSTATE_BYTES);
	make_tstate(tstates, NULL, tid, (uint64_t)pthread_self());
}

static void build_rename(void)
{
	char text[NAME_LEN];
	size_t i, nstr;
	unsigned char *hot, *hot_name, *hot_file;

	make_frames(count);
	codes = zalloc(((size_t)GENERATIONS * (count - 1) + 1) * CODE_BYTES);
	nstr = 2 * (size_t)GENERATIONS * (count - 1) + 2;
	strs = zalloc(nstr * STR_BYTES);
	/* no '/' in a file name: the reader keeps all of it */
	memset(text, 'n', sizeof(text));
	for (i = 0; i < nstr; i++)
		make_str(str_at((unsigned)i), text, NAME_LEN);
	hot = codes + (size_t)GENERATIONS * (count - 1) * CODE_BYTES;
	hot_name = str_at((unsigned)(nstr - 2));
	hot_file = str_at((unsigned)(nstr - 1));
	make_str(hot_name, "fake_hot", 8);
	make_str(hot_file, "fake_cpython.py", 15);
	make_code(hot, hot_name, hot_file, 30);
	set_frame_code(count - 1, hot);
	rename_codes(0);
	tstates = zalloc((size_t)nthreads * TSTATE_BYTES);
}

/* The threads of rename mode: each fills in its thread state, then all
 * run the eval loop once the interpreter is published. */
static volatile int ready, published;

static void *thread_main(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;

	make_tstate(tstates + (size_t)i * TSTATE_BYTES,
		    i + 1 < nthreads ? tstates + (size_t)(i + 1) * TSTATE_BYTES : NULL,
		    (int32_t)syscall(SYS_gettid), (uint64_t)pthread_self());
	__sync_fetch_and_add(&ready, 1);
	while (!published)
		;
	_PyEval_EvalFrameDefault(tstates + (size_t)i * TSTATE_BYTES,
				 frames + (size_t)(nframes - 1) * FRAME_BYTES, 0);
	return NULL;
}

static void start_threads(void)
{
	pthread_t t;
	unsigned i;

	for (i = 1; i < nthreads; i++)
		if (pthread_create(&t, NULL, thread_main, (void *)(uintptr_t)i) != 0) {
			perror("fake_cpython: pthread_create");
			exit(1);
		}
	while (ready < (int)nthreads - 1)
		;
}

static void build_decoys(void)
{
	unsigned i;

	build_plain(0);
	free(tstates);
	tstates = zalloc((size_t)count * TSTATE_BYTES);
	for (i = 0; i < count; i++)
		make_tstate(tstates + (size_t)i * TSTATE_BYTES,
			    i + 1 < count ? tstates + (size_t)(i + 1) * TSTATE_BYTES : NULL, 0,
			    0x7f0000000000ull + (uint64_t)i * 0x1000);
	renumber_decoys(0);
}

int main(int argc, char **argv)
{
	int32_t tid = (int32_t)syscall(SYS_gettid);
	double secs;

	L = cpython_layout__table(3, 11);
	if (argc < 3 || !L) {
		fprintf(stderr, "usage: fake_cpython plain|rename|decoys SECONDS [COUNT [THREADS]]\n");
		return 2;
	}
	if (strcmp(argv[1], "plain") == 0)
		mode = PLAIN;
	else if (strcmp(argv[1], "rename") == 0)
		mode = RENAME;
	else if (strcmp(argv[1], "decoys") == 0)
		mode = DECOYS;
	else
		return 2;
	secs = wl_seconds(argc - 1, argv + 1, 10.0);
	count = mode == RENAME ? RENAME_DEFAULT : DECOYS_DEFAULT;
	if (argc > 3)
		count = (unsigned)strtoul(argv[3], NULL, 10);
	if (argc > 4 && mode == RENAME)
		nthreads = (unsigned)strtoul(argv[4], NULL, 10);
	if (count < 2 || count > MAX_COUNT || nthreads < 1 || nthreads > MAX_THREADS) {
		fprintf(stderr, "fake_cpython: COUNT must be 2..%d, THREADS 1..%d\n", MAX_COUNT,
			MAX_THREADS);
		return 2;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (mode == PLAIN)
		build_plain(tid);
	else if (mode == RENAME)
		build_rename();
	else
		build_decoys();
	if (mode == RENAME) {
		start_threads();
		make_tstate(tstates, nthreads > 1 ? tstates + TSTATE_BYTES : NULL, tid,
			    (uint64_t)pthread_self());
	}
	/* published last: a reader finds the interpreter whole or not at all */
	put64(interp, L->interp_tstate_head, addr(tstates));
	put64(_PyRuntime, L->runtime_interp_head, addr(interp));
	deadline = wl_now() + secs;
	published = 1;
	_PyEval_EvalFrameDefault(tstates, frames + (size_t)(nframes - 1) * FRAME_BYTES, 0);
	fprintf(stderr, "fake_cpython %s: %lu generations\n", argv[1], generation);
	return 0;
}
