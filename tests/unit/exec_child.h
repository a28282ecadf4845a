/* A child of the test's own image that execs /bin/sleep when told to: a
 * process whose image changes under a reader, on cue. Header-only, for the
 * tests that need one. */
#ifndef SMOLDER_TESTS_EXEC_CHILD_H
#define SMOLDER_TESTS_EXEC_CHILD_H
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Forks a child running as uid (0: as we are) that execs /bin/sleep once a
 * byte is written to *tell, and exits when *tell is closed first. Returns
 * once the child runs as uid. */
static inline pid_t exec_child__start(uid_t uid, int *tell)
{
	int go[2], ready[2];
	pid_t pid;
	char c;

	cr_assert_eq(pipe(go), 0);
	cr_assert_eq(pipe(ready), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(go[1]);
		close(ready[0]);
		if ((uid && setuid(uid) != 0) || write(ready[1], "r", 1) != 1)
			_exit(1);
		close(ready[1]);
		if (read(go[0], &c, 1) == 1)
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	cr_assert_eq(read(ready[0], &c, 1), 1, "the child did not start");
	close(ready[0]);
	*tell = go[1];
	return pid;
}

/* Tells the child to exec, and waits until it has. */
static inline void exec_child__exec(pid_t pid, int tell)
{
	char path[64], exe[256];
	ssize_t n;
	int i;

	cr_assert_eq(write(tell, "x", 1), 1);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	for (i = 0; i < 2000; i++) {
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n > 0 && (exe[n] = '\0', strstr(exe, "sleep")))
			return;
		usleep(1000);
	}
	cr_assert_fail("the child never exec'd");
}

#endif
