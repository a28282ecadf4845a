/* Finding Go's pc-line table and moduledata in an ELF file. */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <string.h>

#include "runtimes/elf_symbols.h"
#include "runtimes/gopclntab_elf.h"
#include "runtimes/gostack.h"

/* The binary's allocated sections: where the table, its inline trees and
 * moduledata may be. */
struct sections {
	struct gopclntab_region data[GOPCLNTAB_MAX_REGIONS]; /* not code */
	const char *name[GOPCLNTAB_MAX_REGIONS];
	size_t n;
	uint64_t text_lo, text_hi; /* code */
	int table;                 /* index of .gopclntab, -1 none */
};

static void collect(Elf *elf, struct sections *s)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	memset(s, 0, sizeof(*s));
	s->table = -1;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_ALLOC))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_flags & SHF_EXECINSTR) {
			if (!s->text_hi || sh.sh_addr < s->text_lo)
				s->text_lo = sh.sh_addr;
			if (sh.sh_addr + sh.sh_size > s->text_hi)
				s->text_hi = sh.sh_addr + sh.sh_size;
			continue;
		}
		if (s->n == GOPCLNTAB_MAX_REGIONS || !(d = elf_getdata(scn, NULL)) || !d->d_buf ||
		    d->d_size != sh.sh_size)
			continue;
		if (name && strcmp(name, ".gopclntab") == 0)
			s->table = (int)s->n;
		s->name[s->n] = name ? name : "";
		s->data[s->n].vaddr = sh.sh_addr;
		s->data[s->n].data = d->d_buf;
		s->data[s->n].size = d->d_size;
		s->n++;
	}
}

/* A table whose functions lie in the binary's code. */
static int try_table(const struct sections *s, const uint8_t *p, size_t size)
{
	struct gopclntab_source src;
	struct gopclntab *t;
	uint64_t lo, hi;
	int err;

	memset(&src, 0, sizeof(src));
	src.data = p;
	src.size = size;
	src.text = s->text_lo;
	err = gopclntab__open(&src, &t);
	if (err)
		return err;
	gopclntab__range(t, &lo, &hi);
	gopclntab__delete(t);
	if (lo >= hi || lo < s->text_lo || hi > s->text_hi)
		return -EINVAL;
	return 0;
}

/* runtime.pclntab .. runtime.epclntab, from the symbol table. */
struct pclntab_syms {
	uint64_t start, end;
};

static int pclntab_sym(void *arg, const GElf_Sym *sym, const char *name)
{
	struct pclntab_syms *p = arg;

	if (strcmp(name, "runtime.pclntab") == 0)
		p->start = sym->st_value;
	else if (strcmp(name, "runtime.epclntab") == 0)
		p->end = sym->st_value;
	return p->start && p->end;
}

/* Where the table is: 0 with its region index, offset and size. */
static int locate(Elf *elf, const struct sections *s, size_t *r, size_t *off, size_t *size)
{
	struct pclntab_syms syms = { 0, 0 };
	size_t i, at;

	if (s->table >= 0) {
		*r = (size_t)s->table;
		*off = 0;
		*size = s->data[*r].size;
		return try_table(s, s->data[*r].data, *size) == 0 ? 0 : -ENOENT;
	}
	elf_symbols__each(elf, SHT_SYMTAB, pclntab_sym, &syms);
	for (i = 0; syms.start && syms.end > syms.start && i < s->n; i++) {
		const struct gopclntab_region *g = &s->data[i];

		if (syms.start >= g->vaddr && syms.end <= g->vaddr + g->size) {
			*r = i;
			*off = (size_t)(syms.start - g->vaddr);
			*size = (size_t)(syms.end - syms.start);
			if (try_table(s, g->data + *off, *size) == 0)
				return 0;
		}
	}
	/* stripped and not in a section of its own: its magic, 8-aligned,
	 * and a header whose functions are the binary's code */
	for (i = 0; i < s->n; i++) {
		const struct gopclntab_region *g = &s->data[i];

		for (at = (size_t)((8 - (g->vaddr & 7)) & 7); at + 64 <= g->size; at += 8) {
			const uint8_t *p = g->data + at;

			if (p[0] < 0xf0 || p[1] != 0xff || p[2] != 0xff || p[3] != 0xff || p[4] || p[5])
				continue;
			if (try_table(s, p, g->size - at) == 0) {
				*r = i;
				*off = at;
				*size = g->size - at;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* runtime.firstmoduledata: a word holding the table's address, followed
 * by its funcnametab slice (the table's address plus the header's
 * funcnameOffset), with moduledata.text equal to the header's textStart.
 * 0 when not found. */
static uint64_t find_moduledata(const struct sections *s, uint64_t table, const uint8_t *hdr,
				size_t hdr_size)
{
	uint64_t names_off, text_start;
	size_t i, at;

	if (hdr_size < 64)
		return 0;
	memcpy(&text_start, hdr + 24, 8);
	memcpy(&names_off, hdr + 32, 8);
	for (i = 0; i < s->n; i++) {
		const struct gopclntab_region *g = &s->data[i];

		if (strcmp(s->name[i], ".noptrdata") != 0 && strcmp(s->name[i], ".data") != 0 &&
		    strcmp(s->name[i], ".data.rel.ro") != 0)
			continue;
		for (at = (size_t)((8 - (g->vaddr & 7)) & 7);
		     at + GOMODULEDATA_GOFUNC_120 + 8 <= g->size; at += 8) {
			uint64_t w[2], text;

			memcpy(w, g->data + at, sizeof(w));
			if (w[0] != table || w[1] != table + names_off)
				continue;
			memcpy(&text, g->data + at + GOMODULEDATA_TEXT, 8);
			if (text_start && text != text_start)
				continue;
			return g->vaddr + at;
		}
	}
	return 0;
}

/* moduledata.gofunc, 0 when it is no address of the binary's data. */
static uint64_t read_gofunc(Elf *elf, const struct sections *s, uint64_t md, uint32_t magic)
{
	uint64_t gofunc;
	size_t i;

	if (!md || elf_symbols__read(elf, md + (magic == GOPCLNTAB_MAGIC_120 ? GOMODULEDATA_GOFUNC_120
								      : GOMODULEDATA_GOFUNC_118),
				     &gofunc, 8) != 0)
		return 0;
	for (i = 0; i < s->n; i++)
		if (gofunc >= s->data[i].vaddr && gofunc < s->data[i].vaddr + s->data[i].size)
			return gofunc;
	return 0;
}

uint64_t gopclntab_elf__bytes(Elf *elf)
{
	Elf_Scn *scn = NULL;
	uint64_t n = 0;

	if (!elf_symbols__has_section(elf, gostack__is_go_section))
		return 0;
	/* what collect() reads; sizes from a hostile file saturate */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_ALLOC) &&
		    !(sh.sh_flags & SHF_EXECINSTR))
			n = sh.sh_size > UINT64_MAX - n ? UINT64_MAX : n + sh.sh_size;
	}
	return n;
}

int gopclntab_elf__open(Elf *elf, struct gopclntab **out, struct gopclntab_elf_info *info)
{
	struct gopclntab_elf_info fi;
	struct gopclntab_source src;
	struct sections s;
	size_t r, off, size;
	uint32_t magic;
	int err;

	memset(&fi, 0, sizeof(fi));
	collect(elf, &s);
	if (!s.text_hi || locate(elf, &s, &r, &off, &size) != 0)
		return -ENOENT;
	fi.vaddr = s.data[r].vaddr + off;
	memcpy(&magic, s.data[r].data + off, 4);
	if (gobuildinfo__version(elf, &fi.version) != 0)
		memset(&fi.version, 0, sizeof(fi.version));
	if (magic == GOPCLNTAB_MAGIC_118 || magic == GOPCLNTAB_MAGIC_120) {
		fi.moduledata = find_moduledata(&s, fi.vaddr, s.data[r].data + off, size);
		fi.gofunc = read_gofunc(elf, &s, fi.moduledata, magic);
	}
	memset(&src, 0, sizeof(src));
	src.data = s.data[r].data + off;
	src.size = size;
	src.text = s.text_lo;
	src.gofunc = fi.gofunc;
	src.regions = s.data;
	src.nregions = s.n;
	src.inline_12 = goversion__num(&fi.version) >= 113;
	err = gopclntab__open(&src, out);
	if (err)
		return err == -ENOMEM ? err : -ENOENT;
	if (info)
		*info = fi;
	return 0;
}
