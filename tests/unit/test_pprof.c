/* export/pprof.c: a merged profile's pprof encoding, decoded back by a minimal protobuf reader. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common/strtab.h"
#include "export/dump_merge.h"
#include "export/pprof.h"
#include "tests/unit/report_fixture.h"

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
	int64_t label_key[MAXN][8], label_str[MAXN][8]; /* string indexes */
	size_t nlabels_of_sample[MAXN];
	size_t nsamples;
	uint64_t loc_nlines[MAXN], loc_lines[MAXN][8], loc_line_no[MAXN][8], loc_mapping[MAXN], loc_addr[MAXN];
	size_t nlocs;
	uint64_t fn_id[MAXN];
	int64_t fn_name[MAXN], fn_file[MAXN];
	size_t nfns;
	int64_t map_file[MAXN], map_build_id[MAXN];
	uint64_t map_has_lines[MAXN];
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

/* A sample's Label {key = 1, str = 2}, kept as string indexes: the string
 * table may come later in the message. */
static void decode_label(struct decoded *d, struct rd *l)
{
	struct rd s;
	uint32_t f;
	uint64_t v, key = 0, val = 0;

	while (rd_field(l, &f, &v, &s)) {
		if (f == 1)
			key = v;
		else if (f == 2)
			val = v;
	}
	d->label_key[d->nsamples][d->nlabels_of_sample[d->nsamples]] = (int64_t)key;
	d->label_str[d->nsamples][d->nlabels_of_sample[d->nsamples]] = (int64_t)val;
	if (d->nlabels_of_sample[d->nsamples] < 7)
		d->nlabels_of_sample[d->nsamples]++;
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
				else if (f2 == 3)
					decode_label(d, &s2);
			}
			d->nsamples++;
			break;
		}
		case 3: /* mapping */
			while (rd_field(&sub, &f2, &v2, &s2)) {
				if (f2 == 5)
					d->map_file[d->nmaps] = (int64_t)v2;
				if (f2 == 6)
					d->map_build_id[d->nmaps] = (int64_t)v2;
				if (f2 == 9)
					d->map_has_lines[d->nmaps] = v2;
				if (f2 == 7)
					d->map_has_functions[d->nmaps] = v2;
			}
			d->nmaps++;
			break;
		case 4: /* location */
			while (rd_field(&sub, &f2, &v2, &s2)) {
				if (f2 == 2)
					d->loc_mapping[d->nlocs] = v2;
				if (f2 == 3)
					d->loc_addr[d->nlocs] = v2;
				if (f2 == 4 && d->loc_nlines[d->nlocs] < 8) {
					size_t k = d->loc_nlines[d->nlocs]++;

					while (rd_field(&s2, &f3, &v3, &s3)) {
						if (f3 == 1)
							d->loc_lines[d->nlocs][k] = v3;
						if (f3 == 2)
							d->loc_line_no[d->nlocs][k] = v3;
					}
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
				if (f2 == 4)
					d->fn_file[d->nfns] = (int64_t)v2;
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

/* The value of sample i's label key, NULL when it has none. */
static const char *label_of(const struct decoded *d, size_t i, const char *key)
{
	size_t j;

	for (j = 0; j < d->nlabels_of_sample[i]; j++)
		if (!strcmp(str(d, d->label_key[i][j]), key))
			return str(d, d->label_str[i][j]);
	return NULL;
}

/* Grouped per thread: each sample carries its thread's name as a label
 * (none for a name not known, as for any empty label). */
Test(pprof, thread_label)
{
	static const char *const files[] = {"threads.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	struct pprof_opts o = { 40000000, T0 * S, 10 * S };
	struct decoded d;
	void *buf = NULL;
	size_t len = 0, i;
	uint64_t a = 0, b = 0, none = 0;

	filter_init(&f);
	m = merge_grouped(names, &f, files, 1);
	cr_assert_eq(pprof__encode(dump_merge__profile(m), &o, &buf, &len), 0);
	decode(buf, len, &d);
	for (i = 0; i < d.nsamples; i++) {
		const char *t = label_of(&d, i, "thread");

		cr_assert_str_eq(label_of(&d, i, "comm"), "app");
		if (!t)
			none += d.values[i][0];
		else if (!strcmp(t, "worker-a"))
			a += d.values[i][0];
		else if (!strcmp(t, "worker-b"))
			b += d.values[i][0];
		else
			cr_assert_fail("thread label %s", t);
	}
	cr_assert_eq(a, 6);
	cr_assert_eq(b, 3);
	cr_assert_eq(none, 1);
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

/* A user's process: its samples carry the user label; root's none. */
Test(pprof, user_label)
{
	static const char *const files[] = {"users.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	struct pprof_opts o = { 10101010, 1763740850 * S, 10 * S };
	struct decoded d;
	void *buf = NULL;
	size_t len = 0, i;
	uint64_t root = 0, alice = 0, postgres = 0;

	filter_init(&f);
	m = merge_grouped(names, &f, files, 0);
	cr_assert_eq(pprof__encode(dump_merge__profile(m), &o, &buf, &len), 0);
	decode(buf, len, &d);
	for (i = 0; i < d.nsamples; i++) {
		const char *u = label_of(&d, i, "user");

		if (!u)
			root += d.values[i][0];
		else if (!strcmp(u, "alice"))
			alice += d.values[i][0];
		else if (!strcmp(u, "postgres"))
			postgres += d.values[i][0];
		else
			cr_assert_fail("user label %s", u);
	}
	cr_assert_eq(root, 7);
	cr_assert_eq(alice, 4);
	cr_assert_eq(postgres, 2);
	decoded_free(&d);
	free(buf);
	dump_merge__delete(m);
	strtab__delete(names);
}

static const char *fn_file(const struct decoded *d, uint64_t id)
{
	size_t i;

	for (i = 0; i < d->nfns; i++)
		if (d->fn_id[i] == id)
			return str(d, d->fn_file[i]);
	return NULL;
}

/* Places become Lines (function, line) and Functions' file names, one
 * Function per (name, file); a module the dump's mappings know gets its
 * path and build ID. */
Test(pprof, lines_files_and_build_ids)
{
	static const char *const files[] = {"lines.json", NULL};
	struct strtab *names = strtab__new();
	struct dump_merge_filter f;
	struct dump_merge *m;
	struct pprof_opts o = { 40000000, T0 * S, 10 * S };
	struct decoded d;
	void *buf = NULL;
	size_t len = 0, i, j, hot = 0, lib = 0;
	int folded = 0, loop = 0;

	filter_init(&f);
	m = merge(names, &f, files);
	cr_assert_eq(pprof__encode(dump_merge__profile(m), &o, &buf, &len), 0);
	decode(buf, len, &d);
	for (i = 0; i < d.nfns; i++) {
		hot += !strcmp(str(&d, d.fn_name[i]), "hot");
		cr_assert_null(strchr(str(&d, d.fn_name[i]), '('), "a place left in %s", str(&d, d.fn_name[i]));
	}
	cr_assert_eq(hot, 1, "hot at two lines is one function");
	for (i = 0; i < d.nlocs; i++) {
		const char *l0 = fn_name(&d, d.loc_lines[i][0]);

		if (!strcmp(l0, "step")) {
			cr_assert_eq(d.loc_nlines[i], 2);
			cr_assert_eq(d.loc_line_no[i][0], 13);
			cr_assert_str_eq(fn_name(&d, d.loc_lines[i][1]), "hot");
			cr_assert_eq(d.loc_line_no[i][1], 22, "hot at the inlined call");
			cr_assert_str_eq(fn_file(&d, d.loc_lines[i][0]), "app.c");
			folded++;
		} else if (!strcmp(l0, "hot")) {
			cr_assert_eq(d.loc_line_no[i][0], 21);
			loop++;
		} else if (!strcmp(l0, "main")) {
			cr_assert_eq(d.loc_line_no[i][0], 40);
			cr_assert_eq(d.loc_addr[i], 0);
		} else if (!strcmp(l0, "libz.so.1+0x5d80")) {
			cr_assert_eq(d.loc_line_no[i][0], 0);
			cr_assert_eq(d.loc_addr[i], 0x5d80, "a stripped function's start is its address");
			cr_assert_str_eq(fn_file(&d, d.loc_lines[i][0]), "", "no file");
			for (j = 0; j < d.nmaps; j++)
				if (j + 1 == d.loc_mapping[i]) {
					cr_assert_str_eq(str(&d, d.map_file[j]), "/usr/lib/x86_64-linux-gnu/libz.so.1");
					cr_assert_str_eq(str(&d, d.map_build_id[j]), "0a1b2c");
					cr_assert_eq(d.map_has_lines[j], 1);
					lib++;
				}
		}
	}
	cr_assert_eq(folded, 1);
	cr_assert_eq(loop, 1);
	cr_assert_eq(lib, 1);
	decoded_free(&d);
	free(buf);
	dump_merge__delete(m);
	strtab__delete(names);
}
