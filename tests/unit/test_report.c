/* Unit tests of `smolder report`'s modules: merging dumps with filters,
 * time parsing, the protobuf writer, the pprof encoder (decoded back by a
 * minimal protobuf reader below) and the differential top table. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "profile/profile.h"
#include "common/strtab.h"
#include "export/dump_merge.h"
#include "export/dump_read.h"
#include "export/pprof.h"
#include "export/protobuf.h"
#include "export/top.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif
#define FIX SRCDIR "/tests/fixtures/report/"
#define T0 1763740800ull /* a.json's window start, 2025-11-21T16:00:00Z */
#define S (1000000000ull)

/* --- helpers ------------------------------------------------------------ */

static struct dump *load(const char *name)
{
	char path[512], err[256] = "";
	struct dump *d = NULL;
	int rc;

	snprintf(path, sizeof(path), FIX "%s", name);
	rc = dump__read_file(path, &d, NULL, NULL, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s: %d %s", path, rc, err);
	return d;
}

static void filter_init(struct dump_merge_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->until_ns = UINT64_MAX;
	f->pid = -1;
}

/* Merges the named fixtures into a new merge over names. */
static struct dump_merge *merge(struct strtab *names, const struct dump_merge_filter *f,
				const char *const *files)
{
	struct dump_merge *m = dump_merge__new(names, f);
	size_t i;

	cr_assert_not_null(m);
	for (i = 0; files[i]; i++) {
		struct dump *d = load(files[i]);

		cr_assert_eq(dump_merge__add(m, d), 0);
		dump__delete(d);
	}
	return m;
}

struct find {
	const struct strtab *names;
	const char *stack;
	uint64_t count;
};

static int find_stack(void *ctx, const uint32_t *frames, size_t n, uint64_t count)
{
	struct find *f = ctx;
	char buf[1024] = "";
	size_t i, len = 0;

	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ";" : "",
					strtab__str(f->names, frames[i]));
	if (strcmp(buf, f->stack) == 0)
		f->count += count;
	return 0;
}

/* Sum of count of stack (collapsed string) over the groups of p. */
static uint64_t stack_count(const struct profile *p, const char *stack)
{
	struct find f = { profile__names(p), stack, 0 };
	size_t g;

	for (g = 0; g < profile__ngroups(p); g++)
		profile__foreach_stack(p, g, find_stack, &f);
	return f.count;
}

static const char *key_str(const struct profile *p, uint32_t id)
{
	return id ? strtab__str(profile__names(p), id) : "";
}

/* --- protobuf ----------------------------------------------------------- */

static void expect_bytes(const struct protobuf *b, const uint8_t *want, size_t n)
{
	size_t i;

	cr_assert_eq(b->err, 0);
	cr_assert_eq(b->len, n, "length %zu, expected %zu", b->len, n);
	for (i = 0; i < n; i++)
		cr_assert_eq(b->buf[i], want[i], "byte %zu: %02x, expected %02x", i, b->buf[i], want[i]);
}

Test(protobuf, varints)
{
	static const struct { uint64_t v; uint8_t bytes[10]; size_t n; } cases[] = {
		{ 0, {0x00}, 1 },
		{ 1, {0x01}, 1 },
		{ 127, {0x7f}, 1 },
		{ 128, {0x80, 0x01}, 2 },
		{ 150, {0x96, 0x01}, 2 },
		{ 300, {0xac, 0x02}, 2 },
		{ 16384, {0x80, 0x80, 0x01}, 3 },
		{ UINT64_MAX, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct protobuf b;

		protobuf__init(&b);
		cr_assert_eq(protobuf__varint(&b, cases[i].v), 0);
		expect_bytes(&b, cases[i].bytes, cases[i].n);
		cr_assert_eq(protobuf__varint_size(cases[i].v), cases[i].n);
		protobuf__free(&b);
	}
}

Test(protobuf, fields)
{
	/* The examples of the protobuf encoding guide. */
	static const uint8_t int_field[] = {0x08, 0x96, 0x01};
	static const uint8_t str_field[] = {0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'};
	static const uint8_t embedded[] = {0x1a, 0x03, 0x08, 0x96, 0x01};
	static const uint8_t packed[] = {0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05};
	static const uint8_t neg[] = {0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	static const uint64_t pv[] = {3, 270, 86942};
	struct protobuf b, sub;

	protobuf__init(&b);
	protobuf__init(&sub);
	protobuf__uint64(&b, 1, 150);
	expect_bytes(&b, int_field, sizeof(int_field));

	protobuf__reset(&b);
	protobuf__string(&b, 2, "testing");
	expect_bytes(&b, str_field, sizeof(str_field));

	protobuf__reset(&b);
	protobuf__uint64(&sub, 1, 150);
	protobuf__message(&b, 3, &sub);
	expect_bytes(&b, embedded, sizeof(embedded));

	protobuf__reset(&b);
	protobuf__packed_uint64(&b, 4, pv, 3);
	expect_bytes(&b, packed, sizeof(packed));

	protobuf__reset(&b);
	protobuf__packed_uint64(&b, 4, pv, 0); /* empty: nothing at all */
	cr_assert_eq(b.len, 0);

	protobuf__int64(&b, 2, -1); /* int64: ten-byte two's complement */
	expect_bytes(&b, neg, sizeof(neg));

	/* A long string needs a two-byte length. */
	protobuf__reset(&b);
	{
		char s[201];

		memset(s, 'x', 200);
		s[200] = '\0';
		protobuf__string(&b, 6, s);
		cr_assert_eq(b.len, 1 + 2 + 200);
		cr_assert_eq(b.buf[0], 0x32);
		cr_assert_eq(b.buf[1], 0xc8);
		cr_assert_eq(b.buf[2], 0x01);
	}
	protobuf__free(&b);
	protobuf__free(&sub);
}

/* --- merging and filters ------------------------------------------------ */

Test(merge, two_dumps_double_the_counts)
{
	static const char *const one[] = {"a.json", NULL}, *const two[] = {"a.json", "b.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m1, *m2;
	const struct profile *p1, *p2;
	const struct dump_merge_info *in;
	struct profile_group g;
	size_t i;
	int seen_nginx = 0, seen_redis = 0;

	filter_init(&f);
	m1 = merge(names, &f, one);
	m2 = merge(names, &f, two);
	p1 = dump_merge__profile(m1);
	p2 = dump_merge__profile(m2);
	cr_assert_eq(profile__total(p1), 15);
	cr_assert_eq(profile__total(p2), 30);
	cr_assert_eq(profile__samples(p2), 30);
	cr_assert_eq(stack_count(p1, "main;ngx_process_events_and_timers;epoll_wait;do_epoll_wait_[k]"), 6);
	cr_assert_eq(stack_count(p2, "main;ngx_process_events_and_timers;epoll_wait;do_epoll_wait_[k]"), 12);
	cr_assert_eq(stack_count(p2, "main;compute;hot_[i];hotter_[i]"), 4);
	cr_assert_eq(stack_count(p2, ""), 2);
	cr_assert_eq(profile__nstacks(p2), profile__nstacks(p1), "same stacks, merged");
	cr_assert_eq(profile__ngroups(p2), 2);
	for (i = 0; i < profile__ngroups(p2); i++) {
		profile__group(p2, i, &g);
		cr_assert_eq(g.key.pid, -1);
		if (!strcmp(key_str(p2, g.key.service_name), "nginx")) {
			seen_nginx = 1;
			cr_assert_str_eq(key_str(p2, g.key.exe), "/usr/sbin/nginx");
			cr_assert_str_eq(key_str(p2, g.key.comm), "nginx");
			cr_assert_eq(g.samples, 22);
		} else {
			seen_redis = 1;
			cr_assert_str_eq(key_str(p2, g.key.service_name), "redis");
			cr_assert_str_eq(key_str(p2, g.key.exe), "/usr/bin/redis-server");
			cr_assert_str_eq(key_str(p2, g.key.comm), "redis-server");
			cr_assert_eq(g.samples, 8);
		}
	}
	cr_assert(seen_nginx && seen_redis);
	in = dump_merge__info(m2);
	cr_assert_eq(in->dumps, 2);
	cr_assert_eq(in->dumps_used, 2);
	cr_assert_eq(in->samples, 30);
	cr_assert_eq(in->start_ns, T0 * S);
	cr_assert_eq(in->end_ns, (T0 + 20) * S);
	cr_assert_str_eq(in->hosts, "web01");
	cr_assert_eq(in->min_hz, 99);
	cr_assert_eq(in->cpu_ns, 30ull * 10101010);
	/* Meta of the merged window: common global labels kept. */
	{
		const struct profile_meta *meta = profile__meta_const(p2);

		cr_assert_eq(meta->nlabels, 2);
		cr_assert_str_eq(meta->label_names[0], "env");
		cr_assert_str_eq(meta->label_values[0], "prod");
		cr_assert_eq(meta->frequency_hz, 99);
		cr_assert_null(meta->window_id);
	}
	dump_merge__delete(m1);
	dump_merge__delete(m2);
	strtab__delete(names);
}

Test(merge, hosts_labels_and_frequencies_of_different_dumps)
{
	static const char *const files[] = {"a.json", "c.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	const struct profile_meta *meta;
	const struct dump_merge_info *in;
	struct profile_group g;
	size_t i, pids = 0;

	filter_init(&f);
	m = merge(names, &f, files);
	meta = profile__meta_const(dump_merge__profile(m));
	in = dump_merge__info(m);
	cr_assert_str_eq(meta->hostname, "web01, web02");
	cr_assert_eq(in->nhosts, 2);
	cr_assert_eq(meta->nlabels, 0, "env differs, dc is missing in c.json");
	cr_assert_eq(in->min_hz, 49);
	cr_assert_eq(in->max_hz, 99);
	/* Each dump's samples count with its own period. */
	cr_assert_eq(in->cpu_ns, 15ull * 10101010 + 5ull * 20408163);
	for (i = 0; i < profile__ngroups(dump_merge__profile(m)); i++) {
		profile__group(dump_merge__profile(m), i, &g);
		pids += g.key.pid == 100 || g.key.pid == 101;
	}
	cr_assert_eq(pids, 2, "per-pid groups keep their pid");
	cr_assert_eq(profile__ngroups(dump_merge__profile(m)), 4);
	dump_merge__delete(m);
	strtab__delete(names);
}

static uint64_t merged_with(const struct dump_merge_filter *f, size_t *in_range)
{
	static const char *const files[] = {"a.json", "b.json", "c.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge *m = merge(names, f, files);
	uint64_t total = profile__total(dump_merge__profile(m));

	cr_assert_eq(total, dump_merge__info(m)->samples);
	if (in_range)
		*in_range = dump_merge__info(m)->dumps_in_range;
	dump_merge__delete(m);
	strtab__delete(names);
	return total;
}

Test(merge, time_range_by_overlap)
{
	struct dump_merge_filter f;
	size_t n;

	/* Windows: a [T0, T0+10), b [T0+10, T0+20), c [T0+20, T0+30). */
	filter_init(&f);
	cr_assert_eq(merged_with(&f, &n), 35);
	cr_assert_eq(n, 3);

	f.from_ns = (T0 + 10) * S; /* a ends exactly there: no overlap */
	cr_assert_eq(merged_with(&f, &n), 20);
	cr_assert_eq(n, 2);

	f.from_ns = 0;
	f.until_ns = (T0 + 10) * S; /* b starts exactly there: excluded */
	cr_assert_eq(merged_with(&f, &n), 15);
	cr_assert_eq(n, 1);

	f.from_ns = (T0 + 5) * S;
	f.until_ns = (T0 + 15) * S;
	cr_assert_eq(merged_with(&f, &n), 30);
	cr_assert_eq(n, 2);

	f.from_ns = (T0 + 9) * S + 999999999;
	f.until_ns = (T0 + 10) * S;
	cr_assert_eq(merged_with(&f, &n), 15, "one ns of overlap is enough");

	f.from_ns = (T0 + 30) * S;
	f.until_ns = UINT64_MAX;
	cr_assert_eq(merged_with(&f, &n), 0);
	cr_assert_eq(n, 0);
}

Test(merge, label_and_pid_filters)
{
	struct dump_merge_label l[3];
	struct dump_merge_filter f;

	filter_init(&f);
	f.labels = l;

	l[0].name = "env", l[0].value = "prod"; /* a global label */
	f.nlabels = 1;
	cr_assert_eq(merged_with(&f, NULL), 30);

	l[0].name = "service_name", l[0].value = "redis"; /* a profile label */
	cr_assert_eq(merged_with(&f, NULL), 8);

	l[0].name = "env", l[0].value = "prod";
	l[1].name = "env", l[1].value = "staging"; /* same name: either value */
	f.nlabels = 2;
	cr_assert_eq(merged_with(&f, NULL), 35);

	l[1].name = "service_name", l[1].value = "nginx"; /* different names: both */
	cr_assert_eq(merged_with(&f, NULL), 22);

	l[0].name = "env", l[0].value = "staging";
	l[1].name = "service_name", l[1].value = "redis";
	cr_assert_eq(merged_with(&f, NULL), 0);

	l[0].name = "dc", l[0].value = "eu1"; /* c.json has no dc: never matches */
	f.nlabels = 1;
	cr_assert_eq(merged_with(&f, NULL), 30);

	f.nlabels = 0;
	f.pid = 100;
	cr_assert_eq(merged_with(&f, NULL), 4);
	f.pid = 4242;
	cr_assert_eq(merged_with(&f, NULL), 0);

	l[0].name = "pid", l[0].value = "101";
	f.nlabels = 1;
	f.pid = -1;
	cr_assert_eq(merged_with(&f, NULL), 1);
}

Test(merge, unknown_label_is_named)
{
	static const char *const files[] = {"a.json", "b.json", NULL};
	static const char *const with_c[] = {"a.json", "c.json", NULL};
	struct dump_merge_label l[2] = { { "env", "prod" }, { "region", "x" } };
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	const char *unknown = NULL;

	filter_init(&f);
	f.labels = l;
	f.nlabels = 2;
	m = merge(names, &f, files);
	cr_assert_eq(dump_merge__check_labels(m, &unknown), -ENOENT);
	cr_assert_str_eq(unknown, "region");
	dump_merge__delete(m);

	/* Known names pass, whether from profiles or global labels; "pid"
	 * only exists where a dump groups per pid. */
	l[1].name = "comm";
	m = merge(names, &f, files);
	cr_assert_eq(dump_merge__check_labels(m, &unknown), 0);
	dump_merge__delete(m);

	l[1].name = "pid";
	m = merge(names, &f, files);
	cr_assert_eq(dump_merge__check_labels(m, &unknown), -ENOENT);
	cr_assert_str_eq(unknown, "pid");
	dump_merge__delete(m);
	m = merge(names, &f, with_c);
	cr_assert_eq(dump_merge__check_labels(m, &unknown), 0);
	dump_merge__delete(m);
	strtab__delete(names);
}

/* --- pprof, decoded back ------------------------------------------------ */

struct rd {
	const uint8_t *p, *end;
};

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;
	int shift = 0;

	for (;;) {
		cr_assert(r->p < r->end && shift < 64, "truncated varint");
		v |= (uint64_t)(*r->p & 0x7f) << shift;
		shift += 7;
		if (!(*r->p++ & 0x80))
			return v;
	}
}

/* Next field: returns 0 at the end; *sub is the payload of a LEN field. */
static int rd_field(struct rd *r, uint32_t *field, uint64_t *v, struct rd *sub)
{
	uint64_t key, len;

	if (r->p == r->end)
		return 0;
	key = rd_varint(r);
	*field = (uint32_t)(key >> 3);
	switch (key & 7) {
	case 0:
		*v = rd_varint(r);
		sub->p = sub->end = NULL;
		return 1;
	case 2:
		len = rd_varint(r);
		cr_assert(len <= (uint64_t)(r->end - r->p), "length past the end");
		sub->p = r->p;
		sub->end = r->p + len;
		r->p += len;
		*v = len;
		return 1;
	default:
		cr_assert_fail("unexpected wire type %u", (unsigned)(key & 7));
		return 0;
	}
}

#define MAXN 256

struct decoded {
	char *strings[MAXN];
	size_t nstrings;
	int64_t sample_types[4][2];
	size_t nsample_types;
	uint64_t values[MAXN][2];
	uint64_t nlocs_of_sample[MAXN];
	size_t nsamples;
	uint64_t loc_nlines[MAXN], loc_lines[MAXN][8], loc_mapping[MAXN];
	size_t nlocs;
	uint64_t fn_id[MAXN];
	int64_t fn_name[MAXN];
	size_t nfns;
	int64_t map_file[MAXN];
	uint64_t map_has_functions[MAXN];
	size_t nmaps;
	int64_t period, time_nanos, duration_nanos, period_type[2];
};

/* Repeated varints, packed or not. */
static size_t rd_repeated(struct rd *sub, uint64_t v, int packed, uint64_t *out, size_t max)
{
	size_t n = 0;

	if (!packed) {
		out[0] = v;
		return 1;
	}
	while (sub->p < sub->end && n < max)
		out[n++] = rd_varint(sub);
	return n;
}

static void decode(const uint8_t *buf, size_t len, struct decoded *d)
{
	struct rd r = { buf, buf + len }, sub, s2, s3;
	uint32_t f, f2, f3;
	uint64_t v, v2, v3;

	memset(d, 0, sizeof(*d));
	while (rd_field(&r, &f, &v, &sub)) {
		switch (f) {
		case 1: /* sample_type */
			cr_assert_lt(d->nsample_types, 4);
			while (rd_field(&sub, &f2, &v2, &s2))
				d->sample_types[d->nsample_types][f2 - 1] = (int64_t)v2;
			d->nsample_types++;
			break;
		case 2: { /* sample */
			uint64_t tmp[MAXN];

			cr_assert_lt(d->nsamples, MAXN);
			while (rd_field(&sub, &f2, &v2, &s2)) {
				if (f2 == 1)
					d->nlocs_of_sample[d->nsamples] += rd_repeated(&s2, v2, s2.p != NULL, tmp, MAXN);
				else if (f2 == 2)
					rd_repeated(&s2, v2, s2.p != NULL, d->values[d->nsamples], 2);
			}
			d->nsamples++;
			break;
		}
		case 3: /* mapping */
			while (rd_field(&sub, &f2, &v2, &s2)) {
				if (f2 == 5)
					d->map_file[d->nmaps] = (int64_t)v2;
				if (f2 == 7)
					d->map_has_functions[d->nmaps] = v2;
			}
			d->nmaps++;
			break;
		case 4: /* location */
			while (rd_field(&sub, &f2, &v2, &s2)) {
				if (f2 == 2)
					d->loc_mapping[d->nlocs] = v2;
				if (f2 == 4) {
					while (rd_field(&s2, &f3, &v3, &s3))
						if (f3 == 1 && d->loc_nlines[d->nlocs] < 8)
							d->loc_lines[d->nlocs][d->loc_nlines[d->nlocs]++] = v3;
				}
			}
			d->nlocs++;
			break;
		case 5: /* function */
			while (rd_field(&sub, &f2, &v2, &s2)) {
				if (f2 == 1)
					d->fn_id[d->nfns] = v2;
				if (f2 == 2)
					d->fn_name[d->nfns] = (int64_t)v2;
			}
			d->nfns++;
			break;
		case 6: /* string_table */
			cr_assert_lt(d->nstrings, MAXN);
			d->strings[d->nstrings] = strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
			d->nstrings++;
			break;
		case 9: d->time_nanos = (int64_t)v; break;
		case 10: d->duration_nanos = (int64_t)v; break;
		case 11:
			while (rd_field(&sub, &f2, &v2, &s2))
				d->period_type[f2 - 1] = (int64_t)v2;
			break;
		case 12: d->period = (int64_t)v; break;
		default: cr_assert_fail("unexpected Profile field %u", f);
		}
	}
}

static void decoded_free(struct decoded *d)
{
	size_t i;

	for (i = 0; i < d->nstrings; i++)
		free(d->strings[i]);
}

static const char *str(const struct decoded *d, int64_t i)
{
	cr_assert(i >= 0 && (size_t)i < d->nstrings, "string index %lld out of range", (long long)i);
	return d->strings[i];
}

static const char *fn_name(const struct decoded *d, uint64_t id)
{
	size_t i;

	for (i = 0; i < d->nfns; i++)
		if (d->fn_id[i] == id)
			return str(d, d->fn_name[i]);
	cr_assert_fail("no function %llu", (unsigned long long)id);
	return NULL;
}

Test(pprof, decodes_to_the_merged_profile)
{
	static const char *const files[] = {"a.json", "b.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	struct pprof_opts o = { 10101010, T0 * S, 20 * S };
	struct decoded d;
	void *buf = NULL;
	size_t len = 0, i, j;
	uint64_t count = 0, cpu = 0;
	int folded3 = 0, folded2 = 0, kernel = 0, no_stack = 0;

	filter_init(&f);
	m = merge(names, &f, files);
	cr_assert_eq(pprof__encode(dump_merge__profile(m), &o, &buf, &len), 0);
	decode(buf, len, &d);

	cr_assert_gt(d.nstrings, 1);
	cr_assert_str_eq(d.strings[0], "", "string_table[0] must be \"\"");
	cr_assert_eq(d.nsample_types, 2);
	cr_assert_str_eq(str(&d, d.sample_types[0][0]), "samples");
	cr_assert_str_eq(str(&d, d.sample_types[0][1]), "count");
	cr_assert_str_eq(str(&d, d.sample_types[1][0]), "cpu");
	cr_assert_str_eq(str(&d, d.sample_types[1][1]), "nanoseconds");
	cr_assert_str_eq(str(&d, d.period_type[0]), "cpu");
	cr_assert_str_eq(str(&d, d.period_type[1]), "nanoseconds");
	cr_assert_eq(d.period, 10101010);
	cr_assert_eq(d.time_nanos, (int64_t)(T0 * S));
	cr_assert_eq(d.duration_nanos, (int64_t)(20 * S));

	/* One Sample per (group, stack); totals = the merged samples. */
	cr_assert_eq(d.nsamples, 6);
	for (i = 0; i < d.nsamples; i++) {
		count += d.values[i][0];
		cpu += d.values[i][1];
		cr_assert_eq(d.values[i][1], d.values[i][0] * 10101010);
		cr_assert_gt(d.nlocs_of_sample[i], 0, "every sample has a location");
	}
	cr_assert_eq(count, 30);
	cr_assert_eq(cpu, 30ull * 10101010);

	/* Inline folding: hot_[i];hotter_[i] fold into compute's location,
	 * lines leaf-most first; suffixes are stripped. */
	for (i = 0; i < d.nlocs; i++) {
		const char *l0 = fn_name(&d, d.loc_lines[i][0]);

		if (d.loc_nlines[i] == 3) {
			cr_assert_str_eq(l0, "hotter");
			cr_assert_str_eq(fn_name(&d, d.loc_lines[i][1]), "hot");
			cr_assert_str_eq(fn_name(&d, d.loc_lines[i][2]), "compute");
			folded3++;
		} else if (d.loc_nlines[i] == 2) {
			cr_assert_str_eq(l0, "ngx_http_parse_inline");
			cr_assert_str_eq(fn_name(&d, d.loc_lines[i][1]), "ngx_worker_process_cycle");
			folded2++;
		} else {
			cr_assert_eq(d.loc_nlines[i], 1);
		}
		if (!strcmp(l0, "do_epoll_wait")) {
			cr_assert_str_eq(str(&d, d.map_file[d.loc_mapping[i] - 1]), "[kernel.kallsyms]");
			kernel++;
		}
		if (!strcmp(l0, "[no stack]"))
			no_stack++;
		if (!strcmp(l0, "libc.so.6+0x1234"))
			cr_assert_str_eq(str(&d, d.map_file[d.loc_mapping[i] - 1]), "libc.so.6");
		if (!strcmp(l0, "[redis-server]"))
			cr_assert_str_eq(str(&d, d.map_file[d.loc_mapping[i] - 1]), "/usr/bin/redis-server");
	}
	cr_assert_eq(folded3, 1);
	cr_assert_eq(folded2, 1);
	cr_assert_eq(kernel, 1);
	cr_assert_eq(no_stack, 1, "the empty stack gets a pseudo-location");
	for (i = 0; i < d.nfns; i++)
		cr_assert_null(strstr(str(&d, d.fn_name[i]), "_["), "suffix kept: %s", str(&d, d.fn_name[i]));
	for (i = 0; i < d.nmaps; i++) {
		cr_assert_eq(d.map_has_functions[i], 1);
		for (j = 0; j < i; j++)
			cr_assert_str_neq(str(&d, d.map_file[i]), str(&d, d.map_file[j]), "one mapping per file");
	}
	decoded_free(&d);
	free(buf);
	dump_merge__delete(m);
	strtab__delete(names);
}

Test(pprof, gzip_output)
{
	static const char *const files[] = {"c.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	struct pprof_opts o = { 20408163, T0 * S, 10 * S };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	filter_init(&f);
	m = merge(names, &f, files);
	cr_assert_eq(pprof__write(dump_merge__profile(m), &o, out), 0);
	fclose(out);
	cr_assert_gt(len, 18);
	cr_assert_eq((unsigned char)buf[0], 0x1f);
	cr_assert_eq((unsigned char)buf[1], 0x8b);
	free(buf);
	dump_merge__delete(m);
	strtab__delete(names);
}

/* --- top --diff ----------------------------------------------------------- */

static char *diff_text(const char *now_file, const char *base_file, size_t n)
{
	const char *nf[] = {now_file, NULL}, *bf[] = {base_file, NULL};
	/* Separate string tables: the diff matches functions by name. */
	struct strtab *n1 = strtab__new(), *n2 = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *a, *b;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	filter_init(&f);
	a = merge(n1, &f, nf);
	b = merge(n2, &f, bf);
	cr_assert_eq(top__write_diff(dump_merge__profile(a), dump_merge__profile(b), out, n), 0);
	fclose(out);
	dump_merge__delete(a);
	dump_merge__delete(b);
	strtab__delete(n1);
	strtab__delete(n2);
	return buf;
}

/* Rows of a diff table: lines that start with a percentage. */
static size_t rows(const char *text, size_t *nonzero)
{
	const char *line = text;
	size_t n = 0;

	*nonzero = 0;
	while (line && *line) {
		char b[16], s[16], c[16];

		if (sscanf(line, "%15s %15s %15s", b, s, c) == 3 && strchr(b, '%') && b[0] != 'b') {
			n++;
			if (strcmp(c, "0.00%") != 0)
				(*nonzero)++;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return n;
}

Test(top, diff_against_itself_shows_no_change)
{
	char *t = diff_text("a.json", "a.json", 0);
	size_t nonzero, n = rows(t, &nonzero);

	cr_assert_eq(n, 5, "functions with self samples: %s", t);
	cr_assert_eq(nonzero, 0, "%s", t);
	cr_assert_not_null(strstr(t, "samples: 15  base samples: 15"), "%s", t);
	free(t);

	/* Merged a+b against a: same shares, so no change either. */
	t = diff_text("b.json", "a.json", 0);
	n = rows(t, &nonzero);
	cr_assert_eq(nonzero, 0, "%s", t);
	free(t);
}

Test(top, diff_shows_changes_sorted)
{
	char *t = diff_text("c.json", "a.json", 3);
	size_t nonzero, n = rows(t, &nonzero);
	const char *first;

	cr_assert_eq(n, 3, "%s", t);
	cr_assert_eq(nonzero, 3, "%s", t);
	/* c: parse_inline 4/5 = 80% (a: 20%), the largest change. */
	first = strstr(t, "+60.00%");
	cr_assert_not_null(first, "%s", t);
	cr_assert_not_null(strstr(first, "ngx_http_parse_inline_[i]"), "%s", t);
	cr_assert_not_null(strstr(t, "-40.00%"), "do_epoll_wait_[k] disappeared: %s", t);
	free(t);
}
