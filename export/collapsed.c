/* Collapsed stack text encoder (flamegraph.pl / speedscope input). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "common/strtab.h"
#include "export/collapsed.h"

#define UNKNOWN_FRAME "[unknown]"
#define UNKNOWN_COMM "[unknown]"

static int reserve(char **buf, size_t *cap, size_t len, size_t extra)
{
	size_t ncap = *cap ? *cap : 256;
	char *n;

	if (extra > (size_t)-1 - len - 1)
		return -ENOMEM;
	if (len + extra + 1 <= *cap)
		return 0;
	while (ncap < len + extra + 1) {
		if (ncap > (size_t)-1 / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	n = realloc(*buf, ncap);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = ncap;
	return 0;
}

int collapsed__append_name(const char *s, char **buf, size_t *cap, size_t *len)
{
	size_t l = strlen(s), i;
	char *d;

	if (reserve(buf, cap, *len, l) < 0)
		return -ENOMEM;
	d = *buf + *len;
	/* Names are sanitized upstream; this is the last line of defence for a
	 * format where ';' and '\n' are structure. */
	for (i = 0; i < l; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ';')
			c = ':';
		else if (c < 0x20 || c == 0x7f)
			c = '?';
		d[i] = (char)c;
	}
	*len += l;
	(*buf)[*len] = '\0';
	return 0;
}

int collapsed__append_process(const char *name, const char *user, char **buf, size_t *cap,
			      size_t *len)
{
	if (collapsed__append_name(name, buf, cap, len) < 0)
		return -ENOMEM;
	if (!user)
		return 0;
	if (collapsed__append_name("@", buf, cap, len) < 0)
		return -ENOMEM;
	return collapsed__append_name(user, buf, cap, len);
}

int collapsed__append_thread(const char *name, char **buf, size_t *cap, size_t *len)
{
	if (!*name)
		return collapsed__append_name(COLLAPSED_UNKNOWN_THREAD, buf, cap, len);
	if (collapsed__append_name("[thread ", buf, cap, len) < 0 ||
	    collapsed__append_name(name, buf, cap, len) < 0)
		return -ENOMEM;
	return collapsed__append_name("]", buf, cap, len);
}

static int append_sep(char **buf, size_t *cap, size_t *len)
{
	if (reserve(buf, cap, *len, 1) < 0)
		return -ENOMEM;
	(*buf)[(*len)++] = ';';
	(*buf)[*len] = '\0';
	return 0;
}

int collapsed__append_stack(const struct strtab *names, const uint32_t *frames, size_t n,
			    char **buf, size_t *cap, size_t *len)
{
	size_t i;

	if (reserve(buf, cap, *len, 0) < 0)
		return -ENOMEM;
	(*buf)[*len] = '\0';
	for (i = 0; i < n; i++) {
		const char *s = frames[i] ? strtab__str(names, frames[i]) : NULL;

		if (i && append_sep(buf, cap, len) < 0)
			return -ENOMEM;
		if (collapsed__append_name(s ? s : UNKNOWN_FRAME, buf, cap, len) < 0)
			return -ENOMEM;
	}
	return 0;
}

struct line {
	uint64_t count;
	size_t off; /* into the text arena, until the arena stops moving */
	const char *s;
};

struct collect {
	const struct strtab *names;
	const char *comm; /* NULL without COLLAPSED_WITH_COMM */
	const char *user; /* the group's user; NULL: root's */
	const char *thread; /* NULL: the group is not one thread's */
	char *text;
	size_t text_cap, text_len;
	struct line *lines;
	size_t nlines, lines_cap;
};

static int collect_stack(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct collect *c = ctx;
	size_t start = c->text_len;

	if (!n && !c->comm && !c->thread)
		return 0;
	if (c->nlines == c->lines_cap) {
		size_t ncap = c->lines_cap ? c->lines_cap * 2 : 256;
		struct line *nl;

		if (ncap > (size_t)-1 / sizeof(*nl))
			return -ENOMEM;
		nl = realloc(c->lines, ncap * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		c->lines = nl;
		c->lines_cap = ncap;
	}
	if (c->comm) {
		if (collapsed__append_process(c->comm, c->user, &c->text, &c->text_cap, &c->text_len) < 0)
			return -ENOMEM;
		if ((n || c->thread) && append_sep(&c->text, &c->text_cap, &c->text_len) < 0)
			return -ENOMEM;
	}
	if (c->thread) {
		if (collapsed__append_thread(c->thread, &c->text, &c->text_cap, &c->text_len) < 0)
			return -ENOMEM;
		if (n && append_sep(&c->text, &c->text_cap, &c->text_len) < 0)
			return -ENOMEM;
	}
	if (collapsed__append_stack(c->names, frames, n, &c->text, &c->text_cap, &c->text_len) < 0)
		return -ENOMEM;
	/* Keep the NUL: lines are addressed as C strings once the arena is final. */
	c->text_len++;
	c->lines[c->nlines].count = count;
	c->lines[c->nlines].off = start;
	c->nlines++;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->s, ((const struct line *)b)->s);
}

int collapsed__write(const struct profile *p, FILE *out, unsigned flags)
{
	const struct strtab *names = profile__names(p);
	struct collect c;
	size_t g, i;
	int err = 0;

	memset(&c, 0, sizeof(c));
	c.names = names;
	for (g = 0; g < profile__ngroups(p); g++) {
		struct profile_group grp;

		profile__group(p, g, &grp);
		c.comm = NULL;
		if (flags & COLLAPSED_WITH_COMM) {
			c.comm = grp.key.comm ? strtab__str(names, grp.key.comm) : NULL;
			if (!c.comm || !*c.comm)
				c.comm = UNKNOWN_COMM;
		}
		c.user = grp.key.user ? strtab__str(names, grp.key.user) : NULL;
		c.thread = grp.key.thread ? strtab__str(names, grp.key.thread) : NULL;
		if (grp.key.thread && !c.thread)
			c.thread = "";
		err = profile__foreach_stack(p, g, collect_stack, &c);
		if (err)
			goto out_free;
	}
	for (i = 0; i < c.nlines; i++)
		c.lines[i].s = c.text + c.lines[i].off;
	if (c.nlines)
		qsort(c.lines, c.nlines, sizeof(*c.lines), cmp_line);
	for (i = 0; i < c.nlines; i++) {
		uint64_t count = c.lines[i].count;

		while (i + 1 < c.nlines && !strcmp(c.lines[i].s, c.lines[i + 1].s))
			count += c.lines[++i].count;
		fprintf(out, "%s %llu\n", c.lines[i].s, (unsigned long long)count);
	}
	if (fflush(out) != 0 || ferror(out))
		err = -EIO;
out_free:
	free(c.lines);
	free(c.text);
	return err;
}
