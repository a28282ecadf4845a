/* Whose a process is and what its samples are filed under: its user, read
 * from the kernel when needed, and the system service it runs in. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "collector/proctable.h"
#include "collector/proctable_state.h"
#include "collector/service_unit.h"
#include "collector/usernames.h"
#include "common/clock.h"
#include "common/proccreds.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"

/* Room for "NAME@USER": the user part is never cut. */
#define QUALIFIED_MAX 512

uint32_t proctable__read_service(struct proctable *pt, int pid)
{
	char buf[4096];
	const char *name;
	ssize_t n;
	size_t len;

	n = proctable__read_proc_file(pid, "cgroup", buf, sizeof(buf));
	if (n <= 0 || service_unit__parse(buf, (size_t)n, &name, &len) < 0)
		return 0;
	return proctable__intern(pt, name, len);
}

uint32_t proctable__service(struct proctable *pt, struct process *p)
{
	if (p->service_stale) {
		uint32_t svc = proctable__read_service(pt, p->pid);

		p->service_stale = 0;
		/* a service manager moves a process into its unit's cgroup
		 * between fork and exec; gone (unreadable): the one it had */
		if (svc)
			p->service = svc;
	}
	return p->service;
}

void proctable__identity_exec(struct process *p)
{

	p->creds_ns = 0;
	p->creds_known = 0;
}

/* The label of uid: 0 for root, else its name interned. */
static uint32_t user_label(struct proctable *pt, uid_t uid, uint64_t now_ns)
{
	char name[USERNAMES_NAME_MAX + 1];
	size_t len;
	uint32_t id;

	if (uid == 0)
		return 0;
	len = usernames__name(pt->users, uid, now_ns, name, sizeof(name));
	id = proctable__intern(pt, name, len);
	/* without room for its name, still not root's */
	return id ? id : pt->unknown_user;
}

/* Reads whose p is again: its effective uid, as the owner of /proc/PID
 * (common/proccreds.h says why that is enough for labels). When the read
 * fails (the process is gone), what was read of this image stands; with
 * nothing read, its user is unknown: never root's, never its parent's. A
 * process whose EXIT was seen is still read: the kernel sends one at the
 * exec of a setuid binary, and the process lives on (a pid reused within
 * the table's grace period would lend its user to a few late samples:
 * labels only rest on this, no file does). */
static void read_creds(struct proctable *pt, struct process *p, uint64_t now_ns)
{
	uid_t uid;
	gid_t gid;

	p->creds_ns = now_ns ? now_ns : 1;
	if (proccreds__owner_pid(p->pid, &uid, &gid) == 0) {
		p->creds_known = 1;
		p->user = user_label(pt, uid, now_ns);
		return;
	}
	if (!p->creds_known)
		p->user = pt->unknown_user;
}

uint32_t proctable__user(struct proctable *pt, struct process *p)
{
	uint64_t now = clock__mono_ns();

	if (!p->creds_ns || now - p->creds_ns >= PROCTABLE_CREDS_TTL_NS)
		read_creds(pt, p, now);
	return p->user;
}

uint32_t proctable__qualify(struct proctable *pt, struct process *p, uint32_t name)
{
	char buf[QUALIFIED_MAX];
	const char *n, *u;
	size_t nlen, ulen;
	uint32_t id;

	if (!p->user)
		return name;
	if (p->qual && p->qual_from == name && p->qual_user == p->user)
		return p->qual;
	n = name ? strtab__str(pt->names, name) : NULL;
	u = strtab__str(pt->names, p->user);
	n = n ? n : "";
	u = u ? u : PROCTABLE_USER_UNKNOWN;
	ulen = strlen(u);
	if (ulen > USERNAMES_NAME_MAX)
		ulen = USERNAMES_NAME_MAX;
	nlen = strlen(n);
	if (nlen > sizeof(buf) - ulen - 2)
		nlen = sizeof(buf) - ulen - 2;
	memcpy(buf, n, nlen);
	buf[nlen] = '@';
	memcpy(buf + nlen + 1, u, ulen);
	id = proctable__intern(pt, buf, nlen + 1 + ulen);
	/* without room for the name, the user's processes are one service
	 * named after the user, never one of root's names */
	if (!id)
		return p->user;
	p->qual_from = name;
	p->qual_user = p->user;
	p->qual = id;
	return id;
}

int proctable__remap_identity(struct process *p, struct strtab_remap *r)
{
	int err = strtab_remap__id(r, &p->user);

	if (!err)
		err = strtab_remap__id(r, &p->qual_from);
	if (!err)
		err = strtab_remap__id(r, &p->qual_user);
	if (!err)
		err = strtab_remap__id(r, &p->qual);
	return err;
}
