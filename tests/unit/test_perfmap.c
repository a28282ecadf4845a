/* symbolize/perfmap: JIT symbols from perf map files, owner-checked. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/types.h>

#include "symbolize/perfmap.h"
#include "tests/unit/symfix.h"

TestSuite(perfmap, .init = setup, .fini = teardown);

Test(perfmap, parses_lines_later_entries_win)
{
	static const char text[] =
		"7f0000001000 100 LazyCompile:*foo file.js:1\n"
		"0x7f0000002000 0x20 Interpreter\n"
		"garbage line\n"
		"7f0000003000 zz bad_size\n"
		"7f0000004000 0 zero_size\n"
		"7f0000001000 80 foo;recompiled\r\n"
		"7f0000005000 10 \n"
		"7f0000006000 10 ctl\001name\n"
		"7f0000007000 10 last_without_newline";
	char path[] = "/tmp/smolder-perfmap-XXXXXX";
	struct perfmap *m = NULL;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	close(fd);
	write_file(path, text, sizeof(text) - 1);
	cr_assert_eq(perfmap__load(path, getuid(), names, &m), 0);
	cr_assert_eq(perfmap__count(m), 4);
	cr_assert_str_eq(mlookup(m, 0x7f0000001000ull), "foo:recompiled_[j]");
	cr_assert_str_eq(mlookup(m, 0x7f000000107full), "foo:recompiled_[j]");
	cr_assert_null(mlookup(m, 0x7f0000001080ull)); /* the re-emitted entry is smaller */
	cr_assert_str_eq(mlookup(m, 0x7f000000201full), "Interpreter_[j]");
	cr_assert_null(mlookup(m, 0x7f0000002020ull));
	cr_assert_null(mlookup(m, 0x7f0000004000ull));
	cr_assert_str_eq(mlookup(m, 0x7f0000006001ull), "ctlname_[j]");
	cr_assert_str_eq(mlookup(m, 0x7f0000007001ull), "last_without_newline_[j]");
	cr_assert_null(mlookup(m, 0x1000));
	perfmap__delete(m);
	unlink(path);
}

Test(perfmap, rejects_files_of_other_owners)
{
	char path[] = "/tmp/smolder-perfmap-XXXXXX";
	char link[sizeof(path) + 8];
	struct perfmap *m = NULL;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	close(fd);
	write_file(path, "1000 10 f\n", 10);
	if (getuid() == 0) {
		/* root owns the file: accepted only for a process that runs as
		 * root (a user can bind-mount a root file over their own map) */
		cr_assert_eq(perfmap__load(path, 1000, names, &m), -EPERM);
		cr_assert_null(m);
		cr_assert_eq(perfmap__load(path, 0, names, &m), 0);
		perfmap__delete(m);
		m = NULL;
		cr_assert_eq(chown(path, 65534, 65534), 0);
		cr_assert_eq(perfmap__load(path, 1000, names, &m), -EPERM);
		cr_assert_null(m);
		cr_assert_eq(perfmap__load(path, 65534, names, &m), 0);
		perfmap__delete(m);
		m = NULL;
	} else {
		cr_assert_eq(perfmap__load(path, getuid() + 1, names, &m), -EPERM);
		cr_assert_null(m);
	}
	/* a symlink is never followed, a directory is not a regular file */
	snprintf(link, sizeof(link), "%s.lnk", path);
	cr_assert_eq(symlink(path, link), 0);
	cr_assert_eq(perfmap__load(link, getuid(), names, &m), -EPERM);
	cr_assert_eq(perfmap__load("/tmp", 0, names, &m), -EPERM);
	cr_assert_eq(perfmap__load("/nonexistent/perf-1.map", 0, names, &m), -ENOENT);
	cr_assert_null(m);
	unlink(link);
	unlink(path);
}

Test(perfmap, fifo_does_not_block)
{
	char path[] = "/tmp/smolder-perfmap-fifo-XXXXXX";
	struct perfmap *m = NULL;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	close(fd);
	unlink(path);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(perfmap__load(path, getuid(), names, &m), -EPERM);
	unlink(path);
}

Test(perfmap, refresh_reads_only_a_changed_file)
{
	char path[] = "/tmp/smolder-perfmap-XXXXXX";
	struct perfmap *m = NULL, *kept;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	close(fd);
	perfmap_write(path, "7f0000001000 100 first\n");
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, path, getuid(), names, 0, &m), 1, "no map yet: loaded");
	cr_assert_str_eq(mlookup(m, 0x7f0000001000ull), "first_[j]");
	kept = m;
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, path, getuid(), names, 0, &m), 0, "unchanged: not read");
	cr_assert_eq(m, kept);
	cr_assert_null(mlookup(m, 0x7f0000002000ull));
	/* the JIT compiled more (a new file, as JITs that rename do) */
	perfmap_write(path, "7f0000001000 100 first\n7f0000002000 40 second\n");
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, path, getuid(), names, 0, &m), 1);
	cr_assert_str_eq(mlookup(m, 0x7f0000002010ull), "second_[j]");
	/* appended in place: same inode, new size */
	{
		FILE *f = fopen(path, "a");

		cr_assert_not_null(f);
		fputs("7f0000003000 40 third\n", f);
		fclose(f);
	}
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, path, getuid(), names, 0, &m), 1);
	cr_assert_str_eq(mlookup(m, 0x7f0000003000ull), "third_[j]");
	/* gone (the JIT exited): the map is kept for samples still in flight */
	kept = m;
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(perfmap__refresh_at(AT_FDCWD, path, getuid(), names, 0, &m), -ENOENT);
	cr_assert_eq(m, kept);
	cr_assert_str_eq(mlookup(m, 0x7f0000001000ull), "first_[j]");
	perfmap__delete(m);
}
