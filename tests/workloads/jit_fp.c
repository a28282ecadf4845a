/* Workload: C code called from JIT code. main -> run_jit calls a stub
 * "compiled" into anonymous executable memory (named jit_trampoline in
 * /tmp/perf-PID.map), which keeps a frame pointer, as JITs do, and calls
 * back into C: jit_callee -> jit_spin, for argv[1] seconds. No CFI covers
 * the stub: an unwinder must step over it by frame pointer and go back to
 * CFI for run_jit, main and _start. Exits 77 where the machine code
 * (x86-64) cannot run. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl_time.h"

volatile unsigned long sink;
static double end_time;

unsigned long jit_spin(unsigned long n);
unsigned long jit_callee(unsigned long n);
unsigned long run_jit(unsigned long (*stub)(unsigned long), unsigned long n);

WL_NOINLINE unsigned long jit_spin(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < 200000; i++)
		x = x * 6364136223846793005UL + 1;
	return x;
}

WL_NOINLINE unsigned long jit_callee(unsigned long n)
{
	return jit_spin(n) ^ n;
}

WL_NOINLINE unsigned long run_jit(unsigned long (*stub)(unsigned long), unsigned long n)
{
	unsigned long acc = 0;

	while (wl_now() < end_time)
		acc += stub(n++);
	return acc;
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* push %rbp; mov %rsp,%rbp; movabs $jit_callee,%rax; call *%rax; pop %rbp; ret */
	unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
				 0xff, 0xd0, 0x5d, 0xc3 };
	unsigned long (*fn)(unsigned long) = jit_callee;
	char path[64];
	unsigned char *mem;
	FILE *f;

	end_time = wl_now() + wl_seconds(argc, argv, 2.0);
	memcpy(code + 6, &fn, sizeof(fn));
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* some distance into the page, so no pc of it is a page start */
	memcpy(mem + 256, code, sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0) {
		perror("mprotect");
		return 1;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "%lx %zx jit_trampoline\n", (unsigned long)(mem + 256), sizeof(code));
	fclose(f);
	sink += run_jit((unsigned long (*)(unsigned long))(void *)(mem + 256), 1);
	unlink(path);
	return 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jit_fp: the stub is x86-64 machine code\n");
	return 77;
#endif
}
