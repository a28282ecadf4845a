/* How many rounds a randomized test (damaged images, random code) runs.
 * All of them, but under valgrind memcheck (tests/valgrind-unit.sh sets
 * SMOLDER_TEST_ROUNDS_DIVISOR): memcheck's findings come from the paths a
 * round takes, which a tenth of the rounds take too, at thirty times the
 * cost of each; the plain and ASan runs keep every round. */
#ifndef SMOLDER_TESTS_UNIT_ROUNDS_H
#define SMOLDER_TESTS_UNIT_ROUNDS_H
#include <stdlib.h>

static inline int test_rounds(int n)
{
	const char *d = getenv("SMOLDER_TEST_ROUNDS_DIVISOR");
	long v = d ? strtol(d, NULL, 10) : 1;

	if (v > 1 && v < n)
		n = (int)(n / v);
	return n;
}

#endif
