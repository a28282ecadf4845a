/* common/units: the one grammar of durations, sizes, times and booleans that
 * the configuration file and every command line share. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "common/units.h"

#define S (UINT64_C(1000000000))
#define T0 1763740800ull /* 2025-11-21T16:00:00Z */

Test(units, durations)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} ok[] = {
		{ "0", 0 }, { "0s", 0 }, { "10", 10 * S }, { "250ms", 250000000ULL },
		{ "10s", 10 * S }, { "5m", 300 * S }, { "2h", 7200 * S }, { "7d", 604800 * S },
		{ "1000ms", S }, { "007s", 7 * S }, { "1w", 604800 * S },
		{ "1h30m", 5400 * S }, { "1m30s500ms", 90 * S + 500000000ULL }, { "2d12h", 216000 * S },
		{ "18446744073", 18446744073ULL * S },
	};
	static const struct {
		const char *s;
		int rc;
	} bad[] = {
		{ "", -EINVAL }, { "s", -EINVAL }, { "10x", -EINVAL }, { "-1s", -EINVAL },
		{ "+1s", -EINVAL }, { "1.5s", -EINVAL }, { "10 s", -EINVAL }, { " 10s", -EINVAL },
		{ "10s ", -EINVAL }, { "10S", -EINVAL }, { "10sec", -EINVAL }, { "1h30", -EINVAL },
		{ "1h 30m", -EINVAL }, { "h30m", -EINVAL }, { "1W", -EINVAL }, { "1y", -EINVAL },
		{ "0x10", -EINVAL }, { "10ms5", -EINVAL },
		{ "18446744074", -ERANGE }, { "213503982335d", -ERANGE },
		{ "99999999999999999999", -ERANGE },
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 42;
		cr_assert_eq(units__parse_duration(ok[i].s, &v), 0, "'%s'", ok[i].s);
		cr_assert_eq(v, ok[i].ns, "'%s'", ok[i].s);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 42;
		cr_assert_eq(units__parse_duration(bad[i].s, &v), bad[i].rc, "'%s'", bad[i].s);
		cr_assert_eq(v, 42, "output untouched on failure");
	}
	cr_assert_eq(units__parse_duration(NULL, &v), -EINVAL);
}

Test(units, sizes)
{
	static const struct {
		const char *s;
		uint64_t b;
	} ok[] = {
		{ "0", 0 }, { "4096", 4096 }, { "4096B", 4096 }, { "64KiB", 65536 },
		{ "64kib", 65536 }, { "64K", 65536 }, { "64k", 65536 }, { "512MiB", 512ULL << 20 },
		{ "512M", 512ULL << 20 }, { "1GiB", 1ULL << 30 }, { "1G", 1ULL << 30 },
		{ "1TiB", 1ULL << 40 }, { "1T", 1ULL << 40 }, { "100KB", 100000 },
		{ "100kb", 100000 }, { "100MB", 100000000 }, { "1GB", 1000000000 },
		{ "2TB", 2000000000000ULL }, { "16777215TiB", 16777215ULL << 40 },
	};
	static const struct {
		const char *s;
		int rc;
	} bad[] = {
		{ "", -EINVAL }, { "KiB", -EINVAL }, { "-1", -EINVAL }, { "1.5GiB", -EINVAL },
		{ "64 KiB", -EINVAL }, { "64KiB ", -EINVAL }, { "64Ki", -EINVAL }, { "64KiBB", -EINVAL },
		{ "1PiB", -EINVAL }, { "0x100", -EINVAL }, { "10x", -EINVAL },
		{ "16777216TiB", -ERANGE }, { "18446744073709551616", -ERANGE },
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 42;
		cr_assert_eq(units__parse_size(ok[i].s, &v), 0, "'%s'", ok[i].s);
		cr_assert_eq(v, ok[i].b, "'%s'", ok[i].s);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 42;
		cr_assert_eq(units__parse_size(bad[i].s, &v), bad[i].rc, "'%s'", bad[i].s);
		cr_assert_eq(v, 42);
	}
}

Test(units, bools)
{
	static const char *const yes[] = { "yes", "true", "on", "1", "YES", "True" };
	static const char *const no[] = { "no", "false", "off", "0", "No", "OFF" };
	static const char *const bad[] = { "", "y", "2", "yes ", "enabled", "-1", "00" };
	size_t i;
	int v;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		v = 7;
		cr_assert_eq(units__parse_bool(yes[i], &v), 0, "%s", yes[i]);
		cr_assert_eq(v, 1);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		v = 7;
		cr_assert_eq(units__parse_bool(no[i], &v), 0, "%s", no[i]);
		cr_assert_eq(v, 0);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		cr_assert_eq(units__parse_bool(bad[i], &v), -EINVAL, "'%s'", bad[i]);
		cr_assert_eq(v, 7);
	}
}

Test(times, parse_table)
{
	const uint64_t now = (T0 + 3600) * S; /* 2025-11-21T17:00:00Z */
	static const struct {
		const char *s;
		int rc;
		uint64_t ns;
	} cases[] = {
		{ "2025-11-21T16:00:00Z", 0, T0 * S },
		{ "2025-11-21t16:00:00z", 0, T0 * S },
		{ "2025-11-21 16:00:00Z", 0, T0 * S },
		{ "2025-11-21T17:00:00+01:00", 0, T0 * S },
		{ "2025-11-21T14:30:00-01:30", 0, T0 * S },
		{ "2025-11-21T16:00:00.5Z", 0, T0 * S + 500000000 },
		{ "2025-11-21T16:00:00.123456789Z", 0, T0 * S + 123456789 },
		{ "2025-11-21T16:00:00.1234567891Z", 0, T0 * S + 123456789 },
		{ "1970-01-01T00:00:00Z", 0, 0 },
		{ "2024-02-29T00:00:00Z", 0, 1709164800ull * S },
		{ "2000-03-01T00:00:00Z", 0, 951868800ull * S },
		{ "now", 0, (T0 + 3600) * S },
		{ "-1h", 0, T0 * S },
		{ "-60m", 0, T0 * S },
		{ "-3600s", 0, T0 * S },
		{ "-30m30m", 0, T0 * S },
		{ "-0s", 0, (T0 + 3600) * S },
		{ "-2d", 0, (T0 + 3600 - 2 * 86400) * S },
		{ "-1w", 0, (T0 + 3600 - 7 * 86400) * S },
		{ "-500ms", 0, (T0 + 3600) * S - 500000000ull },
		{ "-1h30m", 0, (T0 + 3600 - 5400) * S },
		{ "", -EINVAL, 0 },
		{ "-", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "-h", -EINVAL, 0 },
		{ "-1y", -EINVAL, 0 },
		{ "1h", -EINVAL, 0 },
		{ "+1h", -EINVAL, 0 },
		{ "yesterday", -EINVAL, 0 },
		{ "2025-11-21", -EINVAL, 0 },
		{ "2025-11-21T16:00:00", -EINVAL, 0 },      /* no offset */
		{ "2025-11-21T16:00Z", -EINVAL, 0 },
		{ "2025-11-21T16:00:00.Z", -EINVAL, 0 },
		{ "2025-11-21T16:00:00+0100", -EINVAL, 0 },
		{ "2025-11-21T16:00:00Zjunk", -EINVAL, 0 },
		{ "2025-13-01T00:00:00Z", -EINVAL, 0 },
		{ "2025-02-29T00:00:00Z", -EINVAL, 0 },
		{ "2025-04-31T00:00:00Z", -EINVAL, 0 },
		{ "2025-11-21T24:00:00Z", -EINVAL, 0 },
		{ "2025-11-21T16:60:00Z", -EINVAL, 0 },
		{ "2025-11-21T16:00:00+24:00", -EINVAL, 0 },
		{ "1969-12-31T23:59:59Z", -ERANGE, 0 },
		{ "1970-01-01T00:30:00+01:00", -ERANGE, 0 },
		{ "-100000d", -ERANGE, 0 },
		{ "-99999999999999999999s", -ERANGE, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t out = 12345;
		int rc = units__parse_time(cases[i].s, now, &out);

		cr_assert_eq(rc, cases[i].rc, "'%s': rc %d, expected %d", cases[i].s, rc, cases[i].rc);
		if (rc == 0)
			cr_assert_eq(out, cases[i].ns, "'%s': %llu, expected %llu", cases[i].s,
				     (unsigned long long)out, (unsigned long long)cases[i].ns);
		else
			cr_assert_eq(out, 12345, "'%s': output changed on failure", cases[i].s);
	}
}

Test(times, format)
{
	char buf[40];

	units__format_time(T0 * S + 999, buf, sizeof(buf));
	cr_assert_str_eq(buf, "2025-11-21T16:00:00Z");
}

Test(units, format_elapsed_keeps_three_digits)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {
		{ 0, "0ns" }, { 850, "850ns" }, { 999, "999ns" }, { 1000, "1.00us" },
		{ 12049, "12.0us" }, { 349400000, "349ms" }, { 999600000, "1.00s" },
		{ 6391419314ull, "6.39s" }, { 99960000000ull, "100s" }, { 3600000000000ull, "3600s" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		units__format_elapsed(cases[i].ns, buf, sizeof(buf));
		cr_assert_str_eq(buf, cases[i].text, "%llu ns", (unsigned long long)cases[i].ns);
	}
}

Test(units, format_duration_round_trips)
{
	static const char *const shown[] = { "0", "500ms", "90s", "5m", "2h", "3d", "1w", "1500ms" };
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		uint64_t ns = 42;

		cr_assert_eq(units__parse_duration(shown[i], &ns), 0, "%s", shown[i]);
		units__format_duration(ns, buf, sizeof(buf));
		cr_assert_str_eq(buf, shown[i]);
	}
	units__format_duration(1500, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1500ns");
}
