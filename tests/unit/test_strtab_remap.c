/* common/strtab_remap: compacting a names table. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"
#include "common/strtab_remap.h"

/* A holder of ids for the remap tests: some ids in use, the rest garbage. */
static int remap_holder(struct strtab_remap *r, uint32_t *ids, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < n; i++)
		err = strtab_remap__id(r, &ids[i]);
	return err;
}

Test(strtab_remap, keeps_what_is_used_and_drops_the_rest)
{
	struct strtab *from = strtab__new(), *to = strtab__new();
	struct strtab_remap r;
	uint32_t live[4], dup, zero = 0, bogus = 777777, before[4];
	char buf[32];
	int i;

	cr_assert(from && to);
	for (i = 0; i < 1000; i++) {
		uint32_t id;

		snprintf(buf, sizeof(buf), "garbage%d", i);
		cr_assert_eq(strtab__intern_cstr(from, buf, &id), 0);
	}
	cr_assert_eq(strtab__intern_cstr(from, "main", &live[0]), 0);
	cr_assert_eq(strtab__intern_cstr(from, "a", &live[1]), 0);
	cr_assert_eq(strtab__intern_cstr(from, "schedule_[k]", &live[2]), 0);
	live[3] = live[0]; /* held twice */
	dup = live[1];
	memcpy(before, live, sizeof(before));

	cr_assert_eq(strtab_remap__init(&r, from, to), 0);
	/* collect: the holders are left alone, the new table gets their strings */
	cr_assert_eq(remap_holder(&r, live, 4), 0);
	cr_assert_eq(remap_holder(&r, &dup, 1), 0);
	cr_assert_eq(strtab_remap__id(&r, &zero), 0);
	cr_assert_eq(strtab_remap__id(&r, &bogus), 0);
	cr_assert_eq(memcmp(live, before, sizeof(live)), 0, "collect must not change ids");
	cr_assert_eq(bogus, 777777);
	cr_assert_eq(strtab__count(to), 3, "only the strings in use, once each");

	strtab_remap__commit(&r);
	cr_assert_eq(remap_holder(&r, live, 4), 0);
	cr_assert_eq(remap_holder(&r, &dup, 1), 0);
	cr_assert_eq(strtab_remap__id(&r, &zero), 0);
	cr_assert_eq(zero, 0, "0 stays 'none'");
	cr_assert_eq(strtab_remap__id(&r, &bogus), 0);
	cr_assert_eq(bogus, 0, "an id the old table never had becomes 0");
	cr_assert_eq(r.missed, 1);
	strtab_remap__fini(&r);
	strtab__delete(from);

	cr_assert_str_eq(strtab__str(to, live[0]), "main");
	cr_assert_str_eq(strtab__str(to, live[1]), "a");
	cr_assert_str_eq(strtab__str(to, live[2]), "schedule_[k]");
	cr_assert_eq(live[3], live[0]);
	cr_assert_eq(dup, live[1]);
	cr_assert_eq(strtab__count(to), 3);
	strtab__delete(to);
}

Test(strtab_remap, an_id_not_collected_is_counted_not_invented)
{
	struct strtab *from = strtab__new(), *to = strtab__new();
	struct strtab_remap r;
	uint32_t seen, unseen;

	cr_assert(from && to);
	cr_assert_eq(strtab__intern_cstr(from, "seen", &seen), 0);
	cr_assert_eq(strtab__intern_cstr(from, "unseen", &unseen), 0);
	cr_assert_eq(strtab_remap__init(&r, from, to), 0);
	cr_assert_eq(strtab_remap__id(&r, &seen), 0);
	strtab_remap__commit(&r);
	cr_assert_eq(strtab_remap__id(&r, &seen), 0);
	cr_assert_eq(strtab_remap__id(&r, &unseen), 0);
	cr_assert_eq(unseen, 0, "a holder that skipped the collect pass gets 'unknown'");
	cr_assert_eq(r.missed, 1);
	cr_assert_str_eq(strtab__str(to, seen), "seen");
	strtab_remap__fini(&r);
	strtab_remap__fini(&r); /* twice is harmless */
	strtab__delete(from);
	strtab__delete(to);
}
