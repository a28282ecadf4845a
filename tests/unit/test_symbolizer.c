/* symbolize/symbolizer: the one entry point from a pc to frame names: a
 * binary's index, a process's perf map for anonymous code, the fallbacks,
 * and forgetting a process whose image went. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "symbolize/symbolizer.h"
#include "symbolize/perfmap.h"
#include "symbolize/symindex.h"
#include "tests/unit/child_creds.h"

static struct strtab *names;
static struct symbolizer *sz;
static char map_path[64];

static void setup(void)
{
	names = strtab__new();
	cr_assert_not_null(names);
	cr_assert_eq(symbolizer__new(names, NULL, 0, &sz), 0);
	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
}

static void teardown(void)
{
	symbolizer__delete(sz);
	strtab__delete(names);
	unlink(map_path);
}

TestSuite(symbolizer, .init = setup, .fini = teardown);

/* A function of this program, to be named from its own symbol table. */
__attribute__((noinline, used)) int symbolizer_test_target(int v);
__attribute__((noinline, used)) int symbolizer_test_target(int v)
{
	return v * 3 + 1;
}

static int main_bias_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr;
	return 1; /* the first object is the program itself */
}

static const char *joined(const uint32_t *ids, size_t n)
{
	static char buf[1024];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = n; i-- > 0;)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? ";" : "",
					strtab__str(names, ids[i]));
	return buf;
}

static const char *user_of(int pid, const struct symbolize_code *code, uint64_t pc, uint64_t now)
{
	struct symbolize_process proc = { pid, 0 };
	uint32_t ids[SYMBOLIZER_MAX_FRAMES_PER_PC];
	size_t n = 0;

	cr_assert_eq(symbolizer__user(sz, &proc, pc, code, now, ids, SYMBOLIZER_MAX_FRAMES_PER_PC, &n), 0);
	cr_assert_geq(n, 1);
	return joined(ids, n);
}

static const char *user(const struct symbolize_code *code, uint64_t pc, uint64_t now)
{
	return user_of((int)getpid(), code, pc, now);
}

Test(symbolizer, names_a_binary_pc_from_its_index)
{
	struct symbolize_code code;
	struct symindex *index = NULL;
	uint64_t bias = 0, pc = (uint64_t)(uintptr_t)symbolizer_test_target + 2;

	cr_assert_eq(symindex__new("/proc/self/exe", "test_symbolizer", names, &index), 0);
	dl_iterate_phdr(main_bias_cb, &bias);
	memset(&code, 0, sizeof(code));
	code.index = index;
	cr_assert_eq(strtab__intern_cstr(names, "/proc/self/exe", &code.path), 0);
	code.vaddr = pc - bias;
	cr_assert_str_eq(user(&code, pc, 1), "symbolizer_test_target");
	symindex__delete(index);
}

static uint32_t id_of(const char *s)
{
	uint32_t id;

	cr_assert_eq(strtab__intern_cstr(names, s, &id), 0);
	return id;
}

Test(symbolizer, fallbacks_without_symbols)
{
	struct symbolize_code code;
	char pending[64];
	uint32_t module;

	memset(&code, 0, sizeof(code));
	snprintf(pending, sizeof(pending), "[jit %d 0x1234]", (int)getpid());
	cr_assert_str_eq(user(&code, 0x1234, 1), pending, "anonymous memory, no perf map yet");
	cr_assert_eq(symbolizer__settle(sz), 1);
	cr_assert_str_eq(strtab__str(names, symbolizer__renamed(sz, id_of(pending))), "[unknown]",
			 "nothing named it by the window's end");
	symbolizer__clear_renames(sz);
	cr_assert_eq(strtab__intern_cstr(names, "/opt/app/lib/libthing.so.1", &code.path), 0);
	cr_assert_str_eq(user(&code, 0x1234, 1), "[libthing.so.1]", "a file nothing names");
	cr_assert_eq(strtab__intern_cstr(names, "[prebuilt]", &module), 0);
	code.module_frame = module;
	cr_assert_str_eq(user(&code, 0x1234, 1), "[prebuilt]", "the binary's own frame wins");
	cr_assert_str_eq(strtab__str(names, symbolizer__kernel(sz, 0xffffffff81000000ull)),
			 "[kernel]_[k]", "no kernel table loaded");
}

static void write_map(const char *text)
{
	FILE *f;

	/* made anew, so that it is ours: a map another test left behind for a
	 * process of another user, whose pid is ours now, would keep its
	 * owner through a truncating open, and be refused as not ours */
	(void)unlink(map_path);
	f = fopen(map_path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* Anonymous code named from /tmp/perf-PID.map, reloaded at most once a
 * second, and dropped with the process's image. */
Test(symbolizer, jit_code_from_the_perf_map)
{
	struct symbolize_code code;
	const uint64_t s = 1000000000ull;
	char pending[64];

	memset(&code, 0, sizeof(code));
	write_map("10000 100 LazyCompile:hot app.js:3\n");
	cr_assert_str_eq(user(&code, 0x10010, 1 * s), "LazyCompile:hot app.js:3_[j]");
	/* the JIT appends; a pc past the map is pending until the next second */
	write_map("10000 100 LazyCompile:hot app.js:3\n20000 100 LazyCompile:warm app.js:9\n");
	snprintf(pending, sizeof(pending), "[jit %d 0x20010]", (int)getpid());
	cr_assert_str_eq(user(&code, 0x20010, 1 * s + 10), pending);
	cr_assert_str_eq(user(&code, 0x20010, 3 * s), "LazyCompile:warm app.js:9_[j]");
	/* and the pending frame is named at the window's end */
	cr_assert_eq(symbolizer__settle(sz), 1);
	cr_assert_str_eq(strtab__str(names, symbolizer__renamed(sz, id_of(pending))),
			 "LazyCompile:warm app.js:9_[j]");
	symbolizer__clear_renames(sz);
	/* an exec: what the old image compiled is no longer there */
	symbolizer__forget_process(sz, (int)getpid());
	write_map("10000 100 other\n");
	cr_assert_str_eq(user(&code, 0x10010, 3 * s + 10), "other_[j]", "read at once after forget");
	symbolizer__forget_process(sz, 1); /* a pid it never saw */
}

/* A map written only when the process is done (HotSpot's
 * DumpPerfMapAtExit): the samples taken before are named once the process
 * is forgotten, through its root kept open. */
Test(symbolizer, a_map_written_at_exit_names_earlier_samples)
{
	struct symbolize_code code;
	char pending[64];

	memset(&code, 0, sizeof(code));
	unlink(map_path);
	snprintf(pending, sizeof(pending), "[jit %d 0x30010]", (int)getpid());
	cr_assert_str_eq(user(&code, 0x30010, 1), pending);
	write_map("30000 100 Hot.method\n");
	symbolizer__forget_process(sz, (int)getpid());
	cr_assert_str_eq(strtab__str(names, symbolizer__renamed(sz, id_of(pending))), "Hot.method_[j]");
	cr_assert_eq(symbolizer__settle(sz), 1, "the rename waits for the window");
	symbolizer__clear_renames(sz);
	cr_assert_eq(symbolizer__settle(sz), 0);
}

/* A compaction of the names keeps every frame the symbolizer hands out. */
Test(symbolizer, names_survive_a_compaction)
{
	struct symbolize_code code;
	struct strtab_remap r;
	struct strtab *to = strtab__new();
	struct symbolizer_stats st;

	memset(&code, 0, sizeof(code));
	write_map("10000 100 jitted\n");
	cr_assert_str_eq(user(&code, 0x10010, 1), "jitted_[j]");
	cr_assert_eq(strtab_remap__init(&r, names, to), 0);
	cr_assert_eq(symbolizer__remap_names(sz, &r), 0);
	strtab_remap__commit(&r);
	cr_assert_eq(symbolizer__remap_names(sz, &r), 0);
	strtab_remap__fini(&r);
	strtab__delete(names);
	names = to;
	cr_assert_str_eq(user(&code, 0x10010, 2), "jitted_[j]");
	cr_assert_str_eq(strtab__str(names, symbolizer__unknown(sz)), "[unknown]");
	symbolizer__stats(sz, &st);
	cr_assert_eq(st.jit_processes, 1);
}

/* F8: a map touched without new content is not read again; appended lines
 * are read alone (perf maps are append-only); a rewrite is read whole. */
Test(symbolizer, perf_maps_are_read_as_they_grow)
{
	struct perfmap *m = NULL;
	struct timespec ts[2];
	uint32_t id;
	FILE *f;

	write_map("10000 100 first\n");
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, map_path, getuid(), names, 0, &m), 1);
	ts[0].tv_sec = ts[1].tv_sec = time(NULL) + 100;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	cr_assert_eq(utimensat(AT_FDCWD, map_path, ts, 0), 0);
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, map_path, getuid(), names, 0, &m), 0, "touched only: not read again");
	f = fopen(map_path, "a");
	cr_assert_not_null(f);
	fputs("20000 100 second\n30000 100 thi", f); /* the last line half written */
	fclose(f);
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, map_path, getuid(), names, 0, &m), 1);
	cr_assert_eq(perfmap__lookup(m, 0x10010, &id), 0, "what was read before stays");
	cr_assert_str_eq(strtab__str(names, id), "first_[j]");
	cr_assert_eq(perfmap__lookup(m, 0x20010, &id), 0);
	cr_assert_str_eq(strtab__str(names, id), "second_[j]");
	f = fopen(map_path, "a");
	fputs("rd\n", f);
	fclose(f);
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, map_path, getuid(), names, 0, &m), 1);
	cr_assert_eq(perfmap__lookup(m, 0x30010, &id), 0);
	cr_assert_str_eq(strtab__str(names, id), "third_[j]", "the half line read whole once ended");
	cr_assert_eq(perfmap__count(m), 3);
	write_map("40000 100 rewritten\n"); /* shorter: a new file */
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, map_path, getuid(), names, 0, &m), 1);
	cr_assert_eq(perfmap__count(m), 1);
	/* the same inode and size, other content (a JIT rewriting its map in
	 * place, or a rename that got the freed inode back): read again */
	write_map("50000 100 rewrittn\n");
	ts[0].tv_sec = ts[1].tv_sec = time(NULL) + 200;
	cr_assert_eq(utimensat(AT_FDCWD, map_path, ts, 0), 0);
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, map_path, getuid(), names, 0, &m), 1);
	cr_assert_eq(perfmap__lookup(m, 0x50010, &id), 0);
	cr_assert_str_eq(strtab__str(names, id), "rewrittn_[j]");
	cr_assert_eq(perfmap__lookup(m, 0x40010, &id), -ENOENT);
	perfmap__delete(m);
}

/* F8: what a map may be read from is the caller's limit (the owner's share
 * of the load budget): lines past it are not read, and appends past it cost
 * an fstat, not a read. */
Test(symbolizer, perf_map_text_is_limited)
{
	struct perfmap *m = NULL;
	uint32_t id;
	FILE *f;

	/* 17 bytes per line: the limit of 40 keeps two whole lines */
	write_map("10000 100 first\n20000 100 secnd\n30000 100 third\n");
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, map_path, getuid(), names, 40, &m), 1);
	cr_assert_eq(perfmap__count(m), 2);
	cr_assert_eq(perfmap__lookup(m, 0x30010, &id), -ENOENT);
	cr_assert(perfmap__truncated(m));
	f = fopen(map_path, "a");
	cr_assert_not_null(f);
	fputs("40000 100 fourth\n", f);
	fclose(f);
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, map_path, getuid(), names, 40, &m), 0,
		     "past the limit: nothing read");
	cr_assert_eq(perfmap__count(m), 2);
	/* room again (another map released its share): the rest is read */
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, map_path, getuid(), names, 0, &m), 0,
		     "unchanged since the last look");
	f = fopen(map_path, "a");
	fputs("50000 100 fifth\n", f);
	fclose(f);
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, map_path, getuid(), names, 0, &m), 1);
	cr_assert_eq(perfmap__count(m), 5);
	cr_assert(!perfmap__truncated(m));
	cr_assert(perfmap__bytes(m) >= 5 * 17);
	perfmap__delete(m);
}

/* Whose the process is, read before its files are: a root process's
 * root-owned map names its code; once it setuid()s to a user, what was read
 * under root's rule is dropped at the next read, and only a map of that
 * user names it (a root-only file bound over it would be root's). */
Test(symbolizer, jit_files_are_the_process_users_when_read)
{
	struct symbolize_code code;
	const uint64_t s = 1000000000ull;
	struct child ch;
	char path[64], pending[64];
	FILE *f;

	child_need_root();
	memset(&code, 0, sizeof(code));
	child_start(&ch);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)ch.pid);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("40000 100 RootJit\n", f);
	fclose(f);
	cr_assert_str_eq(user_of(ch.pid, &code, 0x40010, 1 * s), "RootJit_[j]", "root's file, root's process");

	child_do(&ch, 'd');
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("40000 100 RootJit\n50000 100 NotTheUsers\n", f);
	fclose(f);
	snprintf(pending, sizeof(pending), "[jit %d 0x50010]", (int)ch.pid);
	cr_assert_str_eq(user_of(ch.pid, &code, 0x50010, 3 * s), pending,
			 "the process is nobody's now: a root-owned map names nothing");
	snprintf(pending, sizeof(pending), "[jit %d 0x40010]", (int)ch.pid);
	cr_assert_str_eq(user_of(ch.pid, &code, 0x40010, 3 * s + 10), pending,
			 "what root's map named was dropped with the owner");

	cr_assert_eq(chown(path, CHILD_NOBODY, CHILD_NOBODY), 0);
	cr_assert_str_eq(user_of(ch.pid, &code, 0x50010, 5 * s), "NotTheUsers_[j]", "the user's own map");
	/* gone: its last read owner stands for the files read at its end */
	child_end(&ch, 0);
	symbolizer__forget_process(sz, ch.pid);
	symbolizer__settle(sz);
	symbolizer__clear_renames(sz);
	unlink(path);
}

/* How many of our fds are on /proc/PID (the directory itself). */
static int fds_on_proc_of(int pid)
{
	char want[32], link[64], path[64];
	int fd, n = 0;

	snprintf(want, sizeof(want), "/proc/%d", pid);
	for (fd = 0; fd < 1024; fd++) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		/* "/proc/PID", or "/proc/PID (deleted)" once it is gone */
		if (strncmp(link, want, strlen(want)) == 0 &&
		    (link[strlen(want)] == '\0' || link[strlen(want)] == ' '))
			n++;
	}
	return n;
}

/* A process whose anonymous code is named after its exit was handled (a
 * zombie then, whose /proc directory still opens) is never forgotten by
 * its EXIT: it must not hold its directory open for ever. */
Test(symbolizer, processes_gone_unsaid_are_forgotten)
{
	struct symbolize_code code;
	struct child ch;
	char path[64];
	FILE *f;

	memset(&code, 0, sizeof(code));
	child_start(&ch);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)ch.pid);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("40000 100 Leaf\n", f);
	fclose(f);
	child_end(&ch, 1);
	/* looked up while a zombie, after its EXIT would have been handled
	 * (its root no longer opens: the frame waits to be named) */
	(void)user_of(ch.pid, &code, 0x40010, 1000000000ull);
	cr_assert_eq(fds_on_proc_of(ch.pid), 1);
	symbolizer__forget_gone(sz);
	cr_assert_eq(fds_on_proc_of(ch.pid), 1, "a zombie is not gone yet");

	cr_assert_eq(waitpid(ch.pid, NULL, 0), ch.pid);
	symbolizer__forget_gone(sz);
	cr_assert_eq(fds_on_proc_of(ch.pid), 0, "reaped: forgotten, its /proc directory closed");
	symbolizer__settle(sz);
	symbolizer__clear_renames(sz);
	unlink(path);
}
