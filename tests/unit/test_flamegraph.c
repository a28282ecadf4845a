/* Unit tests of the SVG flame graph encoder: well-formed XML, frame widths,
 * escaping, icicle layout, differential colours, coalescing, titles. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "profile/profile.h"
#include "common/strtab.h"
#include "export/flamegraph.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

#define MAXF 256

struct frame {
	char title[512];
	char fill[32];
	char label[256];
	unsigned long long n, s;
	double x, y, w;
};

static struct strtab *names;

static void setup(void)
{
	names = strtab__new();
	cr_assert_not_null(names);
}

static void teardown(void)
{
	strtab__delete(names);
}

static uint32_t id(const char *s)
{
	uint32_t i;

	cr_assert_eq(strtab__intern_cstr(names, s, &i), 0);
	return i;
}

static struct profile_key key(const char *comm)
{
	struct profile_key k;

	memset(&k, 0, sizeof(k));
	k.service_name = id("svc");
	k.exe = id("/bin/app");
	k.comm = id(comm);
	k.pid = -1;
	return k;
}

/* Adds "f1;f2;..." (frames separated by ';') count times to comm's group. */
static void add(struct profile *p, const char *comm, const char *stack, uint64_t count)
{
	struct profile_key k = key(comm);
	uint32_t fr[64];
	size_t n = 0;
	const char *s = stack;

	while (*s) {
		const char *e = strchr(s, ';');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		cr_assert_lt(n, 64);
		cr_assert_eq(strtab__intern(names, s, len, &fr[n]), 0);
		n++;
		s += len;
		if (*s == ';')
			s++;
	}
	cr_assert_eq(profile__add(p, &k, fr, n, count), 0);
}

static struct profile *new_profile(void)
{
	struct profile *p = profile__new(names);

	cr_assert_not_null(p);
	return p;
}

static char *render(const struct profile *p, const struct flamegraph_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	cr_assert_not_null(f);
	err = flamegraph__write(p, o, f);
	fclose(f);
	cr_assert_eq(err, 0, "flamegraph__write: %d", err);
	cr_assert_not_null(buf);
	return buf;
}

/* Copies the text between after and the next stop, starting at *s. */
static int take(const char **s, const char *after, const char *stop, char *dst, size_t cap)
{
	const char *a = strstr(*s, after), *b;
	size_t l;

	if (!a)
		return -1;
	a += strlen(after);
	b = strstr(a, stop);
	if (!b)
		return -1;
	l = (size_t)(b - a);
	if (l >= cap)
		l = cap - 1;
	memcpy(dst, a, l);
	dst[l] = '\0';
	*s = b + strlen(stop);
	return 0;
}

/* Reads every <g class="f"> back; the attribute order is the encoder's. */
static size_t parse_frames(const char *svg, struct frame *fr, size_t max)
{
	const char *s = svg;
	size_t n = 0;

	while ((s = strstr(s, "<g class=\"f\"")) != NULL) {
		char tmp[64];
		struct frame *f = &fr[n];

		cr_assert_lt(n, max);
		memset(f, 0, sizeof(*f));
		cr_assert_eq(take(&s, "data-n=\"", "\"", tmp, sizeof(tmp)), 0);
		f->n = strtoull(tmp, NULL, 10);
		cr_assert_eq(take(&s, "data-s=\"", "\"", tmp, sizeof(tmp)), 0);
		f->s = strtoull(tmp, NULL, 10);
		cr_assert_eq(take(&s, "<title>", "</title>", f->title, sizeof(f->title)), 0);
		cr_assert_eq(take(&s, "<rect x=\"", "\"", tmp, sizeof(tmp)), 0);
		f->x = strtod(tmp, NULL);
		cr_assert_eq(take(&s, "y=\"", "\"", tmp, sizeof(tmp)), 0);
		f->y = strtod(tmp, NULL);
		cr_assert_eq(take(&s, "width=\"", "\"", tmp, sizeof(tmp)), 0);
		f->w = strtod(tmp, NULL);
		cr_assert_eq(take(&s, "fill=\"", "\"", f->fill, sizeof(f->fill)), 0);
		cr_assert_eq(take(&s, "\">", "</text>", f->label, sizeof(f->label)), 0);
		n++;
	}
	return n;
}

/* The frame whose (escaped) name is name: its title is "name (...". */
static const struct frame *find(const struct frame *fr, size_t n, const char *name)
{
	size_t i, l = strlen(name);

	for (i = 0; i < n; i++)
		if (!strncmp(fr[i].title, name, l) && !strncmp(fr[i].title + l, " (", 2))
			return &fr[i];
	return NULL;
}

static const struct frame *must_find(const struct frame *fr, size_t n, const char *name)
{
	const struct frame *f = find(fr, n, name);

	cr_assert_not_null(f, "no frame %s", name);
	return f;
}

/* Parses the document with a real XML parser (Python's expat). */
static void assert_xml(const char *svg)
{
	char path[] = "/tmp/test_flamegraph_XXXXXX";
	char cmd[256];
	int fd = mkstemp(path), rc;
	FILE *f;

	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs(svg, f) >= 0, 1);
	cr_assert_eq(fclose(f), 0);
	if (system("command -v python3 >/dev/null 2>&1") != 0) {
		unlink(path);
		cr_skip_test("python3 is not installed: cannot parse the SVG");
	}
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import sys, xml.etree.ElementTree as E; "
		 "r = E.parse(sys.argv[1]).getroot(); "
		 "sys.exit(0 if r.tag == \"{http://www.w3.org/2000/svg}svg\" else 3)' %s",
		 path);
	rc = system(cmd);
	unlink(path);
	cr_assert_eq(rc, 0, "the SVG is not well-formed XML (python3 exit %d)", rc);
}

static int is_red(const char *fill)
{
	unsigned r, g, b;

	return sscanf(fill, "rgb(%u,%u,%u)", &r, &g, &b) == 3 && r > g + 30 && r > b + 30;
}

static int is_blue(const char *fill)
{
	unsigned r, g, b;

	return sscanf(fill, "rgb(%u,%u,%u)", &r, &g, &b) == 3 && b > r + 30 && b > g + 30;
}

TestSuite(flamegraph, .init = setup, .fini = teardown);

/* app: main;a x3, main;b x1 */
Test(flamegraph, widths_proportional_to_samples)
{
	struct profile *p = new_profile();
	struct frame fr[MAXF];
	const struct frame *all, *app, *mainf, *a, *b;
	char *svg;
	size_t n;

	add(p, "app", "main;a", 3);
	add(p, "app", "main;b", 1);
	svg = render(p, NULL);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(n, 5, "%zu frames", n);
	all = must_find(fr, n, "all");
	app = must_find(fr, n, "app");
	mainf = must_find(fr, n, "main");
	a = must_find(fr, n, "a");
	b = must_find(fr, n, "b");
	cr_assert_eq(all->n, 4);
	cr_assert_eq(app->n, 4);
	cr_assert_eq(a->n, 3);
	cr_assert_eq(b->n, 1);
	cr_assert_float_eq(all->w, 1180.0, 0.01);
	cr_assert_float_eq(mainf->w, all->w, 1.0);
	cr_assert_float_eq(a->w, all->w * 3 / 4, 1.0, "a: %f of %f", a->w, all->w);
	cr_assert_float_eq(b->w, all->w / 4, 1.0);
	/* siblings sorted by name and adjacent; children start at the parent */
	cr_assert_float_eq(a->x, mainf->x, 0.01);
	cr_assert_float_eq(b->x, a->x + a->w, 0.02);
	cr_assert_eq(a->s, 0);
	cr_assert_eq(b->s, 3);
	/* a flame grows upwards: the root is the lowest row */
	cr_assert_gt(all->y, app->y);
	cr_assert_gt(app->y, mainf->y);
	cr_assert_gt(mainf->y, a->y);
	cr_assert_float_eq(a->y, b->y, 0.01);
	cr_assert(strstr(all->title, "4 samples, 100.00%") != NULL, "%s", all->title);
	cr_assert(strstr(a->title, "3 samples, 75.00%") != NULL, "%s", a->title);
	cr_assert_str_eq(mainf->label, "main");
	/* interactive parts are embedded, nothing is fetched */
	cr_assert(strstr(svg, "<script type=\"text/ecmascript\"><![CDATA[") != NULL);
	cr_assert(strstr(svg, "id=\"reset\"") != NULL);
	cr_assert(strstr(svg, "id=\"search\"") != NULL);
	cr_assert(strstr(svg, "id=\"matched\"") != NULL);
	cr_assert_null(strstr(svg, "http://www.w3.org/1999/xlink"));
	cr_assert_null(strstr(svg, "href"));
	free(svg);
	profile__delete(p);
}

Test(flamegraph, processes_are_the_second_level)
{
	struct profile *p = new_profile();
	struct profile_key k;
	struct frame fr[MAXF];
	const struct frame *a, *b;
	uint32_t f1;
	char *svg;
	size_t n;

	add(p, "alpha", "main;x", 2);
	add(p, "beta", "main;x", 6);
	/* same comm, other exe: merged into one process frame */
	k = key("beta");
	k.exe = id("/bin/other");
	f1 = id("main");
	cr_assert_eq(profile__add(p, &k, &f1, 1, 2), 0);
	/* no comm: the service name; an empty stack is self time of it */
	k = key("");
	k.service_name = id("nginx.service");
	cr_assert_eq(profile__add(p, &k, NULL, 0, 5), 0);
	svg = render(p, NULL);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	a = must_find(fr, n, "alpha");
	b = must_find(fr, n, "beta");
	cr_assert_eq(a->n, 2);
	cr_assert_eq(b->n, 8);
	cr_assert_eq(must_find(fr, n, "nginx.service")->n, 5);
	cr_assert_eq(must_find(fr, n, "all")->n, 15);
	cr_assert_float_eq(a->y, b->y, 0.01);
	free(svg);
	profile__delete(p);
}

/* Grouped per thread: a thread frame between the process and its stacks,
 * in the colour of the process frames, not of code. */
Test(flamegraph, threads_are_the_third_level)
{
	struct profile *p = new_profile();
	struct profile_key k = key("app");
	struct frame fr[MAXF];
	const struct frame *app, *ta, *tb, *tu, *x;
	uint32_t f[2] = {id("start_thread"), id("spin")};
	unsigned r, g, b;
	char *svg;
	size_t n;

	k.thread = id("worker-a");
	cr_assert_eq(profile__add(p, &k, f, 2, 3), 0);
	k.thread = id("worker-b");
	cr_assert_eq(profile__add(p, &k, f, 2, 5), 0);
	k.thread = id("");
	cr_assert_eq(profile__add(p, &k, f, 2, 1), 0);
	add(p, "other", "main", 2); /* not one thread's: no thread frame */
	svg = render(p, NULL);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	app = must_find(fr, n, "app");
	ta = must_find(fr, n, "[thread worker-a]");
	tb = must_find(fr, n, "[thread worker-b]");
	tu = must_find(fr, n, "[unknown thread]");
	cr_assert_eq(app->n, 9);
	cr_assert_eq(ta->n, 3);
	cr_assert_eq(tb->n, 5);
	cr_assert_eq(tu->n, 1);
	cr_assert_float_eq(ta->y, tb->y, 0.01);
	cr_assert_float_eq(ta->y, app->y - 16, 0.01, "one row above its process");
	x = must_find(fr, n, "main");
	cr_assert_float_eq(x->y, app->y - 16, 0.01, "stacks of a process without threads on it");
	cr_assert_eq(sscanf(ta->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
	cr_assert(b > r && b > g, "threads are lavender like processes: %s", ta->fill);
	free(svg);
	profile__delete(p);
}

Test(flamegraph, names_are_escaped)
{
	struct profile *p = new_profile();
	struct frame fr[MAXF];
	char *svg;
	size_t n;

	add(p, "a&b", "main;operator<<(std::ostream&, \"x\", 'y')>", 3);
	add(p, "a&b", "main;]]>--", 1);
	svg = render(p, NULL);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	must_find(fr, n, "a&amp;b");
	must_find(fr, n, "operator&lt;&lt;(std::ostream&amp;, &quot;x&quot;, &apos;y&apos;)&gt;");
	must_find(fr, n, "]]&gt;--");
	cr_assert_null(strstr(svg, "<<"));
	free(svg);
	profile__delete(p);
}

Test(flamegraph, invalid_utf8_and_controls_keep_xml_valid)
{
	struct profile *p = new_profile();
	struct frame fr[MAXF];
	char *svg;
	size_t n;

	/* stray continuation byte, 0xff, a control char, an encoded surrogate,
	 * an overlong '/', a truncated sequence at the end, U+FFFF, and valid
	 * UTF-8 that must survive */
	add(p, "app", "main;bad\x80\xff\x01name;\xed\xa0\x80sur;\xc0\xafover;tail\xe2\x82;"
		      "nonchar\xef\xbf\xbf;caf\xc3\xa9_\xe2\x82\xac", 2);
	svg = render(p, NULL);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	must_find(fr, n, "bad\xef\xbf\xbd\xef\xbf\xbd?name");
	must_find(fr, n, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdsur");
	must_find(fr, n, "\xef\xbf\xbd\xef\xbf\xbdover");
	must_find(fr, n, "tail\xef\xbf\xbd\xef\xbf\xbd");
	must_find(fr, n, "nonchar\xef\xbf\xbd");
	must_find(fr, n, "caf\xc3\xa9_\xe2\x82\xac");
	free(svg);
	profile__delete(p);
}

Test(flamegraph, icicle_puts_the_root_on_top)
{
	struct profile *p = new_profile();
	struct flamegraph_opts o;
	struct frame fr[MAXF];
	const struct frame *all;
	char *svg;
	size_t n, i;

	add(p, "app", "main;a;b;c", 3);
	add(p, "app", "main;d", 1);
	flamegraph__opts_init(&o);
	o.icicle = 1;
	svg = render(p, &o);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(n, 7);
	all = must_find(fr, n, "all");
	for (i = 0; i < n; i++)
		if (&fr[i] != all)
			cr_assert_gt(fr[i].y, all->y, "%s above the root", fr[i].title);
	cr_assert_gt(must_find(fr, n, "c")->y, must_find(fr, n, "b")->y);
	cr_assert(strstr(svg, "Icicle graph") != NULL);
	free(svg);
	profile__delete(p);
}

Test(flamegraph, diff_against_itself_is_neutral)
{
	struct profile *p = new_profile();
	struct flamegraph_opts o;
	struct frame fr[MAXF];
	char *svg;
	size_t n, i;

	add(p, "app", "main;a;x_[k]", 7);
	add(p, "app", "main;b_[i]", 3);
	add(p, "db", "run;q", 11);
	flamegraph__opts_init(&o);
	o.base = p;
	svg = render(p, &o);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(n, 9);
	for (i = 0; i < n; i++) {
		cr_assert_str_eq(fr[i].fill, FLAMEGRAPH_DIFF_NEUTRAL, "%s", fr[i].title);
		cr_assert(strstr(fr[i].title, "change +0.00 pts") != NULL, "%s", fr[i].title);
	}
	free(svg);
	profile__delete(p);
}

Test(flamegraph, diff_same_shares_other_totals_is_neutral)
{
	struct profile *p = new_profile(), *base = new_profile();
	struct flamegraph_opts o;
	struct frame fr[MAXF];
	char *svg;
	size_t n, i;

	add(p, "app", "main;a", 6);
	add(p, "app", "main;b", 3);
	add(base, "app", "main;a", 2);
	add(base, "app", "main;b", 1);
	flamegraph__opts_init(&o);
	o.base = base;
	svg = render(p, &o);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(n, 5);
	for (i = 0; i < n; i++)
		cr_assert_str_eq(fr[i].fill, FLAMEGRAPH_DIFF_NEUTRAL, "%s", fr[i].title);
	free(svg);
	profile__delete(base);
	profile__delete(p);
}

Test(flamegraph, diff_colours_grown_red_shrunk_blue)
{
	struct profile *p = new_profile(), *base = new_profile();
	struct strtab *bnames = strtab__new();
	struct flamegraph_opts o;
	struct frame fr[MAXF];
	const struct frame *a, *b;
	struct profile_key k;
	uint32_t bf[3];
	char *svg;
	size_t n;

	/* The base has its own string table, as a dump read separately would. */
	cr_assert_not_null(bnames);
	profile__delete(base);
	base = profile__new(bnames);
	cr_assert_not_null(base);
	memset(&k, 0, sizeof(k));
	k.pid = -1;
	cr_assert_eq(strtab__intern_cstr(bnames, "app", &k.comm), 0);
	cr_assert_eq(strtab__intern_cstr(bnames, "b", &bf[2]), 0);
	cr_assert_eq(strtab__intern_cstr(bnames, "main", &bf[0]), 0);
	cr_assert_eq(strtab__intern_cstr(bnames, "a", &bf[1]), 0);
	cr_assert_eq(profile__add(base, &k, bf, 2, 2), 0);      /* main;a 2 */
	bf[1] = bf[2];
	cr_assert_eq(profile__add(base, &k, bf, 2, 2), 0);      /* main;b 2 */

	add(p, "app", "main;a", 4); /* doubled */
	add(p, "app", "main;b", 2);
	add(p, "app", "main;new", 1);
	flamegraph__opts_init(&o);
	o.base = base;
	svg = render(p, &o);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(n, 6);
	a = must_find(fr, n, "a");
	b = must_find(fr, n, "b");
	cr_assert(is_red(a->fill), "a: %s", a->fill);
	cr_assert(is_blue(b->fill), "b: %s", b->fill);
	cr_assert(is_red(must_find(fr, n, "new")->fill), "new: %s", must_find(fr, n, "new")->fill);
	cr_assert_str_eq(must_find(fr, n, "main")->fill, FLAMEGRAPH_DIFF_NEUTRAL);
	cr_assert_str_eq(must_find(fr, n, "all")->fill, FLAMEGRAPH_DIFF_NEUTRAL);
	/* widths are the new profile's: a = 4/7 */
	cr_assert_float_eq(a->w, must_find(fr, n, "all")->w * 4 / 7, 1.0);
	/* 4/7 - 2/4 = +7.14 points; 2/7 - 2/4 = -21.43 */
	cr_assert(strstr(a->title, "base 2, 50.00%; change +7.14 pts") != NULL, "%s", a->title);
	cr_assert(strstr(b->title, "change -21.43 pts") != NULL, "%s", b->title);
	cr_assert(strstr(svg, "vs 4 in the base") != NULL);
	free(svg);
	profile__delete(base);
	profile__delete(p);
	strtab__delete(bnames);
}

Test(flamegraph, narrow_frames_are_coalesced_into_their_parents)
{
	struct profile *p = new_profile();
	struct frame fr[MAXF];
	char *svg;
	size_t n;

	add(p, "app", "main;big", 100000);
	add(p, "app", "main;tiny;deeper", 1); /* 0.012 px at 1200 px */
	svg = render(p, NULL);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(n, 4);
	cr_assert_null(find(fr, n, "tiny"));
	cr_assert_null(find(fr, n, "deeper"));
	cr_assert_eq(must_find(fr, n, "main")->n, 100001);
	cr_assert_eq(must_find(fr, n, "all")->n, 100001);
	cr_assert(strstr(svg, "4 frames drawn, 2 not drawn") != NULL);
	free(svg);
	profile__delete(p);
}

Test(flamegraph, min_width_zero_draws_everything)
{
	struct profile *p = new_profile();
	struct flamegraph_opts o;
	struct frame fr[MAXF];
	char *svg;
	size_t n;

	add(p, "app", "main;big", 100000);
	add(p, "app", "main;tiny;deeper", 1);
	flamegraph__opts_init(&o);
	o.min_width_px = 0;
	svg = render(p, &o);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(n, 6);
	cr_assert_eq(must_find(fr, n, "deeper")->n, 1);
	free(svg);
	profile__delete(p);
}

Test(flamegraph, frame_cap_keeps_the_widest)
{
	struct profile *p = new_profile();
	struct flamegraph_opts o;
	struct frame fr[MAXF];
	char stack[32];
	char *svg;
	size_t n, i;

	for (i = 1; i <= 10; i++) {
		snprintf(stack, sizeof(stack), "main;f%02zu", i);
		add(p, "app", stack, i * 10);
	}
	flamegraph__opts_init(&o);
	o.max_frames = 6; /* all, app, main + the three widest leaves */
	svg = render(p, &o);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(n, 6);
	must_find(fr, n, "f10");
	must_find(fr, n, "f09");
	must_find(fr, n, "f08");
	cr_assert_null(find(fr, n, "f07"));
	cr_assert_eq(must_find(fr, n, "all")->n, 550);
	/* the kept leaves stay where they are in the full graph */
	cr_assert_eq(must_find(fr, n, "f08")->s, 280);
	free(svg);
	profile__delete(p);
}

Test(flamegraph, labels_fit_their_frames)
{
	struct profile *p = new_profile();
	struct frame fr[MAXF];
	const struct frame *l, *s;
	char *svg;
	size_t n;

	add(p, "app", "main;a_very_long_function_name_that_cannot_fit_in_a_narrow_frame", 10);
	add(p, "app", "main;zzz", 990);
	svg = render(p, NULL);
	n = parse_frames(svg, fr, MAXF);
	l = must_find(fr, n, "a_very_long_function_name_that_cannot_fit_in_a_narrow_frame");
	s = must_find(fr, n, "zzz");
	/* 11.8 px: only one char fits: no label */
	cr_assert_float_eq(l->w, 11.8, 0.01);
	cr_assert_str_eq(l->label, "");
	cr_assert_str_eq(s->label, "zzz");
	free(svg);
	profile__delete(p);

	p = new_profile();
	add(p, "app", "main;a_very_long_function_name_that_cannot_fit_in_a_narrow_frame", 100);
	add(p, "app", "main;zzz", 900);
	svg = render(p, NULL);
	n = parse_frames(svg, fr, MAXF);
	l = must_find(fr, n, "a_very_long_function_name_that_cannot_fit_in_a_narrow_frame");
	/* 118 px: (118 - 6) / 7.08 = 15 chars, the last two "..". */
	cr_assert_str_eq(l->label, "a_very_long_f..");
	free(svg);
	profile__delete(p);
}

Test(flamegraph, title_and_subtitle)
{
	struct profile *p = new_profile();
	struct profile_meta *m = profile__meta(p);
	struct flamegraph_opts o;
	char *svg;

	add(p, "app", "main", 12345);
	m->hostname = "web01";
	m->start_ns = 1763740800000000000ull; /* 2025-11-21 16:00:00 UTC */
	m->end_ns = 1763740810000000000ull;
	m->event_name = "cpu-clock";
	m->frequency_hz = 99;
	svg = render(p, NULL);
	assert_xml(svg);
	cr_assert(strstr(svg, ">Flame graph: web01, 2025-11-21 16:00:00 \xe2\x80\x93 16:00:10 UTC<")
		  != NULL);
	cr_assert(strstr(svg, ">12,345 samples (cpu-clock, 99 Hz)<") != NULL);
	free(svg);

	flamegraph__opts_init(&o);
	o.title = "CPU: web01 & web02 <prod>";
	o.subtitle = "12,345 samples, 99 Hz";
	o.width = 800;
	svg = render(p, &o);
	assert_xml(svg);
	cr_assert(strstr(svg, ">CPU: web01 &amp; web02 &lt;prod&gt;</text>") != NULL);
	cr_assert(strstr(svg, ">12,345 samples, 99 Hz</text>") != NULL);
	cr_assert(strstr(svg, "width=\"800\"") != NULL);
	free(svg);
	profile__delete(p);
}

Test(flamegraph, empty_profile_is_a_valid_document)
{
	struct profile *p = new_profile();
	struct frame fr[MAXF];
	char *svg;
	size_t n;

	svg = render(p, NULL);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(n, 1);
	cr_assert_eq(fr[0].n, 0);
	cr_assert(strstr(fr[0].title, "all (0 samples, 0.00%)") != NULL, "%s", fr[0].title);
	free(svg);
	profile__delete(p);
}

Test(flamegraph, colours_are_deterministic_by_kind)
{
	struct profile *p = new_profile();
	struct frame fr[MAXF];
	char *svg, *again;
	unsigned r, g, b;
	size_t n;

	add(p, "app", "main;jitted_[j]", 1);
	add(p, "app", "main;inl_[i]", 1);
	add(p, "app", "main;sys_read_[k]", 1);
	svg = render(p, NULL);
	again = render(p, NULL);
	cr_assert_str_eq(svg, again);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(sscanf(must_find(fr, n, "jitted_[j]")->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
	cr_assert(g > r && g > b, "JIT frames are green");
	cr_assert_eq(sscanf(must_find(fr, n, "sys_read_[k]")->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
	cr_assert(r > g && g > b && r >= 230, "kernel frames are orange");
	cr_assert_eq(sscanf(must_find(fr, n, "inl_[i]")->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
	cr_assert(g > r && b > r, "inlined frames are aqua");
	free(again);
	free(svg);
	profile__delete(p);
}

Test(flamegraph, errors)
{
	struct profile *p = new_profile();
	struct flamegraph_opts o;
	FILE *full = fopen("/dev/full", "w");

	add(p, "app", "main", 1);
	flamegraph__opts_init(&o);
	o.width = 10;
	cr_assert_eq(flamegraph__write(p, &o, stdout), -EINVAL);
	cr_assert_eq(flamegraph__write(NULL, NULL, stdout), -EINVAL);
	if (full) {
		cr_assert_eq(flamegraph__write(p, NULL, full), -EIO);
		fclose(full);
	}
	profile__delete(p);
}

/* A user's process is a process frame of its own, "comm@USER", never
 * merged into root's of the same name. */
Test(flamegraph, a_users_process_is_not_roots)
{
	struct profile *p = new_profile();
	struct profile_key k = key("postgres");
	struct frame fr[MAXF];
	uint32_t f = id("main");
	char *svg;
	size_t n;

	cr_assert_eq(profile__add(p, &k, &f, 1, 4), 0);
	k.user = id("alice");
	cr_assert_eq(profile__add(p, &k, &f, 1, 3), 0);
	svg = render(p, NULL);
	assert_xml(svg);
	n = parse_frames(svg, fr, MAXF);
	cr_assert_eq(must_find(fr, n, "postgres")->n, 4);
	cr_assert_eq(must_find(fr, n, "postgres@alice")->n, 3);
	free(svg);
	profile__delete(p);
}
