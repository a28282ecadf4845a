/* The cache file of a binary's inline index: writing, mapping, checking. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/cachedir.h"
#include "common/fileio.h"
#include "common/hash.h"
#include "symbolize/inlineindex_file.h"
#include "symbolize/inlines.h"

static const char INLFILE_MAGIC[8] = { 'S', 'M', 'D', 'I', 'N', 'L', 'X', '\n' };

/* Bounds on what a file may claim (a real index is far below them). */
#define INLFILE_MAX_UNITS (1u << 22)
#define INLFILE_MAX_RANGES (1u << 24)
#define INLFILE_MAX_KEY 4096

struct inlfile_header {
	char magic[8];
	uint32_t version, header_bytes;
	uint64_t file_bytes;
	uint32_t key_len, nranges, nunits;
	uint32_t crc;        /* of header (this field 0), key, ranges, units */
};

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

void inlfile__name(const unsigned char *key, size_t key_len, char *buf, size_t size)
{
	snprintf(buf, size, "inl-%016" PRIx64, hash__bytes(key, key_len, 0x696e6c));
}

/* crc continued over len bytes (zlib takes a uInt length). */
static uLong crc_more(uLong crc, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;

		crc = crc32(crc, b, n);
		b += n;
		len -= n;
	}
	return crc;
}

uint32_t inlfile__crc(const void *p, size_t len)
{
	return (uint32_t)crc_more(crc32(0L, Z_NULL, 0), p, len);
}

/* Bytes of header, key and tables: where the trees start. */
static size_t tables_bytes(size_t key_len, size_t nranges, size_t nunits)
{
	return sizeof(struct inlfile_header) + align8(key_len) +
	       nranges * sizeof(struct inlfile_range) + nunits * sizeof(struct inlfile_unit);
}

static uint32_t tables_crc(const struct inlfile_header *h, const void *rest, size_t rest_len)
{
	struct inlfile_header copy = *h;

	copy.crc = 0;
	return (uint32_t)crc_more(inlfile__crc(&copy, sizeof(copy)), rest, rest_len);
}

static int check_tables(const struct inlfile *f, const struct inlfile_header *h, size_t start)
{
	size_t i;

	for (i = 0; i < f->nranges; i++) {
		const struct inlfile_range *r = &f->ranges[i];

		if (r->unit >= f->nunits || r->lo > r->hi || (i && r->lo < f->ranges[i - 1].lo))
			return 0;
	}
	for (i = 0; i < f->nunits; i++) {
		const struct inlfile_unit *u = &f->units[i];

		if (!u->len)
			continue;
		if (u->off < start || (u->off & 7) || u->off > h->file_bytes ||
		    u->len > h->file_bytes - u->off)
			return 0;
	}
	return 1;
}

int inlfile__load(struct cachedir *cache, const char *name, const unsigned char *key,
		  size_t key_len, struct inlfile *out)
{
	const struct inlfile_header *h;
	struct stat st;
	size_t start;
	void *map;
	int fd, err = -EINVAL;

	memset(out, 0, sizeof(*out));
	fd = cachedir__open_file(cache, name);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	if ((uint64_t)st.st_size < sizeof(*h) || (uint64_t)st.st_size > SIZE_MAX / 2) {
		close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	h = map;
	if (memcmp(h->magic, INLFILE_MAGIC, sizeof(h->magic)) != 0 ||
	    h->version != INLFILE_VERSION || h->header_bytes != sizeof(*h) ||
	    h->file_bytes != (uint64_t)st.st_size || h->key_len != key_len ||
	    h->key_len > INLFILE_MAX_KEY || h->nranges > INLFILE_MAX_RANGES ||
	    h->nunits > INLFILE_MAX_UNITS)
		goto fail;
	start = tables_bytes(h->key_len, h->nranges, h->nunits);
	if (start > h->file_bytes ||
	    memcmp((const char *)map + sizeof(*h), key, key_len) != 0 ||
	    tables_crc(h, (const char *)map + sizeof(*h), start - sizeof(*h)) != h->crc)
		goto fail;
	out->map = map;
	out->len = (size_t)st.st_size;
	out->ranges = (const void *)((const char *)map + sizeof(*h) + align8(key_len));
	out->nranges = h->nranges;
	out->units = (const void *)(out->ranges + h->nranges);
	out->nunits = h->nunits;
	if (!check_tables(out, h, start))
		goto fail;
	return 0;

fail:
	munmap(map, (size_t)st.st_size);
	memset(out, 0, sizeof(*out));
	return err;
}

void inlfile__unload(struct inlfile *f)
{
	if (f->map)
		munmap(f->map, f->len);
	memset(f, 0, sizeof(*f));
}

const struct inlines *inlfile__tree(const struct inlfile *f, size_t unit, int *damaged)
{
	const struct inlfile_unit *u;
	const void *p;

	*damaged = 0;
	if (unit >= f->nunits || !f->units[unit].len)
		return NULL;
	u = &f->units[unit];
	p = (const char *)f->map + u->off;
	if (inlfile__crc(p, u->len) != u->crc || !inlines__check(p, u->len)) {
		*damaged = 1;
		return NULL;
	}
	return p;
}

int inlfile__write(struct cachedir *cache, const char *name, const unsigned char *key,
		   size_t key_len, const struct inlfile_range *ranges, size_t nranges,
		   const uint64_t *die_offs, const struct inlines *const *trees, size_t nunits)
{
	static const char zeros[8];
	struct inlfile_header *h;
	struct inlfile_unit *units;
	struct cachedir_tmp t;
	size_t start, off, i, tlen;
	char *tables;
	int err;

	if (key_len > INLFILE_MAX_KEY || nranges > INLFILE_MAX_RANGES || nunits > INLFILE_MAX_UNITS)
		return -E2BIG;
	start = tables_bytes(key_len, nranges, nunits);
	tables = calloc(1, start);
	if (!tables)
		return -ENOMEM;
	h = (struct inlfile_header *)(void *)tables;
	memcpy(h->magic, INLFILE_MAGIC, sizeof(h->magic));
	h->version = INLFILE_VERSION;
	h->header_bytes = sizeof(*h);
	h->key_len = (uint32_t)key_len;
	h->nranges = (uint32_t)nranges;
	h->nunits = (uint32_t)nunits;
	memcpy(tables + sizeof(*h), key, key_len);
	memcpy(tables + sizeof(*h) + align8(key_len), ranges, nranges * sizeof(*ranges));
	units = (struct inlfile_unit *)(void *)(tables + sizeof(*h) + align8(key_len) +
						 nranges * sizeof(*ranges));
	for (i = 0, off = start; i < nunits; i++) {
		units[i].die_off = die_offs[i];
		if (!trees[i])
			continue;
		tlen = inlines__bytes(trees[i]);
		units[i].off = off;
		units[i].len = (uint32_t)tlen;
		units[i].crc = inlfile__crc(trees[i], tlen);
		off += align8(tlen);
	}
	h->file_bytes = off;
	h->crc = tables_crc(h, tables + sizeof(*h), start - sizeof(*h));
	err = cachedir__create(cache, &t);
	if (err < 0)
		goto out;
	err = fileio__write_all(t.fd, tables, start);
	for (i = 0; !err && i < nunits; i++) {
		if (!trees[i])
			continue;
		tlen = inlines__bytes(trees[i]);
		err = fileio__write_all(t.fd, trees[i], tlen);
		if (!err && align8(tlen) != tlen)
			err = fileio__write_all(t.fd, zeros, align8(tlen) - tlen);
	}
	if (err) {
		cachedir__abort(cache, &t);
		goto out;
	}
	err = cachedir__commit(cache, &t, name);
out:
	free(tables);
	return err;
}
