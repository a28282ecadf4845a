/* Self/total function table over a whole profile window. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/agent_stats.h"
#include "profile/frame_name.h"
#include "profile/profile.h"
#include "common/strtab.h"
#include "common/u64map.h"
#include "common/units.h"
#include "export/collapsed.h"
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
	const struct strtab *names;
	uint64_t truncated;   /* samples of stacks rooted at [truncated] */
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
	if (n && frames[0]) {
		const char *root = strtab__str(a->names, frames[0]);

		if (root && !strcmp(root, FRAME_TRUNCATED))
			a->truncated += count;
	}
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

/* The number of code points (columns) of s: a UTF-8 lead byte or ASCII
 * byte starts one; continuation bytes do not. */
static size_t columns(const unsigned char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += (*s & 0xc0) != 0x80;
	return n;
}

/* Copies code points [from, to) of s into buf at *o (control characters
 * as '?'), within bufsz. */
static void copy_columns(const unsigned char *s, size_t from, size_t to, char *buf, size_t bufsz,
			 size_t *o)
{
	size_t col = 0, i;

	for (i = 0; s[i]; i++) {
		if ((s[i] & 0xc0) != 0x80 && i > 0)
			col++;
		if (col < from)
			continue;
		if (col >= to || *o + 1 >= bufsz)
			break;
		buf[(*o)++] = (s[i] < 0x20 || s[i] == 0x7f) ? '?' : (char)s[i];
	}
}

/* Copies name into buf, at most `width` columns (a code point is one). A
 * name that does not fit is shortened in the middle: its start and its end
 * (where the function's own name is) are kept around a "\xe2\x80\xa6" mark,
 * which C++ and Rust names never contain (unlike "..."). */
static void fit_name_width(const char *name, char *buf, size_t bufsz, size_t width)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = columns(s), o = 0, head;

	if (n <= width) {
		copy_columns(s, 0, n, buf, bufsz, &o);
	} else {
		head = (width - 1) * 2 / 5;
		copy_columns(s, 0, head, buf, bufsz, &o);
		if (o + 4 < bufsz) {
			memcpy(buf + o, "\xe2\x80\xa6", 3);
			o += 3;
		}
		copy_columns(s, n - (width - 1 - head), n, buf, bufsz, &o);
	}
	buf[o] = '\0';
}

static void pct(char *buf, size_t sz, uint64_t v, uint64_t total)
{
	snprintf(buf, sz, "%.2f%%", total ? 100.0 * (double)v / (double)total : 0.0);
}

/* Whether p's values are times (off-cpu's nanoseconds), not counts. */
static bool in_time(const struct profile *p)
{
	const char *u = profile__meta_const(p)->event_unit;

	return u && strcmp(u, "nanoseconds") == 0;
}

/* A value as the tables show it: a count, or a time. */
static void value(char *buf, size_t sz, uint64_t v, bool time)
{
	if (time)
		units__format_elapsed(v, buf, sz);
	else
		snprintf(buf, sz, "%llu", (unsigned long long)v);
}

/* Rows whose shortened name another row with a different name also
 * shows: those print their whole name, wrapped. */
struct shown {
	const char *text;  /* shortened */
	const char *name;  /* whole */
	size_t row;
};

static int cmp_shown(const void *x, const void *y)
{
	const struct shown *a = x, *b = y;

	return strcmp(a->text, b->text);
}

/* Sets wrap[i] for the rows of fns[0..n) whose shortened text (in
 * text[i]) is not unique to their name. Returns 0 or -ENOMEM. */
static int find_ambiguous(const struct fn *fns, char *const *text, size_t n, unsigned char *wrap)
{
	struct shown *v = calloc(n ? n : 1, sizeof(*v));
	size_t i, j;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = (struct shown){ text[i], fns[i].name, i };
	qsort(v, n, sizeof(*v), cmp_shown);
	for (i = 0; i < n; i = j) {
		int mixed = 0;

		for (j = i + 1; j < n && !strcmp(v[j].text, v[i].text); j++)
			mixed |= strcmp(v[j].name, v[i].name) != 0;
		while (mixed && i < j)
			wrap[v[i++].row] = 1;
	}
	free(v);
	return 0;
}

/* The whole name over as many lines as it takes, continuation lines
 * indented under the function column. */
static void print_wrapped(FILE *out, const char *name, size_t indent, size_t width)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = columns(s), from;
	char line[NAME_WIDTH * 4 + 1];

	for (from = 0; from < n; from += width) {
		size_t o = 0;

		copy_columns(s, from, from + width, line, sizeof(line), &o);
		line[o] = '\0';
		if (from)
			fprintf(out, "%*s", (int)indent, "");
		fprintf(out, "%s\n", line);
	}
	if (n == 0)
		fputc('\n', out);
}

static int print_table(FILE *out, const char *title, const struct fn *fns, size_t nrows,
		       uint64_t total, bool time)
{
	/* NAME_WIDTH code points of up to 4 bytes each. */
	enum { NAME_BYTES = NAME_WIDTH * 4 + 1 };
	char **text = calloc(nrows ? nrows : 1, sizeof(*text));
	unsigned char *wrap = calloc(nrows ? nrows : 1, 1);
	char sp[16], tp[16], sv[32], tv[32];
	size_t i;
	int err = -ENOMEM;

	if (!text || !wrap)
		goto out;
	for (i = 0; i < nrows; i++) {
		text[i] = malloc(NAME_BYTES);
		if (!text[i])
			goto out;
		fit_name_width(fns[i].name, text[i], NAME_BYTES, NAME_WIDTH);
	}
	if (find_ambiguous(fns, text, nrows, wrap) < 0)
		goto out;
	fprintf(out, "\n%s\n", title);
	fprintf(out, "%7s %10s %7s %10s  %s\n", "self%", "self", "total%", "total", "function");
	for (i = 0; i < nrows; i++) {
		pct(sp, sizeof(sp), fns[i].self, total);
		pct(tp, sizeof(tp), fns[i].total, total);
		value(sv, sizeof(sv), fns[i].self, time);
		value(tv, sizeof(tv), fns[i].total, time);
		fprintf(out, "%7s %10s %7s %10s  ", sp, sv, tp, tv);
		if (wrap[i])
			print_wrapped(out, fns[i].name, PREFIX_WIDTH, NAME_WIDTH);
		else
			fprintf(out, "%s\n", text[i]);
	}
	err = 0;
out:
	for (i = 0; text && i < nrows; i++)
		free(text[i]);
	free(text);
	free(wrap);
	return err;
}

/* Self and total per function of the groups gs[0..ng) of p (gs NULL: all
 * groups) into a, names set. */
static int accumulate_groups(const struct profile *p, const size_t *gs, size_t ng, struct acc *a)
{
	const struct strtab *names = profile__names(p);
	size_t g, i;
	int err;

	memset(a, 0, sizeof(*a));
	a->names = names;
	a->index = u64map__new(1024);
	if (!a->index)
		return -ENOMEM;
	if (!gs)
		ng = profile__ngroups(p);
	for (g = 0; g < ng; g++) {
		err = profile__foreach_stack(p, gs ? gs[g] : g, account, a);
		if (err)
			return err;
	}
	for (i = 0; i < a->nfns; i++) {
		const char *s = a->fns[i].id ? strtab__str(names, a->fns[i].id) : NULL;

		a->fns[i].name = s ? s : "[unknown]";
	}
	return 0;
}

static int accumulate(const struct profile *p, struct acc *a)
{
	return accumulate_groups(p, NULL, 0, a);
}

static void acc_free(struct acc *a)
{
	free(a->fns);
	u64map__delete(a->index);
}

/* The second header line: what the samples do not show; then when. The
 * agent's counters are its windows', for every process: without them,
 * what the stacks themselves say. */
static void write_accounting(const struct profile *p, const struct agent_stats *agent,
			     const struct acc *a, FILE *out)
{
	const struct profile_meta *m = profile__meta_const(p);

	if (agent)
		fprintf(out, "lost: %llu  dropped: %llu  unwound to the root: %llu of %llu user stacks\n",
			(unsigned long long)agent->lost, (unsigned long long)profile__dropped(p),
			(unsigned long long)agent->unwind_complete,
			(unsigned long long)agent_stats__user_stacks(agent));
	else
		fprintf(out, "cut short (" FRAME_TRUNCATED "): %llu of %llu samples\n",
			(unsigned long long)a->truncated, (unsigned long long)profile__total(p));
	if (m->start_ns && m->end_ns >= m->start_ns) {
		char from[40], until[40];

		units__format_time(m->start_ns, from, sizeof(from));
		units__format_time(m->end_ns, until, sizeof(until));
		fprintf(out, "span: %s to %s (%.1f s)\n", from, until,
			(double)(m->end_ns - m->start_ns) / 1e9);
	}
}

/* Distinct pids of the groups (0 when not grouped per pid), or -ENOMEM. */
static long count_pids(const struct profile *p)
{
	struct u64map *seen = u64map__new(64);
	size_t g;
	long n;

	if (!seen)
		return -ENOMEM;
	for (g = 0; g < profile__ngroups(p); g++) {
		struct profile_group grp;

		profile__group(p, g, &grp);
		if (grp.key.pid >= 0 && u64map__put(seen, (uint64_t)grp.key.pid, 1) < 0) {
			u64map__delete(seen);
			return -ENOMEM;
		}
	}
	n = (long)u64map__count(seen);
	u64map__delete(seen);
	return n;
}

/* The two tables of a, at most n rows each, percentages of total. */
static int print_tables(FILE *out, struct acc *a, size_t n, uint64_t total, bool time)
{
	size_t nrows = n && n < a->nfns ? n : a->nfns;
	char title[64];
	int err;

	if (!a->nfns)
		return 0;
	qsort(a->fns, a->nfns, sizeof(*a->fns), cmp_self);
	snprintf(title, sizeof(title), "top %zu by self", nrows);
	err = print_table(out, title, a->fns, nrows, total, time);
	qsort(a->fns, a->nfns, sizeof(*a->fns), cmp_total);
	snprintf(title, sizeof(title), "top %zu by total", nrows);
	return err ? err : print_table(out, title, a->fns, nrows, total, time);
}

/* --- one section per thread ---------------------------------------------- */

static int has_threads(const struct profile *p)
{
	size_t g;

	for (g = 0; g < profile__ngroups(p); g++) {
		struct profile_group grp;

		profile__group(p, g, &grp);
		if (grp.key.thread)
			return 1;
	}
	return 0;
}

/* A group, and the section (process name and user, thread name) it
 * belongs to. */
struct member {
	size_t g;
	uint32_t comm, user, thread;
	uint64_t samples;
};

struct section {
	size_t first, n; /* members[first .. first + n) */
	uint64_t samples;
	const char *comm, *thread;
	const char *user; /* NULL: root's */
};

static int cmp_member(const void *x, const void *y)
{
	const struct member *a = x, *b = y;

	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	if (a->user != b->user)
		return a->user < b->user ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

static int cmp_section(const void *x, const void *y)
{
	const struct section *a = x, *b = y;
	int r;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if ((r = strcmp(a->comm, b->comm)) != 0)
		return r;
	if (!a->user || !b->user) {
		if (a->user || b->user)
			return !!a->user - !!b->user;
	} else if ((r = strcmp(a->user, b->user)) != 0) {
		return r;
	}
	return strcmp(a->thread, b->thread);
}

static const char *str_of(const struct strtab *names, uint32_t id, const char *none)
{
	const char *s = id ? strtab__str(names, id) : NULL;

	return s && *s ? s : none;
}

static int write_section(const struct profile *p, const struct section *s, const size_t *gs,
			 FILE *out, size_t n)
{
	uint64_t total = profile__total(p);
	char comm[NAME_WIDTH * 4 + 1], thread[NAME_WIDTH * 4 + 1], who[NAME_WIDTH * 4 + 1];
	struct acc a;
	int err;

	fit_name_width(s->thread, thread, sizeof(thread), NAME_WIDTH / 2);
	/* a user's process is never shown as root's: "comm@USER" */
	if (s->user)
		snprintf(who, sizeof(who), "%s@%s", s->comm, s->user);
	else
		snprintf(who, sizeof(who), "%s", s->comm);
	fit_name_width(who, comm, sizeof(comm), NAME_WIDTH / 2);
	if (in_time(p)) {
		char t[32];

		units__format_elapsed(s->samples, t, sizeof(t));
		fprintf(out, "\n%s / %s: %s (%.2f%%)\n", comm, thread, t,
			total ? 100.0 * (double)s->samples / (double)total : 0.0);
	} else {
		fprintf(out, "\n%s / %s: %llu sample%s (%.2f%%)\n", comm, thread,
			(unsigned long long)s->samples, s->samples == 1 ? "" : "s",
			total ? 100.0 * (double)s->samples / (double)total : 0.0);
	}
	err = accumulate_groups(p, gs + s->first, s->n, &a);
	if (!err)
		err = print_tables(out, &a, n, s->samples, in_time(p));
	acc_free(&a);
	return err;
}

/* Groups of one process name and thread name make a section; sections by
 * samples, each with its own tables, percentages of its own samples. */
static int write_threads(const struct profile *p, FILE *out, size_t n)
{
	const struct strtab *names = profile__names(p);
	size_t ng = profile__ngroups(p), ns = 0, i;
	struct member *m = calloc(ng ? ng : 1, sizeof(*m));
	struct section *s = calloc(ng ? ng : 1, sizeof(*s));
	size_t *gs = calloc(ng ? ng : 1, sizeof(*gs));
	int err = -ENOMEM;

	if (!m || !s || !gs)
		goto out_free;
	for (i = 0; i < ng; i++) {
		struct profile_group grp;

		profile__group(p, i, &grp);
		m[i] = (struct member){ i, grp.key.comm, grp.key.user, grp.key.thread, grp.samples };
	}
	qsort(m, ng, sizeof(*m), cmp_member);
	for (i = 0; i < ng; i++) {
		gs[i] = m[i].g;
		if (i == 0 || cmp_member(&m[i - 1], &m[i]) != 0) {
			s[ns].first = i;
			s[ns].comm = str_of(names, m[i].comm, FRAME_UNKNOWN);
			s[ns].user = m[i].user ? str_of(names, m[i].user, "?") : NULL;
			/* a profile of a dump grouped per process, merged with
			 * ones grouped per thread */
			s[ns].thread = m[i].thread ? str_of(names, m[i].thread, COLLAPSED_UNKNOWN_THREAD)
						   : "[no thread label]";
			ns++;
		}
		s[ns - 1].n++;
		s[ns - 1].samples += m[i].samples;
	}
	qsort(s, ns, sizeof(*s), cmp_section);
	for (i = 0, err = 0; i < ns && !err; i++)
		err = write_section(p, &s[i], gs, out, n);
out_free:
	free(gs);
	free(s);
	free(m);
	return err;
}

int top__write(const struct profile *p, const struct agent_stats *agent, FILE *out, size_t n)
{
	uint64_t total = profile__total(p);
	struct acc a;
	long pids = 0;
	int err;

	err = accumulate(p, &a);
	if (!err && !agent && (pids = count_pids(p)) < 0)
		err = (int)pids;
	if (err)
		goto out_free;
	if (in_time(p)) {
		char t[32];

		units__format_elapsed(total, t, sizeof(t));
		fprintf(out, "%s: %s  profiles: %zu  ", profile__meta_const(p)->event_name, t,
			profile__ngroups(p));
	} else {
		fprintf(out, "samples: %llu  profiles: %zu  ", (unsigned long long)total,
			profile__ngroups(p));
	}
	if (agent)
		fprintf(out, "processes: %llu  ", (unsigned long long)agent->processes);
	else if (pids > 0)
		fprintf(out, "processes: %ld  ", pids);
	fprintf(out, "functions: %zu\n", a.nfns);
	write_accounting(p, agent, &a, out);
	err = has_threads(p) ? write_threads(p, out, n) : print_tables(out, &a, n, total, in_time(p));
	if (!err && (fflush(out) != 0 || ferror(out)))
		err = -EIO;
out_free:
	acc_free(&a);
	return err;
}

/* --- differential table -------------------------------------------------- */

/* "%7s %7s %8s %10s %10s  " before the name. */
#define DIFF_PREFIX_WIDTH 48
#define DIFF_NAME_WIDTH (LINE_WIDTH - DIFF_PREFIX_WIDTH - 1)

struct change {
	const char *name;
	uint64_t self_now, self_base;
	double share_now, share_base, delta; /* percentage points */
};

static int cmp_change(const void *x, const void *y)
{
	const struct change *a = x, *b = y;
	double da = a->delta < 0 ? -a->delta : a->delta, db = b->delta < 0 ? -b->delta : b->delta;

	if (da != db)
		return da > db ? -1 : 1;
	if (a->self_now != b->self_now)
		return a->self_now > b->self_now ? -1 : 1;
	if (a->self_base != b->self_base)
		return a->self_base > b->self_base ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int cmp_fn_name(const void *x, const void *y)
{
	return strcmp(((const struct fn *)x)->name, ((const struct fn *)y)->name);
}

static double share(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

int top__write_diff(const struct profile *now, const struct profile *base, FILE *out, size_t n)
{
	uint64_t tnow = profile__total(now), tbase = profile__total(base);
	struct acc a, b;
	struct change *ch = NULL;
	size_t i, j, k = 0, nrows;
	char name[DIFF_NAME_WIDTH * 4 + 1], sb[16], sn[16], sd[16];
	int err;

	memset(&b, 0, sizeof(b));
	err = accumulate(now, &a);
	if (!err)
		err = accumulate(base, &b);
	if (err)
		goto out_free;
	/* The profiles may intern names in different tables: match by name,
	 * merging the two name-sorted lists. */
	qsort(a.fns, a.nfns, sizeof(*a.fns), cmp_fn_name);
	qsort(b.fns, b.nfns, sizeof(*b.fns), cmp_fn_name);
	ch = calloc(a.nfns + b.nfns + 1, sizeof(*ch));
	if (!ch) {
		err = -ENOMEM;
		goto out_free;
	}
	for (i = 0, j = 0; i < a.nfns || j < b.nfns;) {
		int c = i == a.nfns ? 1 : j == b.nfns ? -1 : strcmp(a.fns[i].name, b.fns[j].name);
		struct change *x = &ch[k];

		x->name = c <= 0 ? a.fns[i].name : b.fns[j].name;
		if (c <= 0)
			x->self_now = a.fns[i++].self;
		if (c >= 0)
			x->self_base = b.fns[j++].self;
		/* Functions never on top of a stack in either profile have no
		 * self share to compare. */
		if (!x->self_now && !x->self_base)
			continue;
		x->share_now = share(x->self_now, tnow);
		x->share_base = share(x->self_base, tbase);
		x->delta = x->share_now - x->share_base;
		k++;
	}
	qsort(ch, k, sizeof(*ch), cmp_change);
	nrows = n && n < k ? n : k;
	fprintf(out, "samples: %llu  base samples: %llu  functions: %zu\n",
		(unsigned long long)tnow, (unsigned long long)tbase, k);
	if (k) {
		fprintf(out, "\ntop %zu by change of self share\n", nrows);
		fprintf(out, "%7s %7s %8s %10s %10s  %s\n", "base%", "self%", "change", "base", "self",
			"function");
	}
	for (i = 0; i < nrows; i++) {
		snprintf(sb, sizeof(sb), "%.2f%%", ch[i].share_base);
		snprintf(sn, sizeof(sn), "%.2f%%", ch[i].share_now);
		/* Exactly equal shares print unsigned, so "no change" is plain. */
		if (ch[i].delta == 0.0)
			snprintf(sd, sizeof(sd), "0.00%%");
		else
			snprintf(sd, sizeof(sd), "%+.2f%%", ch[i].delta);
		fit_name_width(ch[i].name, name, sizeof(name), DIFF_NAME_WIDTH);
		fprintf(out, "%7s %7s %8s %10llu %10llu  %s\n", sb, sn, sd,
			(unsigned long long)ch[i].self_base, (unsigned long long)ch[i].self_now, name);
	}
	if (fflush(out) != 0 || ferror(out))
		err = -EIO;
out_free:
	free(ch);
	acc_free(&a);
	acc_free(&b);
	return err;
}
