/* Unit tests: common/ helpers (number parsing, u64 map, string interning). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"

Test(parse, u64_bases_and_errors)
{
	uint64_t v = 7;

	cr_assert_eq(parse__u64("123", 10, &v), 0);
	cr_assert_eq(v, 123);
	cr_assert_eq(parse__u64("0x1f", 0, &v), 0);
	cr_assert_eq(v, 0x1f);
	cr_assert_eq(parse__u64n("ffffffffffffffff", 16, 16, &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	v = 5;
	cr_assert_eq(parse__u64n("10000000000000000", 17, 16, &v), -ERANGE);
	cr_assert_eq(parse__u64("18446744073709551616", 10, &v), -ERANGE);
	cr_assert_eq(parse__u64("", 10, &v), -EINVAL);
	cr_assert_eq(parse__u64("12a", 10, &v), -EINVAL);
	cr_assert_eq(parse__u64("-1", 10, &v), -EINVAL);
	cr_assert_eq(parse__u64(" 1", 10, &v), -EINVAL);
	cr_assert_eq(v, 5, "output untouched on failure");
}

Test(parse, int_range)
{
	long v = 0;

	cr_assert_eq(parse__int("-3", -5, 5, &v), 0);
	cr_assert_eq(v, -3);
	cr_assert_eq(parse__int("6", -5, 5, &v), -ERANGE);
	cr_assert_eq(parse__int("99999999999999999999", 0, 10, &v), -ERANGE);
	cr_assert_eq(parse__int("4x", 0, 10, &v), -EINVAL);
}

Test(u64map, put_get_overwrite_delete)
{
	struct u64map *m = u64map__new(4);
	uint64_t v;
	int i;

	cr_assert_not_null(m);
	cr_assert_not(u64map__get(m, 0, &v));
	cr_assert_eq(u64map__put(m, 0, 42), 0, "key 0 is a valid key");
	cr_assert(u64map__get(m, 0, &v));
	cr_assert_eq(v, 42);
	for (i = 1; i <= 10000; i++)
		cr_assert_eq(u64map__put(m, (uint64_t)i * 4096, (uint64_t)i), 0);
	cr_assert_eq(u64map__count(m), 10001);
	cr_assert_eq(u64map__put(m, 4096, 77), 0);
	cr_assert_eq(u64map__count(m), 10001, "overwrite keeps the count");
	cr_assert(u64map__get(m, 4096, &v));
	cr_assert_eq(v, 77);
	for (i = 1; i <= 10000; i += 2)
		cr_assert(u64map__del(m, (uint64_t)i * 4096));
	cr_assert_not(u64map__del(m, 4096));
	for (i = 1; i <= 10000; i++) {
		bool present = u64map__get(m, (uint64_t)i * 4096, &v);

		cr_assert_eq(present, i % 2 == 0, "key %d presence after deletes", i);
		if (present)
			cr_assert_eq(v, (uint64_t)i);
	}
	u64map__delete(m);
}

Test(u64map, iteration_visits_each_key_once)
{
	struct u64map *m = u64map__new(0);
	size_t pos = 0, seen = 0;
	uint64_t k, v, sum = 0;
	int i;

	for (i = 0; i < 1000; i++)
		u64map__put(m, (uint64_t)i, (uint64_t)i);
	while (u64map__next(m, &pos, &k, &v)) {
		cr_assert_eq(k, v);
		sum += k;
		seen++;
	}
	cr_assert_eq(seen, 1000);
	cr_assert_eq(sum, 999 * 1000 / 2);
	u64map__clear(m);
	cr_assert_eq(u64map__count(m), 0);
	pos = 0;
	cr_assert_not(u64map__next(m, &pos, &k, &v));
	u64map__delete(m);
}

Test(strtab, interning_is_stable)
{
	struct strtab *t = strtab__new();
	uint32_t a, b, c, ids[5000];
	char buf[32];
	int i;

	cr_assert_not_null(t);
	cr_assert_eq(strtab__intern_cstr(t, "main", &a), 0);
	cr_assert_eq(strtab__intern(t, "mainly", 4, &b), 0);
	cr_assert_eq(a, b, "same bytes, same id");
	cr_assert_eq(strtab__intern_cstr(t, "", &c), 0);
	cr_assert_neq(a, c);
	cr_assert_neq(a, 0);
	cr_assert_str_eq(strtab__str(t, a), "main");
	cr_assert_str_eq(strtab__str(t, c), "");
	cr_assert_null(strtab__str(t, 0));
	cr_assert_null(strtab__str(t, 999999));
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "f%d", i);
		cr_assert_eq(strtab__intern_cstr(t, buf, &ids[i]), 0);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "f%d", i);
		cr_assert_str_eq(strtab__str(t, ids[i]), buf);
	}
	cr_assert_str_eq(strtab__str(t, a), "main", "early strings survive growth");
	cr_assert_eq(strtab__count(t), 5002);
	strtab__delete(t);
}

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
