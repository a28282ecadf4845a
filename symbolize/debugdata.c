/* What a binary's symbols and debug data will hold, sized before anything
 * reads them. libdwfl and libdw read symbol tables and DWARF sections into
 * memory (the file is read, never mapped), and decompress MiniDebugInfo
 * (.gnu_debugdata, xz) and compressed DWARF sections (SHF_COMPRESSED, GNU
 * .zdebug_*) to whatever size the file declares, keeping it all for the
 * module's life: a 50 KB binary of another user made the agent allocate
 * 300 MB (found while fuzzing; 16 GB fit in a 2.4 MB xz image). These
 * checks read the sizes from the section headers and from the headers and
 * structure of the compressed data, without decompressing, so that a bomb
 * is refused before it goes off and the rest is charged before it is
 * read. */
#include "config.h"

#include <gelf.h>
#include <stdint.h>
#include <string.h>

#include "symbolize/debugdata.h"
#include "unwind/elffile.h"


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


/* DWARF sections: what they hold as stored (the uncompressed ones) and
 * what the compressed ones declare they inflate to. */
static void dwarf_sizes(Elf *elf, size_t shstrndx, struct debugdata_sizes *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		uint64_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elffile__name(elf, shstrndx, &sh);
		if (!elffile__is_dwarf(name))
			continue;
		n = elffile__inflated_bytes(elf, &sh, name);
		out->gnu_zdebug |= strncmp(name, ".zdebug", 7) == 0;
		if ((sh.sh_flags & SHF_COMPRESSED) || strncmp(name, ".zdebug", 7) == 0)
			out->zdebug += n > DEBUGDATA_MAX_ZDEBUG ? DEBUGDATA_MAX_ZDEBUG + 1 : n;
		else
			out->dwarf += n > DEBUGDATA_MAX_ZDEBUG ? DEBUGDATA_MAX_ZDEBUG + 1 : n;
		if (out->zdebug > DEBUGDATA_MAX_ZDEBUG || out->dwarf > DEBUGDATA_MAX_ZDEBUG)
			break;
	}
}

/* The first .gnu_debugdata (what libdwfl would decompress): its stored
 * bytes, and what they decompress to. */
static void minidebug_size(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct debugdata_sizes *out)
{
	Elf_Data *d;

	/* xz does not shrink below its input by much: a larger image is no
	 * MiniDebugInfo this agent would decompress */
	if (sh->sh_size > DEBUGDATA_MAX_MINIDEBUG) {
		out->minidebug_ok = 0;
		return;
	}
	out->symbols += sh->sh_size;
	d = elf_rawdata(scn, NULL);
	if (d && d->d_buf && debugdata__xz_unpacked_size(d->d_buf, d->d_size, &out->minidebug) != 0)
		out->minidebug_ok = 0;
}

static int has_dynamic(Elf *elf)
{
	size_t phnum, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return 1; /* whatever libdwfl makes of it: not for it */
	for (i = 0; i < phnum; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_DYNAMIC)
			return 1;
	return 0;
}

void debugdata__measure(Elf *elf, struct debugdata_sizes *out)
{
	Elf_Scn *scn = NULL;
	int seen_minidebug = 0;
	size_t shstrndx;

	memset(out, 0, sizeof(*out));
	out->minidebug_ok = out->zdebug_ok = out->symbols_ok = 1;
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
		out->symbols_ok = !has_dynamic(elf);
		return;
	}
	out->symbols = elffile__symtab_bytes(elf, SHT_SYMTAB);
	if (!out->symbols)
		out->symbols = elffile__symtab_bytes(elf, SHT_DYNSYM);
	out->symbols += elffile__symtab_bytes(elf, SHT_SYMTAB_SHNDX);
	dwarf_sizes(elf, shstrndx, out);
	out->zdebug_ok = out->zdebug <= DEBUGDATA_MAX_ZDEBUG && out->dwarf <= DEBUGDATA_MAX_ZDEBUG;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elffile__name(elf, shstrndx, &sh);
		/* libdwfl reads the notes for the build-id, and the prelink
		 * undo section for a separate debug file, whole */
		if (sh.sh_type == SHT_NOTE || strcmp(name, ".gnu.prelink_undo") == 0)
			out->symbols += sh.sh_size < DEBUGDATA_MAX_ZDEBUG ? sh.sh_size : DEBUGDATA_MAX_ZDEBUG;
		else if (strcmp(name, ".gnu_debugdata") == 0 && !seen_minidebug++)
			minidebug_size(elf, scn, &sh, out);
	}
	if (!out->symbols && !seen_minidebug && has_dynamic(elf))
		out->symbols_ok = 0;
}
