/* uid -> login name, from the passwd file, kept. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collector/usernames.h"
#include "common/parse.h"
#include "common/u64map.h"

#define DEFAULT_PATH "/etc/passwd"

struct usernames {
	char *path;
	struct u64map *by_uid; /* uid -> index + 1 into names; 0: not in the file */
	char (*names)[USERNAMES_NAME_MAX + 1];
	size_t n;
	struct stat seen;      /* the file as last read */
	int seen_ok;
	uint64_t checked_ns;   /* when it was last looked at */
};

struct usernames *usernames__new(const char *path)
{
	struct usernames *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->path = strdup(path ? path : DEFAULT_PATH);
	u->by_uid = u64map__new(64);
	if (!u->path || !u->by_uid) {
		usernames__delete(u);
		return NULL;
	}
	return u;
}

void usernames__delete(struct usernames *u)
{
	if (!u)
		return;
	u64map__delete(u->by_uid);
	free(u->names);
	free(u->path);
	free(u);
}

static void forget_all(struct usernames *u)
{
	u64map__clear(u->by_uid);
	u->n = 0;
}

/* A name labels may carry as it is. */
static int plain_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > USERNAMES_NAME_MAX || s[0] == '-')
		return 0;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-' || (c == '$' && i == len - 1)))
			return 0;
	}
	return 1;
}

/* The name of uid in line "name:password:uid:...", if it is that uid's. */
static int line_names(const char *line, uid_t uid, const char **name, size_t *len)
{
	const char *c1 = strchr(line, ':'), *c2, *c3;
	uint64_t v;

	if (!c1 || !(c2 = strchr(c1 + 1, ':')) || !(c3 = strchr(c2 + 1, ':')))
		return 0;
	if (parse__u64n(c2 + 1, (size_t)(c3 - c2 - 1), 10, &v) < 0 || v != (uint64_t)uid)
		return 0;
	*name = line;
	*len = (size_t)(c1 - line);
	return 1;
}

/* Looks uid up in the file: the index + 1 of its name, kept, or 0. */
static uint64_t scan(struct usernames *u, uid_t uid)
{
	char line[1024];
	size_t nlines = 0;
	uint64_t found = 0;
	FILE *f = fopen(u->path, "re");

	if (!f)
		return 0;
	while (nlines++ < USERNAMES_MAX_LINES && fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);
		const char *name;
		size_t len;

		if (l && line[l - 1] == '\n') {
			line[l - 1] = '\0';
		} else if (!feof(f)) {
			/* longer than any account line: skipped to its end */
			int ch;

			while ((ch = getc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		if (!line_names(line, uid, &name, &len))
			continue;
		/* the first line of a uid wins, even when its name is not plain */
		if (!plain_name(name, len) || u->n >= USERNAMES_MAX_KEPT)
			break;
		if (!u->names && !(u->names = calloc(USERNAMES_MAX_KEPT, sizeof(*u->names))))
			break;
		memcpy(u->names[u->n], name, len);
		u->names[u->n][len] = '\0';
		found = ++u->n;
		break;
	}
	fclose(f);
	return found;
}

/* Whether the file is not the one last read (or cannot be looked at). */
static int changed(struct usernames *u)
{
	struct stat st;
	int ch;

	if (stat(u->path, &st) != 0)
		memset(&st, 0, sizeof(st));
	ch = !u->seen_ok || st.st_dev != u->seen.st_dev || st.st_ino != u->seen.st_ino ||
	     st.st_size != u->seen.st_size || st.st_mtime != u->seen.st_mtime ||
	     st.st_ctime != u->seen.st_ctime;
	u->seen = st;
	u->seen_ok = 1;
	return ch;
}

size_t usernames__name(struct usernames *u, uid_t uid, uint64_t now_ns, char *buf, size_t size)
{
	uint64_t v = 0;
	int known;
	int n;

	if (size == 0)
		return 0;
	known = u64map__get(u->by_uid, (uint64_t)uid, &v);
	if (known && v == 0 && now_ns - u->checked_ns >= USERNAMES_RECHECK_NS) {
		/* a uid the file did not name: named once the file changes */
		u->checked_ns = now_ns;
		if (changed(u)) {
			forget_all(u);
			known = 0;
		}
	}
	if (!known) {
		if (changed(u) || u64map__count(u->by_uid) >= USERNAMES_MAX_KEPT)
			forget_all(u);
		v = scan(u, uid);
		/* without room to keep it, the next lookup reads again */
		(void)u64map__put(u->by_uid, (uint64_t)uid, v);
	}
	if (v && v <= u->n) {
		n = snprintf(buf, size, "%s", u->names[v - 1]);
	} else {
		n = snprintf(buf, size, "%lu", (unsigned long)uid);
	}
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}
