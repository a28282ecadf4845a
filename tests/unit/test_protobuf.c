/* export/protobuf.c: varints and fields, byte for byte as the encoding guide has them. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "export/protobuf.h"

static void expect_bytes(const struct protobuf *b, const uint8_t *want, size_t n)
{
	size_t i;

	cr_assert_eq(b->err, 0);
	cr_assert_eq(b->len, n, "length %zu, expected %zu", b->len, n);
	for (i = 0; i < n; i++)
		cr_assert_eq(b->buf[i], want[i], "byte %zu: %02x, expected %02x", i, b->buf[i], want[i]);
}

Test(protobuf, varints)
{
	static const struct { uint64_t v; uint8_t bytes[10]; size_t n; } cases[] = {
		{ 0, {0x00}, 1 },
		{ 1, {0x01}, 1 },
		{ 127, {0x7f}, 1 },
		{ 128, {0x80, 0x01}, 2 },
		{ 150, {0x96, 0x01}, 2 },
		{ 300, {0xac, 0x02}, 2 },
		{ 16384, {0x80, 0x80, 0x01}, 3 },
		{ UINT64_MAX, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct protobuf b;

		protobuf__init(&b);
		cr_assert_eq(protobuf__varint(&b, cases[i].v), 0);
		expect_bytes(&b, cases[i].bytes, cases[i].n);
		cr_assert_eq(protobuf__varint_size(cases[i].v), cases[i].n);
		protobuf__free(&b);
	}
}

Test(protobuf, fields)
{
	/* The examples of the protobuf encoding guide. */
	static const uint8_t int_field[] = {0x08, 0x96, 0x01};
	static const uint8_t str_field[] = {0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'};
	static const uint8_t embedded[] = {0x1a, 0x03, 0x08, 0x96, 0x01};
	static const uint8_t packed[] = {0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05};
	static const uint8_t neg[] = {0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	static const uint64_t pv[] = {3, 270, 86942};
	struct protobuf b, sub;

	protobuf__init(&b);
	protobuf__init(&sub);
	protobuf__uint64(&b, 1, 150);
	expect_bytes(&b, int_field, sizeof(int_field));

	protobuf__reset(&b);
	protobuf__string(&b, 2, "testing");
	expect_bytes(&b, str_field, sizeof(str_field));

	protobuf__reset(&b);
	protobuf__uint64(&sub, 1, 150);
	protobuf__message(&b, 3, &sub);
	expect_bytes(&b, embedded, sizeof(embedded));

	protobuf__reset(&b);
	protobuf__packed_uint64(&b, 4, pv, 3);
	expect_bytes(&b, packed, sizeof(packed));

	protobuf__reset(&b);
	protobuf__packed_uint64(&b, 4, pv, 0); /* empty: nothing at all */
	cr_assert_eq(b.len, 0);

	protobuf__int64(&b, 2, -1); /* int64: ten-byte two's complement */
	expect_bytes(&b, neg, sizeof(neg));

	/* A long string needs a two-byte length. */
	protobuf__reset(&b);
	{
		char s[201];

		memset(s, 'x', 200);
		s[200] = '\0';
		protobuf__string(&b, 6, s);
		cr_assert_eq(b.len, 1 + 2 + 200);
		cr_assert_eq(b.buf[0], 0x32);
		cr_assert_eq(b.buf[1], 0xc8);
		cr_assert_eq(b.buf[2], 0x01);
	}
	protobuf__free(&b);
	protobuf__free(&sub);
}
