/* common/fileio: the read and write loops, on pipes (short transfers),
 * files and /dev/full. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"

static char path[64];

static void setup(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/smolder-fileio-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
}

static void teardown(void)
{
	unlink(path);
}

TestSuite(fileio, .init = setup, .fini = teardown);

static int file_with(const char *text)
{
	int fd = open(path, O_RDWR | O_TRUNC | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(fileio__write_all(fd, text, strlen(text)), 0);
	return fd;
}

Test(fileio, read_upto_reads_all_or_stops_at_max)
{
	int fd = file_with("0123456789");
	char *buf = NULL;
	size_t len = 99;

	cr_assert_eq(fileio__read_upto(fd, 0, 100, &buf, &len), 0);
	cr_assert_eq(len, 10);
	cr_assert_str_eq(buf, "0123456789", "NUL-terminated");
	free(buf);
	cr_assert_eq(fileio__read_upto(fd, 3, 4, &buf, &len), 0);
	cr_assert_eq(len, 4, "len == max: there may be more");
	cr_assert_str_eq(buf, "3456");
	free(buf);
	cr_assert_eq(fileio__read_upto(fd, 50, 4, &buf, &len), 0);
	cr_assert_eq(len, 0, "past the end");
	cr_assert_str_eq(buf, "");
	free(buf);
	close(fd);
}

/* More than the first allocation (64 KiB): the buffer grows. */
Test(fileio, read_upto_grows_past_its_first_guess)
{
	size_t n = 300000, len = 0, i;
	char *big = malloc(n), *buf = NULL;
	int fd = open(path, O_RDWR | O_TRUNC | O_CLOEXEC);

	cr_assert_not_null(big);
	for (i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	cr_assert_eq(fileio__write_all(fd, big, n), 0);
	cr_assert_eq(fileio__read_upto(fd, 0, 1u << 20, &buf, &len), 0);
	cr_assert_eq(len, n);
	cr_assert_eq(memcmp(buf, big, n), 0);
	free(buf);
	free(big);
	close(fd);
}

Test(fileio, pread_exact_and_a_short_file)
{
	int fd = file_with("abcdef");
	char b[8];

	cr_assert_eq(fileio__pread_exact(fd, b, 3, 2), 0);
	cr_assert_eq(memcmp(b, "cde", 3), 0);
	cr_assert_eq(fileio__pread_exact(fd, b, 8, 0), -ENODATA);
	cr_assert_eq(fileio__pwrite_all(fd, "XY", 2, 4), 0);
	cr_assert_eq(fileio__pread_exact(fd, b, 6, 0), 0);
	cr_assert_eq(memcmp(b, "abcdXY", 6), 0);
	close(fd);
}

/* A pipe gives short reads: read_into keeps reading until EOF. */
Test(fileio, read_into_through_a_pipe)
{
	int p[2];
	char b[32];
	ssize_t n;

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(write(p[1], "one ", 4), 4);
	cr_assert_eq(write(p[1], "two", 3), 3);
	close(p[1]);
	n = fileio__read_into(p[0], b, sizeof(b));
	cr_assert_eq(n, 7);
	cr_assert_eq(memcmp(b, "one two", 7), 0);
	close(p[0]);
}

Test(fileio, write_errors_are_returned)
{
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		cr_skip_test("no /dev/full here");
	cr_assert_eq(fileio__write_all(fd, "x", 1), -ENOSPC);
	close(fd);
}

/* A pipe whose reader does not read: the writer gives up at its deadline,
 * blocking fd or not, and never waits in write(). */
Test(fileio, write_until_gives_up_at_the_deadline)
{
	static char big[256 * 1024];
	int p[2], nonblock;

	for (nonblock = 0; nonblock < 2; nonblock++) {
		uint64_t t0;
		int rc;

		cr_assert_eq(pipe2(p, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0)), 0);
		t0 = clock__mono_ns();
		rc = fileio__write_until(p[1], big, sizeof(big), t0 + 200 * NS_PER_MS);
		cr_assert_eq(rc, -ETIMEDOUT, "nonblock %d: %d", nonblock, rc);
		cr_assert_geq(clock__mono_ns() - t0, 190 * NS_PER_MS);
		cr_assert_lt(clock__mono_ns() - t0, 2 * NS_PER_S);
		close(p[0]);
		close(p[1]);
	}
}

/* What a reader takes in time is all written; a reader that went away is
 * EPIPE (SIGPIPE ignored, as callers do). */
Test(fileio, write_until_through_a_pipe_read_in_time)
{
	static char big[256 * 1024], got[sizeof(big)];
	size_t have = 0;
	int p[2];
	pid_t pid;

	memset(big, 'x', sizeof(big));
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(p[0]);
		_exit(fileio__write_until(p[1], big, sizeof(big), clock__mono_ns() + 10 * NS_PER_S) ? 1 : 0);
	}
	close(p[1]);
	while (have < sizeof(got)) {
		ssize_t n = read(p[0], got + have, sizeof(got) - have);

		cr_assert_gt(n, 0);
		have += (size_t)n;
	}
	cr_assert_eq(memcmp(got, big, sizeof(big)), 0);
	close(p[0]);
	cr_assert_eq(waitpid(pid, &p[0], 0), pid);
	cr_assert(WIFEXITED(p[0]) && WEXITSTATUS(p[0]) == 0);

	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	close(p[0]);
	cr_assert_eq(fileio__write_until(p[1], "x", 1, 0), -EPIPE);
	close(p[1]);
}

Test(fileio, read_small)
{
	char b[4];
	int fd = file_with("hello\n");

	close(fd);
	cr_assert_eq(fileio__read_small(path, b, sizeof(b)), 3);
	cr_assert_str_eq(b, "hel");
	cr_assert_eq(fileio__read_small("/nonexistent/x", b, sizeof(b)), -ENOENT);
	cr_assert_eq(fileio__read_small(path, b, 0), -EINVAL);
}
