/* Dump files named on a command line, and those of directories. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export/dump_paths.h"

int dump_paths__is_dump_name(const char *name)
{
	size_t len = strlen(name);

	if (name[0] == '.')
		return 0;
	return (len > 5 && strcmp(name + len - 5, ".json") == 0) ||
	       (len > 8 && strcmp(name + len - 8, ".json.gz") == 0);
}

int dump_paths__add(struct dump_paths *p, const char *path)
{
	if (p->n >= DUMP_PATHS_MAX)
		return -E2BIG;
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		char **nv = realloc(p->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		p->v = nv;
		p->cap = nc;
	}
	p->v[p->n] = strdup(path);
	if (!p->v[p->n])
		return -ENOMEM;
	p->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int dump_paths__add_dir(struct dump_paths *p, const char *dir)
{
	size_t first = p->n;
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return -errno;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;

		if (!dump_paths__is_dump_name(de->d_name))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path)) {
			rc = -ENAMETOOLONG;
			break;
		}
		/* lstat: a symlink in a spool is not ours to follow */
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		rc = dump_paths__add(p, path);
	}
	closedir(d);
	if (p->n - first > 1)
		qsort(p->v + first, p->n - first, sizeof(*p->v), cmp_str);
	return rc;
}

int dump_paths__add_arg(struct dump_paths *p, const char *arg)
{
	struct stat st;

	if (stat(arg, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? dump_paths__add_dir(p, arg) : dump_paths__add(p, arg);
}

void dump_paths__free(struct dump_paths *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}
