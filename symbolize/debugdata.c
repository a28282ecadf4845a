/* Compressed debug data, sized before anything inflates it. libdwfl and
 * libdw decompress MiniDebugInfo (.gnu_debugdata, xz) and compressed DWARF
 * sections (SHF_COMPRESSED, GNU .zdebug_*) into memory, to whatever size
 * the file declares, and keep it for the module's life: a 50 KB binary of
 * another user made the agent allocate 300 MB (found while fuzzing; 16 GB
 * fit in a 2.4 MB xz image). These checks read the sizes from the headers
 * and structure of the compressed data, without decompressing, so that a
 * bomb is refused before it goes off. */
#include "config.h"

#include <gelf.h>
#include <stdint.h>
#include <string.h>

#include "symbolize/debugdata.h"


/* A multibyte xz integer (at most 9 bytes, 7 bits each). 0 or -1. */
static int xz_varint(const uint8_t *b, size_t len, size_t *p, uint64_t *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < 9; i++) {
		if (*p >= len)
			return -1;
		*v |= (uint64_t)(b[*p] & 0x7f) << (7 * i);
		if (!(b[(*p)++] & 0x80))
			return 0;
	}
	return -1;
}

/* The number of bytes the xz image b[0..len) decompresses to, read from its
 * structure without decompressing: the first stream (the only one libdwfl's
 * decoder reads), whose blocks must be LZMA2 after size-preserving filters;
 * LZMA2 chunks state their unpacked sizes, which the decoder enforces.
 * Returns 0 and *out, or -1 for anything unexpected (treated as a bomb). */
int debugdata__xz_unpacked_size(const uint8_t *b, size_t len, uint64_t *out)
{
	static const uint8_t magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
	uint64_t total = 0;
	size_t p = 12, check;

	if (len < 12 || memcmp(b, magic, 6) != 0 || b[6] != 0 || (b[7] & 0xf0))
		return -1;
	check = (b[7] & 0x0f) ? (size_t)4 << (((b[7] & 0x0f) - 1) / 3) : 0;
	for (;;) {
		size_t hstart = p, hsize, dstart, nfilters, f;
		uint64_t v, id, psize;
		uint8_t flags;

		if (p >= len)
			return -1;
		if (b[p] == 0)
			break; /* the index: every block has been seen */
		hsize = ((size_t)b[p] + 1) * 4;
		if (len - p < hsize)
			return -1;
		flags = b[p + 1];
		if (flags & 0x3c)
			return -1;
		nfilters = (size_t)(flags & 3) + 1;
		p += 2;
		if ((flags & 0x40) && xz_varint(b, hstart + hsize, &p, &v))
			return -1;
		if ((flags & 0x80) && xz_varint(b, hstart + hsize, &p, &v))
			return -1;
		for (f = 0; f < nfilters; f++) {
			if (xz_varint(b, hstart + hsize, &p, &id) ||
			    xz_varint(b, hstart + hsize, &p, &psize) || psize > hstart + hsize - p)
				return -1;
			p += (size_t)psize;
			/* last: LZMA2; before it only delta (3) and the branch
			 * converters (4..11), which keep the size */
			if (f + 1 == nfilters ? id != 0x21 : (id < 3 || id > 11))
				return -1;
		}
		p = hstart + hsize;
		dstart = p;
		/* LZMA2 chunks up to the end marker */
		for (;;) {
			uint8_t c;

			if (p >= len)
				return -1;
			c = b[p++];
			if (c == 0)
				break;
			if (c == 1 || c == 2) {
				if (len - p < 2)
					return -1;
				v = ((uint64_t)b[p] << 8 | b[p + 1]) + 1;
				p += 2;
				if (len - p < v)
					return -1;
				p += (size_t)v;
			} else if (c >= 0x80) {
				size_t packed, hdr = c >= 0xc0 ? 5 : 4;

				if (len - p < hdr)
					return -1;
				v = ((uint64_t)(c & 0x1f) << 16 | (uint64_t)b[p] << 8 | b[p + 1]) + 1;
				packed = ((size_t)b[p + 2] << 8 | b[p + 3]) + 1;
				p += hdr;
				if (len - p < packed)
					return -1;
				p += packed;
			} else {
				return -1;
			}
			total += v;
			if (total > DEBUGDATA_MAX_MINIDEBUG)
				return -1;
		}
		/* block padding to a multiple of 4, then the check */
		p += (4 - ((p - dstart) & 3)) & 3;
		if (p > len || len - p < check)
			return -1;
		p += check;
	}
	*out = total;
	return 0;
}


/* The decompressed size that the compressed sections of elf declare. */
static uint64_t zdebug_size(Elf *elf, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	uint64_t total = 0;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_flags & SHF_COMPRESSED) {
			/* an unreadable header: count it as too big */
			total += gelf_getchdr(scn, &ch) ? ch.ch_size : UINT64_MAX / 2;
		} else if ((name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			   strncmp(name, ".zdebug", 7) == 0 && (d = elf_rawdata(scn, NULL)) &&
			   d->d_buf && d->d_size >= 12 && memcmp(d->d_buf, "ZLIB", 4) == 0) {
			const uint8_t *b = d->d_buf;
			uint64_t v = 0;
			int i;

			for (i = 4; i < 12; i++)
				v = v << 8 | b[i]; /* big-endian */
			total += v > UINT64_MAX / 2 ? UINT64_MAX / 2 : v;
		}
		if (total > DEBUGDATA_MAX_ZDEBUG)
			break;
	}
	return total;
}

void debugdata__measure(int fd, struct debugdata_sizes *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	out->minidebug = out->zdebug = 0;
	out->minidebug_ok = out->zdebug_ok = 1;
	elf_version(EV_CURRENT); /* before the first elf_begin; idempotent */
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return; /* not ELF to libelf either: libdwfl will refuse it */
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		goto out;
	out->zdebug = zdebug_size(elf, shstrndx);
	out->zdebug_ok = out->zdebug <= DEBUGDATA_MAX_ZDEBUG;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debugdata") != 0)
			continue;
		d = elf_rawdata(scn, NULL);
		/* what libdwfl would decompress: the first such section */
		if (d && d->d_buf && debugdata__xz_unpacked_size(d->d_buf, d->d_size, &out->minidebug) != 0)
			out->minidebug_ok = 0;
		break;
	}
out:
	elf_end(elf);
}
