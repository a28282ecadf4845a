/* Workload: C code called from JIT code. main -> run_jit calls a stub
 * "compiled" into anonymous executable memory (named jit_trampoline in
 * /tmp/perf-PID.map), which keeps a frame pointer, as JITs do, and calls
 * back into C: jit_callee -> jit_spin, for argv[1] seconds. No CFI covers
 * the stub: an unwinder must step over it by frame pointer and go back to
 * CFI for run_jit, main and _start. Exits 77 where the machine code
 * (x86-64) cannot run.
 *
 * For the credential tests, the owner of the process and of its map may
 * change before the stub runs:
 *
 *   --drop UID   (started as root) become user UID, without exec, and
 *                dumpable again (a user may ask for it; it lets the
 *                process write its own uid map below);
 *   --bind FILE  from a new user and mount namespace of its own, bind
 *                FILE over its perf map (the attack of doc/security.md
 *                F1: FILE may be a root-only file).
 *
 * Usage: jit_fp SECONDS [--drop UID] [--bind FILE]. The perf map is written
 * after --drop, by whoever the process is then. Prints "ready PID" once set
 * up; exits 3 when a step of the setup failed (it says which). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
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

#if defined(__x86_64__)
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int setup_failed(const char *what)
{
	fprintf(stderr, "jit_fp: %s: %s\n", what, strerror(errno));
	return 3;
}

static int drop_to(long uid)
{
	gid_t g = (gid_t)uid;

	if (setgroups(1, &g) != 0)
		return setup_failed("setgroups");
	if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0)
		return setup_failed("setresgid");
	if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0)
		return setup_failed("setresuid");
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
		return setup_failed("prctl(PR_SET_DUMPABLE)");
	return 0;
}

/* A user namespace of its own, its uid 0 being who the process is, and a
 * mount namespace in it where FILE is bound over map. */
static int bind_over(const char *file, const char *map)
{
	char line[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		return setup_failed("unshare(CLONE_NEWUSER | CLONE_NEWNS)");
	if (write_file("/proc/self/setgroups", "deny") != 0 && errno != ENOENT)
		return setup_failed("/proc/self/setgroups");
	snprintf(line, sizeof(line), "0 %u 1\n", (unsigned)uid);
	if (write_file("/proc/self/uid_map", line) != 0)
		return setup_failed("/proc/self/uid_map");
	snprintf(line, sizeof(line), "0 %u 1\n", (unsigned)gid);
	if (write_file("/proc/self/gid_map", line) != 0)
		return setup_failed("/proc/self/gid_map");
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return setup_failed("mount --make-rprivate /");
	if (mount(file, map, NULL, MS_BIND, NULL) != 0)
		return setup_failed("mount --bind");
	return 0;
}
#endif

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* push %rbp; mov %rsp,%rbp; movabs $jit_callee,%rax; call *%rax; pop %rbp; ret */
	unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
				 0xff, 0xd0, 0x5d, 0xc3 };
	unsigned long (*fn)(unsigned long) = jit_callee;
	const char *bind = NULL;
	double seconds = wl_seconds(argc > 1 ? 2 : 1, argv, 2.0);
	char path[64];
	unsigned char *mem;
	FILE *f;
	int i, rc;

	for (i = 2; i < argc; i += 2) {
		if (i + 1 == argc) {
			fprintf(stderr, "jit_fp: %s needs a value\n", argv[i]);
			return 2;
		} else if (strcmp(argv[i], "--drop") == 0) {
			rc = drop_to(strtol(argv[i + 1], NULL, 10));
			if (rc)
				return rc;
		} else if (strcmp(argv[i], "--bind") == 0) {
			bind = argv[i + 1];
		} else {
			fprintf(stderr, "jit_fp: unknown option %s\n", argv[i]);
			return 2;
		}
	}
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
	if (bind && (rc = bind_over(bind, path)) != 0) {
		unlink(path);
		return rc;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	end_time = wl_now() + seconds;
	sink += run_jit((unsigned long (*)(unsigned long))(void *)(mem + 256), 1);
	if (bind)
		umount2(path, MNT_DETACH);
	unlink(path);
	return 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jit_fp: the stub is x86-64 machine code\n");
	return 77;
#endif
}
