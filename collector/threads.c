/* Every thread of the target processes, from /proc/PID/task. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "collector/threads.h"
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

static int list_one(struct tids *t, int pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return append(t, pid); /* a child created stopped has one thread anyway */
	while (rc == 0 && (de = readdir(d)) != NULL) {
		uint64_t v;

		if (parse__u64(de->d_name, 10, &v) < 0 || v == 0 || v > 0x3fffffff)
			continue;
		rc = append(t, (int)v);
	}
	closedir(d);
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
