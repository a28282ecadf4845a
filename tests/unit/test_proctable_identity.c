/* collector/proctable_identity.c: whose a process is, read from the kernel
 * when it is used (first use, after every exec, when old), never copied
 * from its parent; and the names its samples are filed under. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector/binary.h"
#include "collector/proctable.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "tests/unit/child_creds.h"

static struct strtab *names, *first_names;
static struct binaries *bs;
static struct proctable *pt;

static void setup(void)
{
	names = first_names = strtab__new();
	bs = binaries__new(names);
	pt = proctable__new(names, bs);
	cr_assert_not_null(pt);
}

static void teardown(void)
{
	proctable__delete(pt);
	binaries__delete(bs);
	if (names != first_names)
		strtab__delete(names);
	strtab__delete(first_names);
}

TestSuite(proctable_identity, .init = setup, .fini = teardown);

/* The user label of p: "" for root's. */
static const char *user_of(struct process *p)
{
	uint32_t id = proctable__user(pt, p);

	return id ? strtab__str(names, id) : "";
}

static const char *qualified(struct process *p, const char *name)
{
	uint32_t id;

	cr_assert_eq(strtab__intern_cstr(names, name, &id), 0);
	(void)proctable__user(pt, p);
	return strtab__str(names, proctable__qualify(pt, p, id));
}

/* Root forks a child that becomes a user before the agent reads anything
 * of it: the child is the user's, not its parent's. */
Test(proctable_identity, a_child_is_not_its_parents)
{
	struct child ch;
	struct process *parent, *c;

	child_need_root();
	child_start(&ch);
	parent = proctable__get(pt, getpid());
	cr_assert_str_eq(user_of(parent), "", "the test runs as root");
	child_do(&ch, 'd');
	cr_assert_eq(proctable__fork(pt, ch.pid, getpid(), ch.pid, getpid()), 0);
	c = proctable__find(pt, ch.pid);
	cr_assert_not_null(c);
	cr_assert_str_eq(user_of(c), "nobody");
	cr_assert_str_eq(qualified(c, "postgresql"), "postgresql@nobody");
	cr_assert_str_eq(qualified(parent, "postgresql"), "postgresql", "root's names stay");
	child_end(&ch, 0);
}

/* Read once, kept for a while; read again after an exec record, and when
 * older than PROCTABLE_CREDS_TTL_NS (a setuid() without exec). */
Test(proctable_identity, read_again_after_exec_and_when_old)
{
	struct timespec ts = { 1, 100000000 };
	struct child ch;
	struct process *p;

	child_need_root();
	child_start(&ch);
	cr_assert_eq(proctable__fork(pt, ch.pid, getpid(), ch.pid, getpid()), 0);
	p = proctable__find(pt, ch.pid);
	cr_assert_str_eq(user_of(p), "");
	child_do(&ch, 'd');
	cr_assert_str_eq(user_of(p), "", "kept until it is old or the process execs");
	cr_assert_eq(proctable__comm(pt, ch.pid, ch.pid, "newimage", 1), 0);
	cr_assert_str_eq(user_of(p), "nobody", "read again after the exec");
	child_end(&ch, 0);

	child_start(&ch);
	cr_assert_eq(proctable__fork(pt, ch.pid, getpid(), ch.pid, getpid()), 0);
	p = proctable__find(pt, ch.pid);
	cr_assert_str_eq(user_of(p), "");
	child_do(&ch, 'd');
	nanosleep(&ts, NULL);
	cr_assert_str_eq(user_of(p), "nobody", "read again once old");
	child_end(&ch, 0);
}

/* A process gone before its first read: its user is unknown, not root's,
 * and its names are qualified as a user's; once read, a process that is
 * gone keeps what was read. */
Test(proctable_identity, unknown_is_not_root)
{
	struct child ch;
	struct process *p, *c;
	const int gone = 0x3ffffff5; /* no such process */

	cr_assert_eq(proctable__comm(pt, gone, gone, "ghost", 1), 0);
	p = proctable__find(pt, gone);
	cr_assert_str_eq(user_of(p), PROCTABLE_USER_UNKNOWN);
	cr_assert_str_eq(qualified(p, "ghost"), "ghost@" PROCTABLE_USER_UNKNOWN);
	/* a child of root, never read, gone: unknown too */
	cr_assert_eq(proctable__fork(pt, gone - 1, getpid(), gone - 1, getpid()), 0);
	c = proctable__find(pt, gone - 1);
	cr_assert_str_eq(user_of(c), PROCTABLE_USER_UNKNOWN);

	child_need_root();
	child_start(&ch);
	child_do(&ch, 'd');
	cr_assert_eq(proctable__fork(pt, ch.pid, getpid(), ch.pid, getpid()), 0);
	p = proctable__find(pt, ch.pid);
	cr_assert_str_eq(user_of(p), "nobody");
	child_end(&ch, 0);
	proctable__exit(pt, ch.pid, ch.pid, 1);
	cr_assert_str_eq(user_of(p), "nobody", "what was read of it stands");
}

/* The label and the qualified name are remapped with the names table. */
Test(proctable_identity, remapped)
{
	struct strtab *to = strtab__new();
	struct strtab_remap r;
	struct child ch;
	struct process *p;
	uint32_t comm;

	child_need_root();
	child_start(&ch);
	child_do(&ch, 'd');
	cr_assert_eq(proctable__fork(pt, ch.pid, getpid(), ch.pid, getpid()), 0);
	p = proctable__find(pt, ch.pid);
	cr_assert_eq(proctable__comm(pt, ch.pid, ch.pid, "worker", 0), 0);
	cr_assert_str_eq(qualified(p, "worker"), "worker@nobody");
	cr_assert_eq(strtab_remap__init(&r, names, to), 0);
	cr_assert_eq(proctable__remap_names(pt, &r), 0);
	strtab_remap__commit(&r);
	cr_assert_eq(proctable__remap_names(pt, &r), 0);
	cr_assert_eq(r.missed, 0);
	strtab_remap__fini(&r);
	names = to;
	comm = process__comm(p);
	cr_assert_str_eq(strtab__str(names, proctable__user(pt, p)), "nobody");
	cr_assert_str_eq(strtab__str(names, proctable__qualify(pt, p, comm)), "worker@nobody");
	child_end(&ch, 0);
}
