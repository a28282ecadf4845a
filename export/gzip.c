/* gzip helpers over zlib (1.2.7 compatible). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/gzip.h"

/* zlib counts in uInt: feed and drain it in pieces so size_t lengths > 4 GiB work. */
#define CHUNK_MAX ((size_t)1 << 30)

int gzip__is_gzip(const void *buf, size_t len)
{
	const unsigned char *b = buf;

	return len >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

int gzip__compress(const void *in, size_t len, void **out, size_t *outlen)
{
	z_stream zs;
	unsigned char *buf = NULL, *nb;
	const unsigned char *src = in;
	size_t cap, used = 0, left = len;
	int zr, ret;

	memset(&zs, 0, sizeof(zs));
	/* windowBits 15 + 16 asks zlib for the gzip wrapper instead of zlib's. */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;

	/* A good first guess; the loop grows it when a piece does not fit. */
	cap = len / 4 + 64;
	if (len <= CHUNK_MAX)
		cap = deflateBound(&zs, (uLong)len) + 32;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out_end;
	}

	for (;;) {
		size_t in_piece = left < CHUNK_MAX ? left : CHUNK_MAX;
		size_t room;
		int flush;

		zs.next_in = (Bytef *)(uintptr_t)src;
		zs.avail_in = (uInt)in_piece;
		flush = in_piece == left ? Z_FINISH : Z_NO_FLUSH;
		do {
			if (used == cap) {
				if (cap > SIZE_MAX / 2) {
					ret = -ENOMEM;
					goto out_free;
				}
				nb = realloc(buf, cap * 2);
				if (!nb) {
					ret = -ENOMEM;
					goto out_free;
				}
				buf = nb;
				cap *= 2;
			}
			room = cap - used;
			if (room > CHUNK_MAX)
				room = CHUNK_MAX;
			zs.next_out = buf + used;
			zs.avail_out = (uInt)room;
			zr = deflate(&zs, flush);
			if (zr == Z_STREAM_ERROR) {
				ret = -EINVAL;
				goto out_free;
			}
			used += room - zs.avail_out;
		} while (zs.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
		src += in_piece;
		left -= in_piece;
		if (flush == Z_FINISH)
			break;
	}

	*out = buf;
	*outlen = used;
	deflateEnd(&zs);
	return 0;

out_free:
	free(buf);
out_end:
	deflateEnd(&zs);
	return ret;
}

int gzip__decompress(const void *in, size_t len, size_t max_out, void **out, size_t *outlen)
{
	z_stream zs;
	const unsigned char *src = in;
	unsigned char *buf = NULL, *nb;
	size_t cap, used = 0, left = len;
	int zr, ret;

	if (!gzip__is_gzip(in, len) || max_out >= SIZE_MAX - 1)
		return -EINVAL;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return -ENOMEM;

	cap = len < max_out / 4 ? len * 4 + 64 : max_out + 1;
	if (cap > max_out + 1)
		cap = max_out + 1;
	if (cap < 64)
		cap = 64;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out_end;
	}

	/* Bounded: each round consumes input or produces output, and output is
	 * capped at max_out; a stall with nothing to consume is truncation. */
	for (;;) {
		size_t in_piece, room;

		if (zs.avail_in == 0 && left > 0) {
			in_piece = left < CHUNK_MAX ? left : CHUNK_MAX;
			zs.next_in = (Bytef *)(uintptr_t)src;
			zs.avail_in = (uInt)in_piece;
			src += in_piece;
			left -= in_piece;
		}
		if (used == cap) {
			/* One byte past max_out is allowed so that "exactly max_out"
			 * and "more" can be told apart. */
			if (cap > max_out) {
				ret = -EFBIG;
				goto out_free;
			}
			cap = cap > max_out / 2 ? max_out + 1 : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				ret = -ENOMEM;
				goto out_free;
			}
			buf = nb;
		}
		room = cap - used;
		if (room > CHUNK_MAX)
			room = CHUNK_MAX;
		zs.next_out = buf + used;
		zs.avail_out = (uInt)room;
		zr = inflate(&zs, Z_NO_FLUSH);
		used += room - zs.avail_out;
		if (used > max_out) {
			ret = -EFBIG;
			goto out_free;
		}
		if (zr == Z_STREAM_END) {
			/* Concatenated members are valid gzip (RFC 1952 §2.2);
			 * anything else after the end is garbage. */
			if (zs.avail_in == 0 && left == 0)
				break;
			if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
				if (inflateReset(&zs) != Z_OK) {
					ret = -EINVAL;
					goto out_free;
				}
				continue;
			}
			ret = -EINVAL;
			goto out_free;
		}
		if (zr == Z_BUF_ERROR) {
			/* No progress possible: out of input before the end. */
			if (zs.avail_in == 0 && left == 0) {
				ret = -EINVAL;
				goto out_free;
			}
			if (zs.avail_out != 0) {
				ret = -EINVAL;
				goto out_free;
			}
			continue;
		}
		if (zr == Z_MEM_ERROR) {
			ret = -ENOMEM;
			goto out_free;
		}
		if (zr != Z_OK) {
			ret = -EINVAL;
			goto out_free;
		}
		if (zs.avail_in == 0 && left == 0 && zs.avail_out != 0) {
			/* inflate consumed everything, had room, and did not end. */
			ret = -EINVAL;
			goto out_free;
		}
	}

	/* Room for the NUL: buffers are allocated with cap + 1 after growth;
	 * the first one may be exactly full. */
	if (used == cap) {
		nb = realloc(buf, used + 1);
		if (!nb) {
			ret = -ENOMEM;
			goto out_free;
		}
		buf = nb;
	}
	buf[used] = '\0';
	*out = buf;
	*outlen = used;
	inflateEnd(&zs);
	return 0;

out_free:
	free(buf);
out_end:
	inflateEnd(&zs);
	return ret;
}
