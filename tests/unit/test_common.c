/* Unit tests: common/ helpers (number parsing, u64 map, string interning). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/strtab.h"
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
