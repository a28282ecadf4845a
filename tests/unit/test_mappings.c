/* profile/mappings: binaries kept once, found by their frames' module name,
 * names two different binaries share are refused, bounds and bad input. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>

#include "profile/mappings.h"

static const struct mapping *find(const struct mappings *m, const char *module, bool *ambiguous)
{
	return mappings__find(m, module, strlen(module), ambiguous);
}

Test(mappings, kept_once_found_by_module)
{
	struct mappings *m = mappings__new();
	static const unsigned char id[] = { 0xde, 0xad, 0x00, 0x0f };
	const struct mapping *e;
	bool amb;

	cr_assert_not_null(m);
	cr_assert_eq(mappings__add(m, "libz.so.1", "/usr/lib/libz.so.1", "0a1b"), 0);
	cr_assert_eq(mappings__add(m, "libz.so.1", "/usr/lib/libz.so.1", "0a1b"), 0);
	cr_assert_eq(mappings__add_bytes(m, "app", "/srv/app", id, sizeof(id)), 0);
	cr_assert_eq(mappings__add(m, "nobuildid", NULL, NULL), 0);
	cr_assert_eq(mappings__count(m), 3);
	e = find(m, "app", &amb);
	cr_assert_not_null(e);
	cr_assert_not(amb);
	cr_assert_str_eq(e->build_id, "dead000f");
	cr_assert_str_eq(e->path, "/srv/app");
	e = find(m, "nobuildid", &amb);
	cr_assert_not_null(e);
	cr_assert_str_eq(e->build_id, "");
	cr_assert_str_eq(e->path, "");
	cr_assert_null(find(m, "libc.so.6", &amb));
	cr_assert_not(amb);
	/* a prefix is not the name */
	cr_assert_null(mappings__find(m, "libz.so.1", 4, &amb));
	cr_assert_str_eq(mappings__at(m, 0)->module, "libz.so.1");
	cr_assert_null(mappings__at(m, 3));
	mappings__delete(m);
}

/* Two versions of one library (two containers): their frames say the same
 * name, which then names neither. */
Test(mappings, a_name_two_binaries_share_is_ambiguous)
{
	struct mappings *m = mappings__new();
	bool amb;

	cr_assert_eq(mappings__add(m, "libfoo.so", "/a/libfoo.so", "01"), 0);
	cr_assert_eq(mappings__add(m, "libfoo.so", "/b/libfoo.so", "02"), 0);
	cr_assert_null(find(m, "libfoo.so", &amb));
	cr_assert(amb);
	mappings__delete(m);
}

Test(mappings, bad_input_and_bounds)
{
	struct mappings *m = mappings__new();
	char name[32];
	bool amb;
	int i;

	cr_assert_eq(mappings__add(m, "", "/x", NULL), -EINVAL);
	cr_assert_eq(mappings__add(m, NULL, "/x", NULL), -EINVAL);
	cr_assert_eq(mappings__add(m, "x", "/x", "XYZ"), -EINVAL);
	cr_assert_eq(mappings__add(m, "x", "/x", "ABCD"), -EINVAL, "hex is lowercase");
	for (i = 0; i < MAPPINGS_MAX; i++) {
		snprintf(name, sizeof(name), "m%d", i % 1000);
		snprintf(name + strlen(name), sizeof(name) - strlen(name), ".%d", i);
		cr_assert_eq(mappings__add(m, name, "", NULL), 0);
	}
	cr_assert_eq(mappings__add(m, "one-more", "", NULL), -ENOSPC);
	cr_assert_eq(mappings__count(m), MAPPINGS_MAX);
	cr_assert_not_null(find(m, "m535.65535", &amb));
	mappings__delete(m);
	mappings__delete(NULL);
}
