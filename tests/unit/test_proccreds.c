/* common/proccreds: a process's ids from its status, at the time of use. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/proccreds.h"
#include "tests/unit/child_creds.h"

static const char status[] =
	"Name:\tbash\n"
	"Umask:\t0022\n"
	"State:\tS (sleeping)\n"
	"Tgid:\t1234\n"
	"Pid:\t1234\n"
	"PPid:\t1\n"
	"TracerPid:\t0\n"
	"Uid:\t1000\t0\t0\t0\n"
	"Gid:\t100\t101\t102\t103\n"
	"FDSize:\t64\n";

Test(proccreds, parses_the_four_ids)
{
	struct proccreds c;

	cr_assert_eq(proccreds__parse(status, strlen(status), &c), 0);
	cr_assert_eq(c.ruid, 1000);
	cr_assert_eq(c.euid, 0);
	cr_assert_eq(c.suid, 0);
	cr_assert_eq(c.fsuid, 0);
	cr_assert_eq(c.rgid, 100);
	cr_assert_eq(c.egid, 101);
	cr_assert_eq(c.sgid, 102);
	cr_assert_eq(c.fsgid, 103);
	/* a setuid-root program a user started is root's */
	cr_assert_eq(proccreds__user(&c), 0);
	cr_assert(proccreds__is_root(&c));
}

/* What cannot be trusted is refused, never read as root (0). */
Test(proccreds, damaged_text_is_refused)
{
	static const char *const bad[] = {
		"Name:\tx\nUid:\t1000\t1000\t1000\n",           /* three ids */
		"Name:\tx\nUid:\t1000\t1000\t1000\t1000\n",     /* no Gid: */
		"Uid:\t1000\t1000\t1000\t10",                    /* cut: no end of line */
		"Uid:\t-1\t0\t0\t0\nGid:\t0\t0\t0\t0\n",
		"Uid:\t1000\t1000\t1000\t1000 x\nGid:\t0\t0\t0\t0\n",
		"Uid:\t99999999999\t0\t0\t0\nGid:\t0\t0\t0\t0\n",
		"Uid:\t\t\t\t\nGid:\t0\t0\t0\t0\n",
		"",
	};
	struct proccreds c;
	size_t i;

	memset(&c, 0x5a, sizeof(c));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(proccreds__parse(bad[i], strlen(bad[i]), &c), -EINVAL, "%s", bad[i]);
	cr_assert_eq(c.euid, 0x5a5a5a5a, "untouched on failure");
}

/* The kernel escapes the name: a name cannot be a line of its own. Only
 * the first Uid: line counts. */
Test(proccreds, the_name_cannot_forge_a_line)
{
	static const char forged[] =
		"Name:\tx\\nUid:\\t0\\t0\\t0\\t0\n"
		"Uid:\t1000\t1000\t1000\t1000\n"
		"Gid:\t1000\t1000\t1000\t1000\n"
		"Uid:\t0\t0\t0\t0\n";
	struct proccreds c;

	cr_assert_eq(proccreds__parse(forged, strlen(forged), &c), 0);
	cr_assert_eq(c.euid, 1000);
	cr_assert_not(proccreds__is_root(&c));
}

Test(proccreds, reads_its_own)
{
	struct proccreds c;
	int fd = proccreds__open(getpid());

	cr_assert_geq(fd, 0);
	cr_assert_eq(proccreds__read(fd, &c), 0);
	cr_assert_eq(c.euid, geteuid());
	cr_assert_eq(c.ruid, getuid());
	cr_assert_eq(c.egid, getegid());
	close(fd);
	cr_assert_eq(proccreds__read_pid(getpid(), &c), 0);
	cr_assert_eq(c.euid, geteuid());
	cr_assert_eq(proccreds__read(-1, &c), -EBADF);
	cr_assert_eq(proccreds__open(0), -EINVAL);
}

/* Read again after a setuid() without exec: the new user, through the fd
 * opened before; once reaped, the read fails, where the owner of /proc/PID
 * (what fstat of that fd says) becomes root. */
Test(proccreds, read_at_the_time_of_use_bound_to_the_process)
{
	struct child ch;
	struct proccreds c;
	struct stat st;
	int fd;

	child_need_root();
	child_start(&ch);
	fd = proccreds__open(ch.pid);
	cr_assert_geq(fd, 0);
	cr_assert_eq(proccreds__read(fd, &c), 0);
	cr_assert(proccreds__is_root(&c));
	child_do(&ch, 'd');
	cr_assert_eq(proccreds__read(fd, &c), 0);
	cr_assert_eq(proccreds__user(&c), CHILD_NOBODY);
	cr_assert_eq(c.ruid, CHILD_NOBODY);
	cr_assert_not(proccreds__is_root(&c));
	/* a zombie still says who it was */
	child_end(&ch, 1);
	cr_assert_eq(proccreds__read(fd, &c), 0);
	cr_assert_eq(proccreds__user(&c), CHILD_NOBODY);
	cr_assert_eq(waitpid(ch.pid, NULL, 0), ch.pid);
	/* reaped: nothing, not root */
	memset(&c, 0, sizeof(c));
	c.euid = 4242;
	cr_assert_lt(proccreds__read(fd, &c), 0);
	cr_assert_eq(c.euid, 4242);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_uid, 0, "the reason status is read: a reaped process's /proc/PID is root's");
	close(fd);
}

/* The cheap read for labels: the owner of /proc/PID by path is the
 * effective uid, also once the process changed it without exec; a
 * reaped process is no owner at all. */
Test(proccreds, owner_by_path_for_labels)
{
	struct child ch;
	uid_t uid = 4242;
	gid_t gid = 4242;
	pid_t pid;

	cr_assert_eq(proccreds__owner_pid(getpid(), &uid, &gid), 0);
	cr_assert_eq(uid, geteuid());
	cr_assert_eq(gid, getegid());
	child_need_root();
	child_start(&ch);
	child_do(&ch, 'd');
	cr_assert_eq(proccreds__owner_pid(ch.pid, &uid, &gid), 0);
	cr_assert_eq(uid, CHILD_NOBODY);
	cr_assert_eq(gid, CHILD_NOBODY);
	/* not dumpable: its files in /proc are root's, its directory not */
	child_do(&ch, 'n');
	cr_assert_eq(proccreds__owner_pid(ch.pid, &uid, &gid), 0);
	cr_assert_eq(uid, CHILD_NOBODY);
	pid = ch.pid;
	child_end(&ch, 0);
	uid = 4242;
	cr_assert_lt(proccreds__owner_pid(pid, &uid, &gid), 0);
	cr_assert_eq(uid, 4242);
}
