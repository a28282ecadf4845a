/* A child process whose credentials the test changes under the code that
 * reads them: it starts as the test (root) and, on command, becomes user
 * nobody without exec, as a root daemon dropping privileges does. For the
 * tests of credentials read at the time of use; needs root. */
#ifndef SMOLDER_TESTS_UNIT_CHILD_CREDS_H
#define SMOLDER_TESTS_UNIT_CHILD_CREDS_H
#include <criterion/criterion.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_NOBODY 65534

struct child {
	pid_t pid;
	int cmd, ack; /* pipes: commands to it, its answers */
};

/* Skips the test unless it runs as root. */
static inline void child_need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: the child changes its user");
}

/* 'd': become nobody (dumpable again, as after an exec). 'n': become not
 * dumpable (as after a setuid() without exec). 'q': exit. */
static inline void child_serve(int cmd, int ack)
{
	char op;
	gid_t g = CHILD_NOBODY;

	while (read(cmd, &op, 1) == 1) {
		char ok = 'y';

		if (op == 'q')
			_exit(0);
		if (op == 'd' && (setgroups(1, &g) != 0 || setresgid(g, g, g) != 0 ||
				  setresuid(CHILD_NOBODY, CHILD_NOBODY, CHILD_NOBODY) != 0 ||
				  prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0))
			ok = 'n';
		if (op == 'n' && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
			ok = 'n';
		if (write(ack, &ok, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static inline void child_start(struct child *c)
{
	int to[2], from[2];

	cr_assert_eq(pipe(to), 0);
	cr_assert_eq(pipe(from), 0);
	c->pid = fork();
	cr_assert_geq(c->pid, 0);
	if (c->pid == 0) {
		close(to[1]);
		close(from[0]);
		child_serve(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	c->cmd = to[1];
	c->ack = from[0];
}

/* Has the child do op and waits until it did. */
static inline void child_do(struct child *c, char op)
{
	char ok = 0;

	cr_assert_eq(write(c->cmd, &op, 1), 1);
	cr_assert_eq(read(c->ack, &ok, 1), 1);
	cr_assert_eq(ok, 'y', "the child could not do '%c'", op);
}

/* Ends the child; reaped unless keep_zombie. */
static inline void child_end(struct child *c, int keep_zombie)
{
	char op = 'q';

	if (write(c->cmd, &op, 1) != 1)
		kill(c->pid, SIGKILL);
	close(c->cmd);
	close(c->ack);
	if (keep_zombie) {
		siginfo_t si;

		/* exited, left for the caller to reap */
		cr_assert_eq(waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOWAIT), 0);
		return;
	}
	cr_assert_eq(waitpid(c->pid, NULL, 0), c->pid);
}

#endif
