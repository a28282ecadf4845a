/* gzip (RFC 1952) compression and bounded decompression in memory, via zlib. */
#ifndef SMOLDER_EXPORT_GZIP_H
#define SMOLDER_EXPORT_GZIP_H
#include <stddef.h>

/* Compresses in[0..len) into a gzip member. On success *out is malloc'd (the
 * caller frees it) and *outlen is its size. Returns 0, -ENOMEM, or -EINVAL
 * (zlib refused). Outputs are untouched on failure. Thread-safe. */
int gzip__compress(const void *in, size_t len, void **out, size_t *outlen);

/* Decompresses gzip data in[0..len) (one or more concatenated members), never
 * producing more than max_out bytes: input is hostile and may be a
 * decompression bomb. On success *out is malloc'd (caller frees), NUL-
 * terminated one byte past *outlen for the convenience of text parsers.
 * Returns 0; -EINVAL for bad, truncated data or trailing garbage; -EFBIG when
 * the output would exceed max_out; -ENOMEM. Outputs untouched on failure.
 * Thread-safe. */
int gzip__decompress(const void *in, size_t len, size_t max_out, void **out, size_t *outlen);

/* True when buf starts with the gzip magic bytes. */
int gzip__is_gzip(const void *buf, size_t len);

#endif
