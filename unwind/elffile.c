/* ELF files of other users, read into our memory, never mapped. */
#include "config.h"

#include <string.h>

#include "unwind/elffile.h"

/* A GNU .zdebug_* section starts with "ZLIB" and the inflated size, big
 * endian; an SHF_COMPRESSED one with an Elf64_Chdr (or Elf32_Chdr). */
#define ZDEBUG_HEAD 12
#define TOO_BIG (UINT64_MAX / 2)

/* Sizes come from hostile headers: sums saturate. */
static uint64_t add(uint64_t a, uint64_t b)
{
	return a > TOO_BIG || b > TOO_BIG - a ? TOO_BIG : a + b;
}

Elf *elffile__read(int fd)
{
	elf_version(EV_CURRENT); /* before the first elf_begin; idempotent */
	return elf_begin(fd, ELF_C_READ, NULL);
}

const char *elffile__name(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
	const char *name = elf_strptr(elf, shstrndx, sh->sh_name);

	return name ? name : "";
}

bool elffile__is_dwarf(const char *name)
{
	return strncmp(name, ".debug_", 7) == 0 || strncmp(name, ".zdebug_", 8) == 0;
}

bool elffile__is_section(const char *name, const char *dwarf_name)
{
	if (strcmp(name, dwarf_name) == 0)
		return true;
	/* ".zdebug_frame" for ".debug_frame" */
	return name[0] == '.' && name[1] == 'z' && dwarf_name[0] == '.' &&
	       strcmp(name + 2, dwarf_name + 1) == 0;
}

/* The first len bytes of a section's data in the file: only those are
 * read (not the whole section, as elf_getdata would). */
static const unsigned char *head(Elf *elf, const GElf_Shdr *sh, size_t len)
{
	Elf_Data *d;

	if (sh->sh_size < len)
		return NULL;
	d = elf_getdata_rawchunk(elf, (int64_t)sh->sh_offset, len, ELF_T_BYTE);
	return d && d->d_buf && d->d_size == len ? d->d_buf : NULL;
}

uint64_t elffile__inflated_bytes(Elf *elf, const GElf_Shdr *sh, const char *name)
{
	const unsigned char *h;
	uint64_t v = 0;
	int i;

	if (sh->sh_type == SHT_NOBITS)
		return 0;
	if (sh->sh_flags & SHF_COMPRESSED) {
		if (gelf_getclass(elf) == ELFCLASS64) {
			Elf64_Chdr ch;

			h = head(elf, sh, sizeof(ch));
			if (!h)
				return TOO_BIG;
			memcpy(&ch, h, sizeof(ch));
			return ch.ch_size > TOO_BIG ? TOO_BIG : ch.ch_size;
		} else {
			Elf32_Chdr ch;

			h = head(elf, sh, sizeof(ch));
			if (!h)
				return TOO_BIG;
			memcpy(&ch, h, sizeof(ch));
			return ch.ch_size;
		}
	}
	if (strncmp(name, ".zdebug", 7) != 0)
		return sh->sh_size;
	h = head(elf, sh, ZDEBUG_HEAD);
	if (!h || memcmp(h, "ZLIB", 4) != 0)
		return sh->sh_size; /* not compressed after all: libdw leaves it */
	for (i = 4; i < ZDEBUG_HEAD; i++)
		v = v << 8 | h[i];
	return v > TOO_BIG ? TOO_BIG : v;
}

uint64_t elffile__symtab_bytes(Elf *elf, GElf_Word sh_type)
{
	Elf_Scn *scn = NULL;
	uint64_t n = 0;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh, link;
		Elf_Scn *str;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type)
			continue;
		n = add(n, sh.sh_size);
		str = elf_getscn(elf, sh.sh_link);
		if (str && gelf_getshdr(str, &link) && link.sh_type != SHT_NOBITS)
			n = add(n, link.sh_size);
	}
	return n;
}

size_t elffile__hide(Elf *elf, bool (*hide)(const char *name, const GElf_Shdr *sh, void *arg),
		     void *arg)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, n = 0;

	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !hide(elffile__name(elf, shstrndx, &sh), &sh, arg))
			continue;
		sh.sh_type = SHT_NOBITS;
		sh.sh_size = 0;
		sh.sh_name = 0;
		sh.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
		if (gelf_update_shdr(scn, &sh))
			n++;
	}
	return n;
}
