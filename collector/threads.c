/* Every thread of the target processes, from /proc/PID/task. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

#include "collector/threads.h"
#include "common/fileio.h"
#include "common/parse.h"

struct tids {
	int *v;
	size_t n, cap;
};

static int append(struct tids *t, int tid)
{
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		int *nv = realloc(t->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		t->v = nv;
		t->cap = nc;
	}
	t->v[t->n++] = tid;
	return 0;
}

/* 1 when thread tid of pid is alive: its state in /proc/PID/task/TID/stat
 * (the field after the command name, which may hold anything but ends at the
 * last ')') is not Z (zombie) or X (dead); 0 otherwise or unreadable. */
static int task_alive(int pid, int tid)
{
	char path[96], buf[512];
	const char *close_paren;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	n = fileio__read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	close_paren = strrchr(buf, ')');
	if (!close_paren || close_paren[1] != ' ' || !close_paren[2])
		return 0;
	return close_paren[2] != 'Z' && close_paren[2] != 'X';
}

static int list_one(struct tids *t, int pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int rc = 0, found = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return append(t, pid); /* a child created stopped has one thread anyway */
	while (rc == 0 && (de = readdir(d)) != NULL) {
		uint64_t v;

		if (parse__u64(de->d_name, 10, &v) < 0 || v == 0 || v > 0x3fffffff)
			continue;
		/* a zombie (a main thread that called pthread_exit) takes no
		 * events: perf_event_open says ESRCH */
		if (!task_alive(pid, (int)v))
			continue;
		rc = append(t, (int)v);
		found++;
	}
	closedir(d);
	/* all gone: the pid stands for itself, and opening tells why */
	if (rc == 0 && !found)
		rc = append(t, pid);
	return rc;
}

int threads__list(const int *pids, size_t npids, int **out, size_t *n)
{
	struct tids t = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < npids; i++) {
		if (list_one(&t, pids[i]) < 0) {
			free(t.v);
			return -ENOMEM;
		}
	}
	*out = t.v;
	*n = t.n;
	return 0;
}

int threads__live_other(int pid, int not_tid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		uint64_t v;

		if (parse__u64(de->d_name, 10, &v) < 0 || v == 0 || v > 0x3fffffff ||
		    (int)v == not_tid)
			continue;
		if (task_alive(pid, (int)v))
			found = (int)v;
	}
	closedir(d);
	return found;
}
