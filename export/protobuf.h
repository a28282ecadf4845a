/* A minimal protocol-buffers writer (varints, length-delimited fields,
 * packed repeated fields) into a growable memory buffer: enough to emit
 * pprof's profile.proto without a protobuf library. */
#ifndef SMOLDER_EXPORT_PROTOBUF_H
#define SMOLDER_EXPORT_PROTOBUF_H
#include <stddef.h>
#include <stdint.h>

#define PROTOBUF_VARINT 0
#define PROTOBUF_LEN 2

/* The bytes written so far. The first failed append (-ENOMEM) is sticky:
 * err is set, later appends do nothing, so a caller may write a whole
 * message and check err once. Zero-initialize (or protobuf__init) before
 * use; protobuf__free releases buf. Not thread-safe. */
struct protobuf {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

void protobuf__init(struct protobuf *b);
void protobuf__free(struct protobuf *b);
/* Empties b, keeping its allocation (and clearing err). */
void protobuf__reset(struct protobuf *b);

/* Raw encodings. Each returns b->err (0 or -ENOMEM). */
int protobuf__varint(struct protobuf *b, uint64_t v);
int protobuf__raw(struct protobuf *b, const void *data, size_t len);
int protobuf__tag(struct protobuf *b, uint32_t field, unsigned wire_type);

/* Fields. uint64/int64/bool are varint fields (int64 as two's complement,
 * as protobuf does for int64, not zig-zag); they are written even when 0
 * (callers omit default values themselves where they care). */
int protobuf__uint64(struct protobuf *b, uint32_t field, uint64_t v);
int protobuf__int64(struct protobuf *b, uint32_t field, int64_t v);
int protobuf__bytes(struct protobuf *b, uint32_t field, const void *data, size_t len);
int protobuf__string(struct protobuf *b, uint32_t field, const char *s);
/* An embedded message: msg's bytes as a length-delimited field. An error
 * stored in msg propagates to b. */
int protobuf__message(struct protobuf *b, uint32_t field, const struct protobuf *msg);
/* A packed repeated varint field (one length-delimited field holding
 * v[0..n) as varints); nothing is written for n == 0. */
int protobuf__packed_uint64(struct protobuf *b, uint32_t field, const uint64_t *v, size_t n);
int protobuf__packed_int64(struct protobuf *b, uint32_t field, const int64_t *v, size_t n);

/* Bytes the varint encoding of v takes (1..10). */
size_t protobuf__varint_size(uint64_t v);

#endif
