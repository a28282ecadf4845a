/* Protocol-buffers wire format writer (varint and length-delimited only). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/protobuf.h"

void protobuf__init(struct protobuf *b)
{
	memset(b, 0, sizeof(*b));
}

void protobuf__free(struct protobuf *b)
{
	if (!b)
		return;
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

void protobuf__reset(struct protobuf *b)
{
	b->len = 0;
	b->err = 0;
}

static int reserve(struct protobuf *b, size_t extra)
{
	size_t ncap;
	uint8_t *n;

	if (b->err)
		return b->err;
	if (extra <= b->cap - b->len)
		return 0;
	if (extra > SIZE_MAX / 2 - b->len) {
		b->err = -ENOMEM;
		return b->err;
	}
	ncap = b->cap ? b->cap : 256;
	while (ncap - b->len < extra)
		ncap *= 2;
	n = realloc(b->buf, ncap);
	if (!n) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->buf = n;
	b->cap = ncap;
	return 0;
}

size_t protobuf__varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

int protobuf__varint(struct protobuf *b, uint64_t v)
{
	if (reserve(b, 10))
		return b->err;
	while (v >= 0x80) {
		b->buf[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->buf[b->len++] = (uint8_t)v;
	return 0;
}

int protobuf__raw(struct protobuf *b, const void *data, size_t len)
{
	if (reserve(b, len))
		return b->err;
	if (len)
		memcpy(b->buf + b->len, data, len);
	b->len += len;
	return 0;
}

int protobuf__tag(struct protobuf *b, uint32_t field, unsigned wire_type)
{
	return protobuf__varint(b, ((uint64_t)field << 3) | (wire_type & 7u));
}

int protobuf__uint64(struct protobuf *b, uint32_t field, uint64_t v)
{
	protobuf__tag(b, field, PROTOBUF_VARINT);
	return protobuf__varint(b, v);
}

int protobuf__int64(struct protobuf *b, uint32_t field, int64_t v)
{
	/* int64 negatives take ten bytes: the wire form is the two's
	 * complement as uint64. */
	return protobuf__uint64(b, field, (uint64_t)v);
}

int protobuf__bytes(struct protobuf *b, uint32_t field, const void *data, size_t len)
{
	protobuf__tag(b, field, PROTOBUF_LEN);
	protobuf__varint(b, len);
	return protobuf__raw(b, data, len);
}

int protobuf__string(struct protobuf *b, uint32_t field, const char *s)
{
	return protobuf__bytes(b, field, s, strlen(s));
}

int protobuf__message(struct protobuf *b, uint32_t field, const struct protobuf *msg)
{
	if (msg->err && !b->err)
		b->err = msg->err;
	return protobuf__bytes(b, field, msg->buf, msg->len);
}

int protobuf__packed_uint64(struct protobuf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t i, size = 0;

	if (!n)
		return b->err;
	for (i = 0; i < n; i++)
		size += protobuf__varint_size(v[i]);
	protobuf__tag(b, field, PROTOBUF_LEN);
	protobuf__varint(b, size);
	if (reserve(b, size))
		return b->err;
	for (i = 0; i < n; i++)
		protobuf__varint(b, v[i]);
	return b->err;
}

int protobuf__packed_int64(struct protobuf *b, uint32_t field, const int64_t *v, size_t n)
{
	size_t i, size = 0;

	if (!n)
		return b->err;
	for (i = 0; i < n; i++)
		size += protobuf__varint_size((uint64_t)v[i]);
	protobuf__tag(b, field, PROTOBUF_LEN);
	protobuf__varint(b, size);
	if (reserve(b, size))
		return b->err;
	for (i = 0; i < n; i++)
		protobuf__varint(b, (uint64_t)v[i]);
	return b->err;
}
