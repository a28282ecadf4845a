/* common/u64map: the u64 -> u64 map (put, get, delete, iteration). */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"

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
