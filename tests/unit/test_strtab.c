/* common/strtab: string interning. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"

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
