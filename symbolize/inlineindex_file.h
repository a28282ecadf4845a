/* The cache file of a binary's inline index (symbolize/inlineindex.h).
 *
 * Layout (native byte order, every part 8-byte aligned):
 *   header      magic "SMDINLX\n", version, sizes, counts, and a CRC-32 of
 *               the header, key and both tables
 *   key         the binary's identity (inlineindex__key), compared in full
 *   ranges[]    { lo, hi, unit }: every unit's address ranges as ELF
 *               virtual addresses, sorted by lo
 *   units[]     { DIE offset, tree offset, tree length, tree CRC-32 };
 *               length 0: the unit's tree is not in the file
 *   trees       blocks of symbolize/inlines.h
 * The tables are checked when the file is opened; a tree when it is first
 * used (its CRC, then inlines__check). The file is written whole to a
 * temporary name and renamed (common/cachedir.h): readers see either the
 * old file or the new one. */
#ifndef SMOLDER_SYMBOLIZE_INLINEINDEX_FILE_H
#define SMOLDER_SYMBOLIZE_INLINEINDEX_FILE_H
#include <stddef.h>
#include <stdint.h>

struct cachedir;
struct inlines;

#define INLFILE_VERSION 2

struct inlfile_range {
	uint64_t lo, hi;
	uint32_t unit, pad;
};

struct inlfile_unit {
	uint64_t die_off;   /* of the unit's DIE in .debug_info */
	uint64_t off;       /* of its tree in the file */
	uint32_t len, crc;  /* len 0: no tree */
};

/* A mapped, checked file. */
struct inlfile {
	void *map;
	size_t len;
	const struct inlfile_range *ranges;
	size_t nranges;
	const struct inlfile_unit *units;
	size_t nunits;
};

/* The file name for a key: "inl-" and 16 hex digits of its hash. */
void inlfile__name(const unsigned char *key, size_t key_len, char *buf, size_t size);

/* Maps the file `name` of cache and checks its header, key and tables.
 * Returns 0, -ENOENT (no file), -EINVAL (damaged or another binary's), or
 * another -errno. */
int inlfile__load(struct cachedir *cache, const char *name, const unsigned char *key,
		  size_t key_len, struct inlfile *out);
void inlfile__unload(struct inlfile *f);

/* The tree of unit i, its CRC and structure checked: NULL when the file has
 * none or it is damaged (*damaged set then). */
const struct inlines *inlfile__tree(const struct inlfile *f, size_t unit, int *damaged);

/* CRC-32 of a tree, as the file stores it. */
uint32_t inlfile__crc(const void *p, size_t len);

/* Writes the file: the ranges, and for each of nunits units its DIE offset
 * and tree (NULL: none). Returns 0 or -errno. */
int inlfile__write(struct cachedir *cache, const char *name, const unsigned char *key,
		   size_t key_len, const struct inlfile_range *ranges, size_t nranges,
		   const uint64_t *die_offs, const struct inlines *const *trees, size_t nunits);

#endif
