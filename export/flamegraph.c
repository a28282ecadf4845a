/* Interactive SVG flame graph encoder (plain and differential). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile/frame_name.h"
#include "profile/profile.h"
#include "common/hash.h"
#include "common/strtab.h"
#include "common/u64map.h"
#include "common/units.h"
#include "export/collapsed.h"
#include "export/flamegraph.h"
#include "export/flamegraph_viewer.h"
#include "export/svg_text.h"

#define DEFAULT_WIDTH 1200u
#define DEFAULT_MIN_WIDTH 0.1
#define XPAD 10
#define ROWH 16       /* one stack level */
#define FRAMEH 15     /* rect height: 1 px gap between levels */
#define TOP 56        /* first row below title, subtitle and controls */
#define BOTTOM 30     /* details / matched line below the frames */
#define FONT_PX 12
/* Average advance of Verdana / DejaVu Sans at 12 px, as a fraction of the
 * font size: an estimate, labels are cut with a margin. */
#define CHAR_W 0.59
#define UNKNOWN_NAME "[unknown]"
/* Below this the colour scale of a diff would blow noise up to full red. */
#define MIN_DIFF_SCALE 0.001

struct node {
	uint64_t n;     /* samples of p in this frame and below */
	uint64_t base;  /* same in the base profile */
	uint64_t start; /* offset of the frame, in samples, from the left edge */
	uint32_t parent, name, depth;
	int context;    /* "all", a process, a thread: not code */
};

struct fg {
	struct strtab *lnames;   /* names of both profiles; ids order siblings */
	struct u64map *children; /* parent << 32 | name -> node index */
	struct u64map *idmap;    /* frame id of the profile being added -> name */
	const struct strtab *pnames;
	struct node *nodes;
	size_t nnodes, cap;
	int adding_base;
	int err;
	uint32_t proc; /* process frame of the group being added */
	uint32_t thread; /* its thread frame below proc, 0: not one thread's */
	char *tname;     /* the thread or process frame's text */
	size_t tname_cap;
};

struct order {
	uint64_t key; /* parent << 32 | rank of name */
	uint32_t idx;
};

void flamegraph__opts_init(struct flamegraph_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = DEFAULT_WIDTH;
	o->min_width_px = DEFAULT_MIN_WIDTH;
	o->max_frames = FLAMEGRAPH_MAX_FRAMES;
}

/* ---- tree ---- */

static int new_node(struct fg *f, uint32_t parent, uint32_t name, uint32_t depth, uint32_t *out)
{
	struct node *nd;

	if (f->nnodes == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 1024;
		struct node *nn;

		/* Node indices must fit the 32 bits of a child key. */
		if (ncap > UINT32_MAX || ncap > (size_t)-1 / sizeof(*nn))
			return -ENOMEM;
		nn = realloc(f->nodes, ncap * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		f->nodes = nn;
		f->cap = ncap;
	}
	nd = &f->nodes[f->nnodes];
	memset(nd, 0, sizeof(*nd));
	nd->parent = parent;
	nd->name = name;
	nd->depth = depth;
	*out = (uint32_t)f->nnodes++;
	return 0;
}

static int child(struct fg *f, uint32_t parent, uint32_t name, uint32_t *out)
{
	uint64_t key = (uint64_t)parent << 32 | name, v;
	uint32_t idx;
	int err;

	if (u64map__get(f->children, key, &v)) {
		*out = (uint32_t)v;
		return 0;
	}
	err = new_node(f, parent, name, f->nodes[parent].depth + 1, &idx);
	if (err)
		return err;
	if (u64map__put(f->children, key, idx) < 0) {
		f->nnodes--;
		return -ENOMEM;
	}
	*out = idx;
	return 0;
}

static int local_name(struct fg *f, const char *s, uint32_t *out)
{
	return strtab__intern_cstr(f->lnames, s && *s ? s : UNKNOWN_NAME, out) < 0 ? -ENOMEM : 0;
}

/* Frames of the two profiles may come from different string tables: they
 * meet as local names. */
static int frame_name(struct fg *f, uint32_t id, uint32_t *out)
{
	uint64_t v;
	uint32_t l;

	if (u64map__get(f->idmap, id, &v)) {
		*out = (uint32_t)v;
		return 0;
	}
	if (local_name(f, id ? strtab__str(f->pnames, id) : NULL, &l) < 0)
		return -ENOMEM;
	if (u64map__put(f->idmap, id, l) < 0)
		return -ENOMEM;
	*out = l;
	return 0;
}

static void bump(struct fg *f, uint32_t idx, uint64_t count)
{
	if (f->adding_base)
		f->nodes[idx].base += count;
	else
		f->nodes[idx].n += count;
}

static int add_stack(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct fg *f = ctx;
	uint32_t cur = f->proc;
	size_t i;
	int err;

	bump(f, 0, count);
	bump(f, cur, count);
	if (f->thread) {
		cur = f->thread;
		bump(f, cur, count);
	}
	for (i = 0; i < n; i++) {
		uint32_t name;

		err = frame_name(f, frames[i], &name);
		if (!err)
			err = child(f, cur, name, &cur);
		if (err)
			return err;
		bump(f, cur, count);
	}
	return 0;
}

/* The process frame of a group, as the collapsed text writes it: its
 * comm (else its service), "@USER" for a user's process. */
static int process_frame(struct fg *f, const struct profile_key *k, uint32_t *name)
{
	const char *s = k->comm ? strtab__str(f->pnames, k->comm) : NULL;
	const char *user = k->user ? strtab__str(f->pnames, k->user) : NULL;
	size_t len = 0;

	if (!s || !*s)
		s = k->service_name ? strtab__str(f->pnames, k->service_name) : NULL;
	if (!user)
		return local_name(f, s && *s ? s : UNKNOWN_NAME, name);
	if (collapsed__append_process(s && *s ? s : UNKNOWN_NAME, user, &f->tname, &f->tname_cap,
				      &len) < 0)
		return -ENOMEM;
	return local_name(f, f->tname, name);
}

/* The thread frame below the process frame of a group of one thread, as
 * the collapsed text writes it. */
static int thread_frame(struct fg *f, const struct profile_key *k)
{
	const char *s = strtab__str(f->pnames, k->thread);
	size_t len = 0;
	uint32_t name;
	int err;

	f->thread = 0;
	if (!k->thread)
		return 0;
	err = collapsed__append_thread(s ? s : "", &f->tname, &f->tname_cap, &len);
	if (!err)
		err = local_name(f, f->tname, &name);
	if (!err)
		err = child(f, f->proc, name, &f->thread);
	if (!err)
		f->nodes[f->thread].context = 1;
	return err;
}

static int add_profile(struct fg *f, const struct profile *p, int is_base)
{
	size_t g;
	int err;

	f->pnames = profile__names(p);
	f->adding_base = is_base;
	u64map__clear(f->idmap);
	for (g = 0; g < profile__ngroups(p); g++) {
		struct profile_group grp;
		uint32_t name;

		profile__group(p, g, &grp);
		err = process_frame(f, &grp.key, &name);
		if (!err)
			err = child(f, 0, name, &f->proc);
		if (!err)
			err = thread_frame(f, &grp.key);
		if (!err)
			err = profile__foreach_stack(p, g, add_stack, f);
		if (err)
			return err < 0 ? err : -EINVAL;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x > y ? -1 : x < y;
}

/* Sorts siblings by name and gives every node its offset from the left, in
 * samples: children start at their parent's left edge, self time is on the
 * right. *ord receives nodes 1.. in drawing order (grouped by parent). */
static int layout(struct fg *f, struct order **ord)
{
	size_t nl = strtab__count(f->lnames), i;
	const char **byname = NULL;
	uint32_t *rank = NULL;
	struct order *o = NULL;
	uint32_t parent = UINT32_MAX;
	uint64_t cum = 0;
	int err = -ENOMEM;

	/* Ids of the local table are 1..nl; the strings give their rank. */
	byname = calloc(nl + 1, sizeof(*byname));
	rank = calloc(nl + 1, sizeof(*rank));
	o = calloc(f->nnodes, sizeof(*o));
	if (!byname || !rank || !o)
		goto out;
	for (i = 1; i <= nl; i++)
		byname[i - 1] = strtab__str(f->lnames, (uint32_t)i);
	qsort(byname, nl, sizeof(*byname), cmp_str);
	for (i = 0; i < nl; i++) {
		uint32_t id;

		/* A lookup: every string is in the table already. */
		if (strtab__intern_cstr(f->lnames, byname[i], &id) < 0 || id > nl)
			goto out;
		rank[id] = (uint32_t)i;
	}
	for (i = 1; i < f->nnodes; i++) {
		o[i - 1].key = (uint64_t)f->nodes[i].parent << 32 | rank[f->nodes[i].name];
		o[i - 1].idx = (uint32_t)i;
	}
	if (f->nnodes > 1)
		qsort(o, f->nnodes - 1, sizeof(*o), cmp_order);
	/* A parent is created before its children, so its index is smaller and
	 * its group comes earlier: its offset is known when its children's is
	 * computed. */
	f->nodes[0].start = 0;
	for (i = 0; i + 1 < f->nnodes; i++) {
		struct node *nd = &f->nodes[o[i].idx];

		if (nd->parent != parent) {
			parent = nd->parent;
			cum = f->nodes[parent].start;
		}
		nd->start = cum;
		cum += nd->n;
	}
	*ord = o;
	o = NULL;
	err = 0;
out:
	free(o);
	free(rank);
	free(byname);
	return err;
}

/* Smallest sample count a drawn frame has. Children never have more samples
 * than their parent, so "n >= threshold" keeps every drawn frame's parent. */
static int threshold(const struct fg *f, double span, double min_px, size_t max_frames,
		     uint64_t *out)
{
	uint64_t total = f->nodes[0].n, *vals;
	size_t i, cnt = 0;
	uint64_t thr;

	/* n / total * span >= min_px, i.e. n >= min_px * total / span */
	if (total == 0 || min_px <= 0) {
		thr = 1;
	} else {
		double t = min_px * (double)total / span;

		thr = t >= 1.8e19 ? UINT64_MAX : (uint64_t)t;
		if ((double)thr < t && thr < UINT64_MAX)
			thr++;
		if (thr == 0)
			thr = 1;
	}
	for (i = 0; i < f->nnodes; i++)
		cnt += f->nodes[i].n >= thr;
	if (cnt > max_frames) {
		vals = malloc(cnt * sizeof(*vals));
		if (!vals)
			return -ENOMEM;
		cnt = 0;
		for (i = 0; i < f->nnodes; i++)
			if (f->nodes[i].n >= thr)
				vals[cnt++] = f->nodes[i].n;
		qsort(vals, cnt, sizeof(*vals), cmp_u64_desc);
		/* Strictly more than the first value left out: ties stay out
		 * together, so at most max_frames remain. */
		thr = vals[max_frames] + 1;
		free(vals);
	}
	*out = thr;
	return 0;
}

/* ---- colours ---- */

/* Deterministic per name, so the same function has the same colour in every
 * graph; the family tells where the frame comes from. */
static void frame_fill(char *buf, size_t len, const char *name, int context)
{
	uint64_t h = hash__bytes(name, strlen(name), 0);
	struct frame_parts fp;
	unsigned a = (unsigned)(h & 0xff), b = (unsigned)(h >> 8 & 0xff),
		 c = (unsigned)(h >> 16 & 0xff);
	unsigned r, g, bl;

	frame_name__parse(name, &fp);
	if (context) { /* "all", the processes and threads: lavender */
		r = 190 + a * 30 / 255;
		g = 185 + b * 25 / 255;
		bl = 225 + c * 25 / 255;
	} else if (fp.kind == FRAME_KERNEL) { /* orange */
		r = 230 + a * 25 / 255;
		g = 125 + b * 55 / 255;
		bl = 20 + c * 35 / 255;
	} else if (fp.kind == FRAME_JIT || fp.kind == FRAME_INTERPRETED) { /* green */
		r = 70 + a * 60 / 255;
		g = 190 + b * 45 / 255;
		bl = 70 + c * 50 / 255;
	} else if (fp.kind == FRAME_INLINED) { /* aqua */
		r = 90 + a * 50 / 255;
		g = 200 + b * 35 / 255;
		bl = 200 + c * 35 / 255;
	} else if (fp.kind == FRAME_BRACKETED || fp.kind == FRAME_UNKNOWN_CODE) {
		/* [unknown], [libfoo.so], [anon]: grey */
		r = 175 + a * 30 / 255;
		g = r;
		bl = r;
	} else { /* warm: red to yellow */
		r = 210 + a * 45 / 255;
		g = 80 + b * 140 / 255;
		bl = 30 + c * 40 / 255;
	}
	snprintf(buf, len, "rgb(%u,%u,%u)", r, g, bl);
}

/* s in [-1, 1]: -1 full blue, 0 neutral, 1 full red. */
static void diff_fill(char *buf, size_t len, double s)
{
	double a = s < 0 ? -s : s;
	unsigned strong, weak;

	if (a > 1)
		a = 1;
	strong = 245 + (unsigned)(10 * a + 0.5);
	weak = 245 - (unsigned)(170 * a + 0.5);
	if (strong == 245 && weak == 245)
		snprintf(buf, len, "%s", FLAMEGRAPH_DIFF_NEUTRAL);
	else if (s > 0)
		snprintf(buf, len, "rgb(%u,%u,%u)", strong, weak, weak);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", weak, weak, strong);
}

/* ---- document ---- */

enum tfmt { T_DATETIME, T_DATE, T_TIME };

static void fmt_time(char *buf, size_t len, uint64_t ns, enum tfmt f)
{
	time_t t = (time_t)(ns / 1000000000u);
	struct tm tm;
	size_t n = 0;

	if (gmtime_r(&t, &tm)) {
		if (f == T_DATETIME)
			n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
		else if (f == T_DATE)
			n = strftime(buf, len, "%Y-%m-%d", &tm);
		else
			n = strftime(buf, len, "%H:%M:%S", &tm);
	}
	if (!n)
		buf[0] = '\0';
}

/* Whether p's values are times (off-cpu's nanoseconds), not samples. */
static bool in_time(const struct profile *p)
{
	const char *u = profile__meta_const(p)->event_unit;

	return u && strcmp(u, "nanoseconds") == 0;
}

/* "1,234 samples", or a time ("6.39s") for off-cpu. */
static void put_amount(FILE *out, uint64_t v, bool time)
{
	char n[32];

	if (time) {
		units__format_elapsed(v, n, sizeof(n));
		fputs(n, out);
		return;
	}
	svg_text__count(n, sizeof(n), v);
	fprintf(out, "%s sample%s", n, v == 1 ? "" : "s");
}

static void put_default_title(FILE *out, const struct profile *p, const struct flamegraph_opts *o)
{
	const struct profile_meta *m = profile__meta_const(p);
	const char *sep = ": ";

	fputs(o->base ? "Differential flame graph" : o->icicle ? "Icicle graph" : "Flame graph",
	      out);
	if (m->hostname && *m->hostname) {
		fputs(sep, out);
		svg_text__put_all(out, m->hostname);
		sep = ", ";
	}
	if (m->start_ns) {
		char a[32], b[32], da[16], db[16];

		fmt_time(a, sizeof(a), m->start_ns, T_DATETIME);
		fmt_time(da, sizeof(da), m->start_ns, T_DATE);
		fmt_time(db, sizeof(db), m->end_ns, T_DATE);
		fmt_time(b, sizeof(b), m->end_ns, strcmp(da, db) ? T_DATETIME : T_TIME);
		fprintf(out, "%s%s \xe2\x80\x93 %s UTC", sep, a, b);
	}
}

static void put_default_subtitle(FILE *out, const struct profile *p,
				 const struct flamegraph_opts *o, uint64_t total)
{
	const struct profile_meta *m = profile__meta_const(p);
	bool time = in_time(p);

	put_amount(out, total, time);
	if (time)
		fputs(" off the CPU", out);
	if (o->base) {
		char n[32];

		if (time)
			units__format_elapsed(profile__total(o->base), n, sizeof(n));
		else
			svg_text__count(n, sizeof(n), profile__total(o->base));
		fprintf(out, " vs %s in the base", n);
	} else if (m->event_name && *m->event_name) {
		fputs(" (", out);
		svg_text__put_all(out, m->event_name);
		if (m->frequency_hz && !time)
			fprintf(out, ", %u Hz", m->frequency_hz);
		fputs(")", out);
	}
}

static void put_button(FILE *out, const char *id, const char *cls, unsigned x, unsigned w,
		       const char *label)
{
	fprintf(out,
		"<g id=\"%s\" class=\"%s\"><rect x=\"%u\" y=\"8\" width=\"%u\" height=\"20\" rx=\"3\"/>"
		"<text x=\"%u\" y=\"22\">%s</text></g>\n",
		id, cls, x, w, x + 8, label);
}

struct draw {
	const struct fg *f;
	const struct flamegraph_opts *o;
	uint64_t total, base_total, thr;
	bool time; /* values are off-cpu nanoseconds */
	uint32_t maxdepth;
	double span, diff_scale;
};

static void put_frame(FILE *out, const struct draw *d, const struct node *nd)
{
	const char *name = strtab__str(d->f->lnames, nd->name);
	double x = XPAD, w = d->span;
	unsigned y;
	char fill[32], xs[32], ws[32], num[32], share[32];
	size_t fit, len;

	if (!name)
		name = UNKNOWN_NAME;
	if (d->total) {
		x = XPAD + (double)nd->start / (double)d->total * d->span;
		w = (double)nd->n / (double)d->total * d->span;
	}
	y = d->o->icicle ? TOP + nd->depth * ROWH : TOP + (d->maxdepth - nd->depth) * ROWH;
	if (d->o->base) {
		double s1 = d->total ? (double)nd->n / (double)d->total : 0;
		double s0 = d->base_total ? (double)nd->base / (double)d->base_total : 0;

		diff_fill(fill, sizeof(fill), (s1 - s0) / d->diff_scale);
	} else {
		frame_fill(fill, sizeof(fill), name, nd->depth <= 1 || nd->context);
	}
	fprintf(out, "<g class=\"f\" data-n=\"%llu\" data-s=\"%llu\"><title>",
		(unsigned long long)nd->n, (unsigned long long)nd->start);
	svg_text__put_all(out, name);
	svg_text__pct(share, sizeof(share), nd->n, d->total);
	fputs(" (", out);
	put_amount(out, nd->n, d->time);
	fprintf(out, ", %s%%", share);
	if (d->o->base) {
		double s1 = d->total ? (double)nd->n / (double)d->total : 0;
		double s0 = d->base_total ? (double)nd->base / (double)d->base_total : 0;
		char delta[32];

		if (d->time)
			units__format_elapsed(nd->base, num, sizeof(num));
		else
			svg_text__count(num, sizeof(num), nd->base);
		svg_text__pct(share, sizeof(share), nd->base, d->base_total);
		svg_text__fixed(delta, sizeof(delta), (s1 - s0) * 100, 1);
		fprintf(out, "; base %s, %s%%; change %s pts", num, share, delta);
	}
	svg_text__fixed(xs, sizeof(xs), x, 0);
	svg_text__fixed(ws, sizeof(ws), w, 0);
	fprintf(out, ")</title><rect x=\"%s\" y=\"%u\" width=\"%s\" height=\"%u\" fill=\"%s\"/>",
		xs, y, ws, FRAMEH, fill);
	svg_text__fixed(xs, sizeof(xs), x + 3, 0);
	fprintf(out, "<text x=\"%s\" y=\"%u\">", xs, y + 11);
	/* Same rule as the script's, so labels do not change on load. */
	fit = w > 6 ? (size_t)((w - 6) / (FONT_PX * CHAR_W)) : 0;
	len = svg_text__count_cps(name);
	if (len <= fit) {
		svg_text__put_all(out, name);
	} else if (fit >= 4) { /* "x.." tells nothing: two characters at least */
		svg_text__put(out, name, fit - 2);
		fputs("..", out);
	}
	fputs("</text></g>\n", out);
}

static int write_svg(FILE *out, const struct profile *p, const struct fg *f,
		     const struct order *ord, const struct flamegraph_opts *o, uint64_t thr)
{
	struct draw d;
	size_t i, drawn = 0;
	unsigned height;
	double maxabs = 0;

	memset(&d, 0, sizeof(d));
	d.f = f;
	d.o = o;
	d.total = f->nodes[0].n;
	d.time = in_time(p);
	d.base_total = o->base ? profile__total(o->base) : 0;
	d.thr = thr;
	d.span = (double)o->width - 2 * XPAD;
	for (i = 0; i < f->nnodes; i++) {
		const struct node *nd = &f->nodes[i];

		if (i && nd->n < thr)
			continue;
		drawn++;
		if (nd->depth > d.maxdepth)
			d.maxdepth = nd->depth;
		if (o->base) {
			double s1 = d.total ? (double)nd->n / (double)d.total : 0;
			double s0 = d.base_total ? (double)nd->base / (double)d.base_total : 0;
			double a = s1 > s0 ? s1 - s0 : s0 - s1;

			if (a > maxabs)
				maxabs = a;
		}
	}
	d.diff_scale = maxabs > MIN_DIFF_SCALE ? maxabs : MIN_DIFF_SCALE;
	height = TOP + (d.maxdepth + 1) * ROWH + BOTTOM;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	fprintf(out,
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"onload=\"init(evt)\" xmlns=\"http://www.w3.org/2000/svg\"%s>\n",
		o->width, height, o->width, height, o->base ? " class=\"diff\"" : "");
	fprintf(out, "<!-- smolder flame graph: %zu frames drawn, %zu not drawn (narrower than "
		     "the minimum width or past the frame cap) -->\n",
		drawn, f->nnodes - drawn);
	fprintf(out,
		"<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		"<stop offset=\"5%%\" stop-color=\"%s\"/><stop offset=\"95%%\" stop-color=\"%s\"/>"
		"</linearGradient></defs>\n",
		o->base ? "#ffffff" : "#eeeeee", o->base ? "#ececec" : "#eeeeb0");
	fprintf(out, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", flamegraph_viewer__style);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n"
		     "var fg = {width: %u, height: %u, xpad: %d, rowh: %d, rooty: %u, "
		     "total: %llu, fontsize: %d, charw: %s, searchfill: '%s'};\n",
		o->width, height, XPAD, ROWH,
		o->icicle ? TOP : TOP + d.maxdepth * ROWH, (unsigned long long)d.total, FONT_PX,
		"0.59", FLAMEGRAPH_SEARCH_FILL);
	fputs(flamegraph_viewer__script, out);
	fputs("]]></script>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#bg)\"/>\n",
		o->width, height);

	fprintf(out, "<g id=\"frames\" font-family=\"Verdana,DejaVu Sans,sans-serif\" "
		     "font-size=\"%d\">\n", FONT_PX);
	put_frame(out, &d, &f->nodes[0]);
	for (i = 0; i + 1 < f->nnodes; i++) {
		const struct node *nd = &f->nodes[ord[i].idx];

		if (nd->n >= thr)
			put_frame(out, &d, nd);
	}
	fputs("</g>\n", out);

	/* Header and footer come after the frames so that, kept in view by the
	 * script while a tall graph scrolls, they are painted over them. */
	fprintf(out, "<g id=\"hdr\"><rect x=\"0\" y=\"0\" width=\"%u\" height=\"%d\" fill=\"%s\"/>\n",
		o->width, TOP - 4, o->base ? "#ffffff" : "#eeeeee");
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"24\" font-size=\"17\">", o->width / 2);
	if (o->title)
		svg_text__put_all(out, o->title);
	else
		put_default_title(out, p, o);
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"subtitle\" x=\"%u\" y=\"42\" font-size=\"12\">", o->width / 2);
	if (o->subtitle)
		svg_text__put_all(out, o->subtitle);
	else
		put_default_subtitle(out, p, o, d.total);
	fputs("</text>\n", out);
	put_button(out, "reset", "btn off", XPAD, 86, "Reset Zoom");
	put_button(out, "search", "btn", o->width - XPAD - 62, 62, "Search");
	fputs("</g>\n", out);

	fprintf(out, "<g id=\"ftr\"><rect x=\"0\" y=\"%u\" width=\"%u\" height=\"%d\" fill=\"%s\"/>\n",
		height - BOTTOM + 4, o->width, BOTTOM - 4, o->base ? "#ececec" : "#eeeeb0");
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%u\" font-size=\"12\">", XPAD,
		height - 10);
	if (o->base)
		fputs("Red: share grew since the base, blue: shrank. ", out);
	fputs("Click a frame to zoom, Esc to reset, Ctrl-F to search.</text>\n", out);
	fprintf(out, "<text id=\"matched\" x=\"%u\" y=\"%u\" font-size=\"12\"></text>\n",
		o->width - XPAD, height - 10);
	fputs("</g>\n", out);
	fputs("</svg>\n", out);
	return 0;
}

int flamegraph__write(const struct profile *p, const struct flamegraph_opts *opts, FILE *out)
{
	struct flamegraph_opts o;
	struct order *ord = NULL;
	struct fg f;
	uint32_t root, rootname;
	uint64_t thr;
	int err;

	if (!p || !out)
		return -EINVAL;
	if (opts)
		o = *opts;
	else
		flamegraph__opts_init(&o);
	if (!o.width)
		o.width = DEFAULT_WIDTH;
	if (o.width < 100 || o.width > 100000)
		return -EINVAL;
	if (!(o.min_width_px >= 0)) /* negative or NaN */
		o.min_width_px = DEFAULT_MIN_WIDTH;
	if (!o.max_frames)
		o.max_frames = FLAMEGRAPH_MAX_FRAMES;

	memset(&f, 0, sizeof(f));
	err = -ENOMEM;
	f.lnames = strtab__new();
	f.children = u64map__new(1024);
	f.idmap = u64map__new(1024);
	if (!f.lnames || !f.children || !f.idmap)
		goto out_free;
	if (local_name(&f, "all", &rootname) < 0 || new_node(&f, UINT32_MAX, rootname, 0, &root) < 0)
		goto out_free;
	err = add_profile(&f, p, 0);
	if (!err && o.base)
		err = add_profile(&f, o.base, 1);
	if (!err)
		err = layout(&f, &ord);
	if (!err)
		err = threshold(&f, (double)o.width - 2 * XPAD, o.min_width_px, o.max_frames, &thr);
	if (err)
		goto out_free;
	err = write_svg(out, p, &f, ord, &o, thr);
	if (!err && (fflush(out) != 0 || ferror(out)))
		err = -EIO;
out_free:
	free(ord);
	free(f.nodes);
	free(f.tname);
	u64map__delete(f.idmap);
	u64map__delete(f.children);
	strtab__delete(f.lnames);
	return err;
}
