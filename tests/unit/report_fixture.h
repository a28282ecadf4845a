/* The dumps of tests/fixtures/report/ read and merged, for the tests of the
 * modules `smolder report` puts together (test_dump_merge, test_pprof,
 * test_top). Static inline: each test uses a part. */
#ifndef SMOLDER_TESTS_UNIT_REPORT_FIXTURE_H
#define SMOLDER_TESTS_UNIT_REPORT_FIXTURE_H
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/strtab.h"
#include "export/dump_merge.h"
#include "export/dump_read.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif
#define FIX SRCDIR "/tests/fixtures/report/"
#define T0 1763740800ull /* a.json's window start, 2025-11-21T16:00:00Z */
#define S (1000000000ull)

static inline struct dump *load(const char *name)
{
	char path[512], err[256] = "";
	struct dump *d = NULL;
	int rc;

	snprintf(path, sizeof(path), FIX "%s", name);
	rc = dump__read_file(path, &d, NULL, NULL, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s: %d %s", path, rc, err);
	return d;
}

static inline void filter_init(struct dump_merge_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->until_ns = UINT64_MAX;
	f->pid = -1;
}

/* Merges the named fixtures into a new merge over the names table tab (not
 * "names": profile_fixture.h, used beside this, has a global of that name),
 * grouped per thread or not. */
static inline struct dump_merge *merge_grouped(struct strtab *tab, const struct dump_merge_filter *f,
					       const char *const *files, int by_thread)
{
	struct dump_merge *m = dump_merge__new(tab, f);
	size_t i;

	cr_assert_not_null(m);
	dump_merge__set_group_by_thread(m, by_thread);
	for (i = 0; files[i]; i++) {
		struct dump *d = load(files[i]);

		cr_assert_eq(dump_merge__add(m, d), 0);
		dump__delete(d);
	}
	return m;
}

static inline struct dump_merge *merge(struct strtab *tab, const struct dump_merge_filter *f,
				       const char *const *files)
{
	return merge_grouped(tab, f, files, 0);
}

#endif
