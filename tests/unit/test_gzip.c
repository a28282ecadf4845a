/* export/gzip.c: round trips, and bombs, truncated input and garbage refused. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "export/gzip.h"

Test(gzip, round_trip)
{
	size_t n = 1 << 20, i, zl, ol;
	unsigned char *in = malloc(n);
	void *z = NULL, *o = NULL;
	uint32_t x = 12345;

	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		in[i] = (unsigned char)((x >> 16) % 16 + 'a'); /* compressible, not trivial */
	}
	cr_assert_eq(gzip__compress(in, n, &z, &zl), 0);
	cr_assert(gzip__is_gzip(z, zl));
	cr_assert_lt(zl, n);
	cr_assert_eq(gzip__decompress(z, zl, n, &o, &ol), 0);
	cr_assert_eq(ol, n);
	cr_assert_eq(memcmp(in, o, n), 0);
	cr_assert_eq(((char *)o)[ol], '\0', "NUL-terminated");
	free(o);
	o = NULL;
	cr_assert_eq(gzip__decompress(z, zl, n - 1, &o, &ol), -EFBIG, "one byte over the limit");
	cr_assert_null(o, "output untouched on failure");
	free(z);

	cr_assert_eq(gzip__compress("", 0, &z, &zl), 0);
	cr_assert_eq(gzip__decompress(z, zl, 10, &o, &ol), 0);
	cr_assert_eq(ol, 0);
	free(o);
	free(z);
	free(in);
}

Test(gzip, bomb_truncated_garbage)
{
	size_t n = 32u << 20, zl, ol, cl;
	char *zeros = calloc(1, n);
	void *z = NULL, *o = NULL, *cat;

	cr_assert_eq(gzip__compress(zeros, n, &z, &zl), 0);
	cr_assert_lt(zl, 64u << 10, "32 MiB of zeros compress to a bomb");
	cr_assert_eq(gzip__decompress(z, zl, 1u << 20, &o, &ol), -EFBIG);
	cr_assert_eq(gzip__decompress(z, zl - 1, 64u << 20, &o, &ol), -EINVAL, "truncated trailer");
	cr_assert_eq(gzip__decompress(z, zl / 2, 64u << 20, &o, &ol), -EINVAL, "truncated data");
	cr_assert_eq(gzip__decompress(z, 5, 64u << 20, &o, &ol), -EINVAL, "truncated header");
	cr_assert_eq(gzip__decompress("{\"a\":1}", 7, 100, &o, &ol), -EINVAL, "not gzip");
	cr_assert_eq(gzip__decompress("\x1f\x8b\x08\x00garbagegarbage", 18, 100, &o, &ol), -EINVAL);
	cr_assert_null(o);
	free(z);

	/* concatenated members are valid gzip; trailing garbage is not */
	cr_assert_eq(gzip__compress("hello ", 6, &z, &zl), 0);
	cl = 2 * zl + 3;
	cat = malloc(cl);
	memcpy(cat, z, zl);
	memcpy((char *)cat + zl, z, zl);
	memcpy((char *)cat + 2 * zl, "xyz", 3);
	cr_assert_eq(gzip__decompress(cat, 2 * zl, 100, &o, &ol), 0);
	cr_assert_eq(ol, 12);
	cr_assert_eq(memcmp(o, "hello hello ", 12), 0);
	free(o);
	o = NULL;
	cr_assert_eq(gzip__decompress(cat, cl, 100, &o, &ol), -EINVAL);
	free(cat);
	free(z);
	free(zeros);
}
