/* export/out_path: what a path named for a command's result may be, and how
 * each kind is written. Cases that need another owner run as root only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "export/out_path.h"
#include "tmpdir.h"

#define OTHER_UID 65534

static char dir[64];

static void setup(void)
{
	tmpdir_make(dir, sizeof(dir), "outpath");
	umask(022);
}

static void teardown(void)
{
	tmpdir_remove(dir);
}

TestSuite(out_path, .init = setup, .fini = teardown);

static const char *at(const char *name)
{
	static char buf[4][160];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static char *slurp(const char *path)
{
	static char buf[4096];

	cr_assert_geq(fileio__read_small(path, buf, sizeof(buf)), 0, "read %s", path);
	return buf;
}

/* write with no deadline; returns rc, *why */
static int put(const char *path, const char *text, enum out_path_refusal *why)
{
	return out_path__write(path, text, strlen(text), 0600, 0, why);
}

static void expect_refused(const char *path, enum out_path_refusal want)
{
	enum out_path_refusal why = OUT_PATH_OK;

	cr_assert_eq(out_path__check(path, &why), -EPERM, "check %s", path);
	cr_assert_eq(why, want, "check %s: why %d", path, why);
	why = OUT_PATH_OK;
	cr_assert_eq(put(path, "x", &why), -EPERM, "write %s", path);
	cr_assert_eq(why, want, "write %s: why %d", path, why);
	cr_assert_gt(strlen(out_path__strerror(-EPERM, why)), 20);
}

Test(out_path, standard_output_names)
{
	cr_assert(out_path__is_stdout("-"));
	cr_assert(out_path__is_stdout("/dev/stdout"));
	cr_assert_not(out_path__is_stdout("./-"));
	cr_assert_not(out_path__is_stdout("/dev/stderr"));
}

/* Nothing there, or a regular file (another name for it included): a new
 * file of mode 0600 replaces the name; no existing inode is written. */
Test(out_path, regular_files_are_replaced_never_written)
{
	enum out_path_refusal why;
	struct stat st;

	cr_assert_eq(out_path__check(at("new.json"), &why), 0);
	cr_assert_eq(put(at("new.json"), "one", &why), 0);
	cr_assert_str_eq(slurp(at("new.json")), "one");
	cr_assert_eq(stat(at("new.json"), &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);

	cr_assert_eq(link(at("new.json"), at("other-name")), 0);
	cr_assert_eq(put(at("new.json"), "two", &why), 0);
	cr_assert_str_eq(slurp(at("new.json")), "two");
	cr_assert_str_eq(slurp(at("other-name")), "one", "an existing inode was written into");
}

/* The link is neither followed nor replaced: what it points to is
 * untouched, and the user hears why. */
Test(out_path, symlinks_are_refused)
{
	cr_assert_eq(out_path__write(at("victim"), "victim", 6, 0600, 0, &(enum out_path_refusal){ 0 }), 0);
	cr_assert_eq(symlink(at("victim"), at("link")), 0);
	expect_refused(at("link"), OUT_PATH_SYMLINK);
	cr_assert_str_eq(slurp(at("victim")), "victim");
	cr_assert_eq(symlink("/nonexistent/x", at("dangling")), 0);
	expect_refused(at("dangling"), OUT_PATH_SYMLINK);
	cr_assert_eq(access("/nonexistent/x", F_OK), -1);
}

Test(out_path, directories_are_refused)
{
	cr_assert_eq(mkdir(at("d"), 0700), 0);
	expect_refused(at("d"), OUT_PATH_DIRECTORY);
	expect_refused(at("d/"), OUT_PATH_DIRECTORY);
	expect_refused(dir, OUT_PATH_DIRECTORY);
}

Test(out_path, sockets_are_refused)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(s, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at("sock"));
	cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	expect_refused(at("sock"), OUT_PATH_OTHER_TYPE);
	close(s);
}

struct drain {
	const char *path;
	size_t got;
};

static void *drain_fifo(void *arg)
{
	struct drain *d = arg;
	char buf[256];
	int fd = open(d->path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		d->got += (size_t)n;
	close(fd);
	return NULL;
}

static void *drain_later(void *arg)
{
	usleep(100000);
	return drain_fifo(arg);
}

/* The caller's FIFO is written in place, and stays a FIFO. Its reader is
 * waited for, as by any writer of a FIFO, but only until the deadline. */
Test(out_path, own_fifos_are_written_in_place)
{
	struct drain d = { at("fifo"), 0 };
	enum out_path_refusal why;
	struct stat st;
	pthread_t th;
	uint64_t t0;

	cr_assert_eq(mkfifo(d.path, 0600), 0);
	cr_assert_eq(out_path__check(d.path, &why), 0, "a reader is not needed yet");
	t0 = clock__mono_ns();
	cr_assert_eq(out_path__write(d.path, "x", 1, 0600, t0 + 200 * NS_PER_MS, &why), -ENXIO);
	cr_assert_geq(clock__mono_ns() - t0, 150 * NS_PER_MS);
	cr_assert_lt(clock__mono_ns() - t0, NS_PER_S);

	cr_assert_eq(pthread_create(&th, NULL, drain_later, &d), 0);
	cr_assert_eq(put(d.path, "0123456789", &why), 0);
	pthread_join(th, NULL);
	cr_assert_eq(d.got, 10);
	cr_assert_eq(lstat(d.path, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
}

static int report_to(void *ctx, FILE *out)
{
	return fputs(ctx, out) < 0 ? -EIO : 0;
}

Test(out_path, streams_go_to_files_and_fifos)
{
	struct drain d = { at("fifo"), 0 };
	enum out_path_refusal why;
	pthread_t th;

	cr_assert_eq(out_path__write_with(at("r.txt"), 0600, report_to, "report\n", 0, &why), 0);
	cr_assert_str_eq(slurp(at("r.txt")), "report\n");
	cr_assert_eq(mkfifo(d.path, 0600), 0);
	cr_assert_eq(pthread_create(&th, NULL, drain_later, &d), 0);
	cr_assert_eq(out_path__write_with(d.path, 0600, report_to, "report\n", 0, &why), 0);
	pthread_join(th, NULL);
	cr_assert_eq(d.got, 7);
}

/* A reader that holds the FIFO open and never reads: the write ends at its
 * deadline. */
Test(out_path, a_fifo_not_read_ends_at_the_deadline)
{
	static char big[256 * 1024];
	enum out_path_refusal why;
	int rd;
	uint64_t t0;

	cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
	rd = open(at("fifo"), O_RDWR | O_CLOEXEC); /* a reader, not reading */
	cr_assert_geq(rd, 0);
	t0 = clock__mono_ns();
	cr_assert_eq(out_path__write(at("fifo"), big, sizeof(big), 0600, t0 + 200 * NS_PER_MS, &why),
		     -ETIMEDOUT);
	cr_assert_lt(clock__mono_ns() - t0, 2 * NS_PER_S);
	close(rd);
}

Test(out_path, own_devices_are_written_in_place)
{
	enum out_path_refusal why;
	struct stat st;

	if (geteuid() != 0)
		cr_skip_test("/dev/null is root's: a user's own devices are not at hand");
	cr_assert_eq(put("/dev/null", "hello", &why), 0);
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode));
}

/* Another user's FIFO or device, or one with a second name, is never
 * opened: its reader gets nothing and the call does not block. */
Test(out_path, other_users_fifos_and_devices_are_refused)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to give files to another user");
	cr_assert_eq(mkfifo(at("theirs"), 0666), 0);
	cr_assert_eq(chown(at("theirs"), OTHER_UID, OTHER_UID), 0);
	expect_refused(at("theirs"), OUT_PATH_NOT_YOURS);

	cr_assert_eq(mknod(at("dev"), S_IFCHR | 0666, makedev(1, 3)), 0);
	cr_assert_eq(chown(at("dev"), OTHER_UID, OTHER_UID), 0);
	expect_refused(at("dev"), OUT_PATH_NOT_YOURS);

	cr_assert_eq(mknod(at("rootdev"), S_IFCHR | 0666, makedev(1, 3)), 0);
	cr_assert_eq(link(at("rootdev"), at("devlink")), 0);
	expect_refused(at("devlink"), OUT_PATH_LINKED);
	expect_refused(at("rootdev"), OUT_PATH_LINKED);

	cr_assert_eq(mkfifo(at("fifo2"), 0600), 0);
	cr_assert_eq(link(at("fifo2"), at("fifolink")), 0);
	expect_refused(at("fifolink"), OUT_PATH_LINKED);
}

Test(out_path, errors_are_explained)
{
	cr_assert_str_eq(out_path__strerror(-ENOENT, OUT_PATH_OK), strerror(ENOENT));
	cr_assert_str_eq(out_path__strerror(-EPERM, OUT_PATH_OK), strerror(EPERM));
	cr_assert(strstr(out_path__strerror(-ENXIO, OUT_PATH_OK), "for reading"));
	cr_assert(strstr(out_path__strerror(-ETIMEDOUT, OUT_PATH_OK), "deadline"));
	cr_assert(strstr(out_path__strerror(-EPERM, OUT_PATH_SYMLINK), "symbolic link"));
	cr_assert_eq(out_path__write(at("nope/x"), "x", 1, 0600, 0, &(enum out_path_refusal){ 0 }), -ENOENT);
	cr_assert_eq(out_path__check(at("nope/x"), &(enum out_path_refusal){ 0 }), -ENOENT);
}
