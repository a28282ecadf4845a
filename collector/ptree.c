/* The process trees of a recording: members by birth, from /proc at start
 * and FORK records since. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/ptree.h"
#include "common/fileio.h"
#include "common/parse.h"
#include "common/u64map.h"

/* Pids are at most 2^22 (PID_MAX_LIMIT) on every kernel. */
#define PID_MAX 0x3fffffff
/* A thread's children file lists each child as "PID ": this bounds what one
 * thread's file may cost (a million children). */
#define CHILDREN_MAX_BYTES (8u << 20)

struct ptree {
	/* pid -> the time its process ended (0: alive) */
	struct u64map *members;
};

/* A growing list of pids: the walk's queue, and the (pid, ppid) pairs of
 * a /proc scan. */
struct pids {
	int *v;
	size_t n, cap;
};

static int pids_push(struct pids *p, int pid)
{
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		int *nv = realloc(p->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		p->v = nv;
		p->cap = nc;
	}
	p->v[p->n++] = pid;
	return 0;
}

static int valid_pid(uint64_t v)
{
	return v > 0 && v <= PID_MAX;
}

struct ptree *ptree__new(void)
{
	struct ptree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->members = u64map__new(64);
	if (!t->members) {
		free(t);
		return NULL;
	}
	return t;
}

void ptree__delete(struct ptree *t)
{
	if (!t)
		return;
	u64map__delete(t->members);
	free(t);
}

int ptree__add(struct ptree *t, int pid)
{
	if (pid <= 0)
		return -EINVAL;
	return u64map__put(t->members, (uint64_t)pid, 0);
}

static int alive(const struct ptree *t, int pid)
{
	uint64_t ended;

	return pid > 0 && u64map__get(t->members, (uint64_t)pid, &ended) && ended == 0;
}

int ptree__member(const struct ptree *t, int pid, uint64_t time)
{
	uint64_t ended;

	if (pid <= 0 || !u64map__get(t->members, (uint64_t)pid, &ended))
		return 0;
	return ended == 0 || time == 0 || time <= ended;
}

int ptree__fork(struct ptree *t, int pid, int ppid, uint64_t time)
{
	if (pid <= 0)
		return 0;
	if (pid == ppid)
		return ptree__member(t, pid, time);
	if (ptree__member(t, ppid, time))
		return u64map__put(t->members, (uint64_t)pid, 0) < 0 ? -ENOMEM : 1;
	u64map__del(t->members, (uint64_t)pid);
	return 0;
}

void ptree__exit(struct ptree *t, int pid, uint64_t time)
{
	uint64_t ended;

	if (time == 0)
		time = 1;
	if (pid <= 0 || !u64map__get(t->members, (uint64_t)pid, &ended))
		return;
	/* the earliest word wins: an exit inferred from /proc comes after the
	 * real one, whose record may still be on its way */
	if (ended == 0 || time < ended)
		(void)u64map__put(t->members, (uint64_t)pid, time);
}

void ptree__reap(struct ptree *t, uint64_t now, uint64_t delay)
{
	size_t pos = 0;
	uint64_t pid, ended;

	while (u64map__next(t->members, &pos, &pid, &ended)) {
		if (ended && ended + delay < now) {
			u64map__del(t->members, pid);
			/* backward-shift deletion may move a later entry into this slot */
			if (pos > 0)
				pos--;
		}
	}
}

int ptree__next_alive(const struct ptree *t, size_t *pos, int *pid)
{
	uint64_t k, ended;

	while (u64map__next(t->members, pos, &k, &ended))
		if (ended == 0) {
			*pid = (int)k;
			return 1;
		}
	return 0;
}

size_t ptree__count(const struct ptree *t)
{
	return u64map__count(t->members);
}

/* PROC/PID/NAME into buf, NUL-terminated; > 0 when it holds something. */
static ssize_t read_proc(const char *proc, int pid, const char *name, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%d/%s", proc, pid, name);
	return fileio__read_small(path, buf, size);
}

/* The Tgid of task pid (its process), or 0. */
static int read_tgid(const char *proc, int pid)
{
	char buf[1024];
	const char *line;
	uint64_t v;

	if (read_proc(proc, pid, "status", buf, sizeof(buf)) <= 0)
		return 0;
	line = strstr(buf, "\nTgid:");
	if (!line)
		return 0;
	line += strlen("\nTgid:");
	while (*line == ' ' || *line == '\t')
		line++;
	if (parse__u64n(line, strcspn(line, "\n"), 10, &v) < 0 || !valid_pid(v))
		return 0;
	return (int)v;
}

/* A member given as a thread id (/proc/TID exists for every thread) stands
 * for its process: the records name processes by their Tgid. */
static int resolve_threads(struct ptree *t, const char *proc)
{
	struct pids roots = { NULL, 0, 0 };
	size_t pos = 0, i;
	int pid, rc = 0;

	while (rc == 0 && ptree__next_alive(t, &pos, &pid))
		rc = pids_push(&roots, pid);
	for (i = 0; rc == 0 && i < roots.n; i++) {
		int tgid = read_tgid(proc, roots.v[i]);

		if (tgid && tgid != roots.v[i]) {
			u64map__del(t->members, (uint64_t)roots.v[i]);
			rc = ptree__add(t, tgid);
		}
	}
	free(roots.v);
	return rc;
}

/* Adds the pids listed in one children file ("PID PID ... ") and queues
 * them. Returns 0, -ENOENT (no such file: the kernel lacks them, or the
 * thread is gone) or -ENOMEM. */
static int add_children_file(struct ptree *t, const char *path, struct pids *queue, int *added)
{
	const char *p, *end;
	char *buf;
	size_t len;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	rc = fileio__read_upto(fd, 0, CHILDREN_MAX_BYTES, &buf, &len);
	close(fd);
	if (rc < 0)
		return rc == -ENOMEM ? rc : 0;
	for (p = buf, end = buf + len; rc == 0 && p < end;) {
		size_t n = strspn(p, "0123456789");
		uint64_t v;

		if (n && parse__u64n(p, n, 10, &v) == 0 && valid_pid(v) && !alive(t, (int)v)) {
			rc = ptree__add(t, (int)v);
			if (rc == 0)
				rc = pids_push(queue, (int)v);
			if (rc == 0)
				(*added)++;
		}
		p += n;
		p += strcspn(p, "0123456789");
	}
	free(buf);
	return rc;
}

/* The children of every thread of the queued processes, breadth first.
 * Returns 0, -ENOENT when the kernel has no children files, -ENOMEM. */
static int walk_children_files(struct ptree *t, const char *proc, int *added)
{
	struct pids queue = { NULL, 0, 0 };
	size_t pos = 0, i;
	int pid, rc = 0, seen_file = 0;

	while (rc == 0 && ptree__next_alive(t, &pos, &pid))
		rc = pids_push(&queue, pid);
	for (i = 0; rc == 0 && i < queue.n; i++) {
		char path[96];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "%s/%d/task", proc, queue.v[i]);
		d = opendir(path);
		if (!d)
			continue; /* gone */
		while (rc == 0 && (de = readdir(d)) != NULL) {
			char file[160];
			uint64_t tid;
			int frc;

			if (parse__u64(de->d_name, 10, &tid) < 0 || !valid_pid(tid))
				continue;
			snprintf(file, sizeof(file), "%s/%d/task/%d/children", proc, queue.v[i], (int)tid);
			frc = add_children_file(t, file, &queue, added);
			if (frc == 0)
				seen_file = 1;
			else if (frc == -ENOMEM)
				rc = frc;
		}
		closedir(d);
	}
	free(queue.v);
	if (rc == 0 && !seen_file)
		rc = -ENOENT;
	return rc;
}

/* The parent of process pid from /proc/PID/stat, or 0. The command name
 * may hold anything, ')' included: the fields resume after the last ')'. */
static int read_ppid(const char *proc, int pid)
{
	char buf[512];
	const char *p;
	uint64_t v;

	if (read_proc(proc, pid, "stat", buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	/* ") S PPID " */
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return 0;
	p += 4;
	if (parse__u64n(p, strcspn(p, " "), 10, &v) < 0 || !valid_pid(v))
		return 0;
	return (int)v;
}

/* Every process's parent from /proc/PID/stat; members' children are added
 * until a pass adds none (one pass per generation). */
static int walk_parents(struct ptree *t, const char *proc, int *added)
{
	struct pids pairs = { NULL, 0, 0 };
	struct dirent *de;
	size_t i;
	int rc = 0, more = 1;
	DIR *d;

	d = opendir(proc);
	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		uint64_t pid;
		int ppid;

		if (parse__u64(de->d_name, 10, &pid) < 0 || !valid_pid(pid))
			continue;
		ppid = read_ppid(proc, (int)pid);
		if (ppid) {
			rc = pids_push(&pairs, (int)pid);
			if (rc == 0)
				rc = pids_push(&pairs, ppid);
		}
	}
	closedir(d);
	while (rc == 0 && more) {
		more = 0;
		for (i = 0; rc == 0 && i + 1 < pairs.n; i += 2) {
			if (alive(t, pairs.v[i]) || !alive(t, pairs.v[i + 1]))
				continue;
			rc = ptree__add(t, pairs.v[i]);
			if (rc == 0) {
				(*added)++;
				more = 1;
			}
		}
	}
	free(pairs.v);
	return rc;
}

int ptree__add_descendants(struct ptree *t, const char *proc)
{
	int added = 0, rc;

	rc = resolve_threads(t, proc);
	if (rc < 0)
		return rc;
	rc = walk_children_files(t, proc, &added);
	if (rc == -ENOENT)
		rc = walk_parents(t, proc, &added);
	return rc < 0 ? rc : added;
}
