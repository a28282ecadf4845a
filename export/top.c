/* Self/total function table over a whole profile window. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collector/profile.h"
#include "common/strtab.h"
#include "common/u64map.h"
#include "export/top.h"

#define LINE_WIDTH 100
/* "%7s %10s %7s %10s  " before the name. */
#define PREFIX_WIDTH 39
#define NAME_WIDTH (LINE_WIDTH - PREFIX_WIDTH - 1)

struct fn {
	uint32_t id;
	uint64_t self, total;
	uint64_t seen; /* serial of the last stack that counted this in total */
	const char *name;
};

struct acc {
	struct u64map *index; /* frame id -> index in fns */
	struct fn *fns;
	size_t nfns, cap;
	uint64_t serial;
};

static struct fn *get_fn(struct acc *a, uint32_t id)
{
	uint64_t v;

	if (u64map__get(a->index, id, &v))
		return &a->fns[v];
	if (a->nfns == a->cap) {
		size_t ncap = a->cap ? a->cap * 2 : 256;
		struct fn *nf;

		if (ncap > (size_t)-1 / sizeof(*nf))
			return NULL;
		nf = realloc(a->fns, ncap * sizeof(*nf));
		if (!nf)
			return NULL;
		a->fns = nf;
		a->cap = ncap;
	}
	if (u64map__put(a->index, id, a->nfns) < 0)
		return NULL;
	memset(&a->fns[a->nfns], 0, sizeof(a->fns[0]));
	a->fns[a->nfns].id = id;
	return &a->fns[a->nfns++];
}

static int account(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct acc *a = ctx;
	size_t i;

	a->serial++;
	for (i = 0; i < n; i++) {
		struct fn *f = get_fn(a, frames[i]);

		if (!f)
			return -ENOMEM;
		if (f->seen != a->serial) {
			f->seen = a->serial;
			f->total += count;
		}
		if (i == n - 1)
			f->self += count;
	}
	return 0;
}

static int cmp_self(const void *x, const void *y)
{
	const struct fn *a = x, *b = y;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int cmp_total(const void *x, const void *y)
{
	const struct fn *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Copies name into buf, at most NAME_WIDTH columns, counting a UTF-8 code
 * point as one column and cutting only at a code point start, so a cut never
 * splits a character. Stray continuation bytes count as a column each so the
 * byte budget (bufsz) bounds the copy as well. */
static void fit_name(const char *name, char *buf, size_t bufsz)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t cols = 0, i, o = 0, cut = 0, cont = 0;
	int trunc = 0;

	for (i = 0; s[i]; i++) {
		int start = (s[i] & 0xc0) != 0x80 || cont >= 3;

		if (start) {
			if (cols == NAME_WIDTH - 3)
				cut = o;
			if (cols == NAME_WIDTH || o + 4 >= bufsz) {
				trunc = 1;
				break;
			}
			cols++;
			cont = 0;
		} else {
			cont++;
		}
		buf[o++] = (s[i] < 0x20 || s[i] == 0x7f) ? '?' : (char)s[i];
	}
	if (trunc) {
		o = cut;
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
}

static void pct(char *buf, size_t sz, uint64_t v, uint64_t total)
{
	snprintf(buf, sz, "%.2f%%", total ? 100.0 * (double)v / (double)total : 0.0);
}

static void print_table(FILE *out, const char *title, const struct fn *fns, size_t nrows,
			uint64_t total)
{
	/* NAME_WIDTH code points of up to 4 bytes each. */
	char name[NAME_WIDTH * 4 + 1], sp[16], tp[16];
	size_t i;

	fprintf(out, "\n%s\n", title);
	fprintf(out, "%7s %10s %7s %10s  %s\n", "self%", "self", "total%", "total", "function");
	for (i = 0; i < nrows; i++) {
		pct(sp, sizeof(sp), fns[i].self, total);
		pct(tp, sizeof(tp), fns[i].total, total);
		fit_name(fns[i].name, name, sizeof(name));
		fprintf(out, "%7s %10llu %7s %10llu  %s\n", sp, (unsigned long long)fns[i].self, tp,
			(unsigned long long)fns[i].total, name);
	}
}

int top__write(const struct profile *p, FILE *out, size_t n)
{
	const struct strtab *names = profile__names(p);
	uint64_t total = profile__total(p);
	struct acc a;
	size_t g, i, nrows;
	char title[64];
	int err = 0;

	memset(&a, 0, sizeof(a));
	a.index = u64map__new(1024);
	if (!a.index)
		return -ENOMEM;
	for (g = 0; g < profile__ngroups(p); g++) {
		err = profile__foreach_stack(p, g, account, &a);
		if (err)
			goto out_free;
	}
	for (i = 0; i < a.nfns; i++) {
		const char *s = a.fns[i].id ? strtab__str(names, a.fns[i].id) : NULL;

		a.fns[i].name = s ? s : "[unknown]";
	}
	nrows = n && n < a.nfns ? n : a.nfns;

	fprintf(out, "samples: %llu  profiles: %zu  processes: %llu  functions: %zu\n",
		(unsigned long long)total, profile__ngroups(p),
		(unsigned long long)profile__stats_const(p)->processes, a.nfns);
	if (a.nfns) {
		qsort(a.fns, a.nfns, sizeof(*a.fns), cmp_self);
		snprintf(title, sizeof(title), "top %zu by self", nrows);
		print_table(out, title, a.fns, nrows, total);
		qsort(a.fns, a.nfns, sizeof(*a.fns), cmp_total);
		snprintf(title, sizeof(title), "top %zu by total", nrows);
		print_table(out, title, a.fns, nrows, total);
	}
	if (fflush(out) != 0 || ferror(out))
		err = -EIO;
out_free:
	free(a.fns);
	u64map__delete(a.index);
	return err;
}
