/* Symbols and sections of a binary, for recognising runtimes. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/elf_symbols.h"

void elf_symbols__each(Elf *elf, Elf64_Word sh_type, elf_symbols_fn fn, void *arg)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (gelf_getsym(d, (int)i, &sym) &&
			    (name = elf_strptr(elf, sh.sh_link, sym.st_name)) != NULL && fn(arg, &sym, name))
				return;
		}
	}
}

struct wanted {
	const char *const *names;
	uint64_t *vaddrs;
	size_t n, found;
};

static int wanted_object(void *arg, const GElf_Sym *sym, const char *name)
{
	struct wanted *w = arg;
	size_t k;

	if (sym->st_shndx == SHN_UNDEF || GELF_ST_TYPE(sym->st_info) != STT_OBJECT)
		return 0;
	for (k = 0; k < w->n; k++)
		if (!w->vaddrs[k] && strcmp(name, w->names[k]) == 0) {
			w->vaddrs[k] = sym->st_value;
			w->found++;
		}
	return w->found == w->n;
}

int elf_symbols__objects(Elf *elf, const char *const *names, size_t n, uint64_t *vaddrs)
{
	struct wanted w = { names, vaddrs, n, 0 };
	size_t k;

	for (k = 0; k < n; k++)
		vaddrs[k] = 0;
	if (elf && n)
		elf_symbols__each(elf, SHT_DYNSYM, wanted_object, &w);
	return (int)w.found;
}

bool elf_symbols__has_section(Elf *elf, int (*is)(const char *name))
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *s;

		if (gelf_getshdr(scn, &sh) && (s = elf_strptr(elf, shstrndx, sh.sh_name)) && is(s))
			return true;
	}
	return false;
}

int elf_symbols__read(Elf *elf, uint64_t vaddr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		uint64_t off;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    vaddr < sh.sh_addr || vaddr - sh.sh_addr >= sh.sh_size)
			continue;
		off = vaddr - sh.sh_addr;
		/* .bss: a constant that is 0 is kept there, and holds 0 */
		if (sh.sh_type == SHT_NOBITS) {
			if (len > sh.sh_size - off)
				return -ENOENT;
			memset(buf, 0, len);
			return 0;
		}
		if (len > sh.sh_size - off)
			return -ENOENT;
		/* those bytes only: the file is read, not mapped, and the whole
		 * section (a library's .rodata) would stay in memory */
		d = elf_getdata_rawchunk(elf, (int64_t)(sh.sh_offset + off), len, ELF_T_BYTE);
		if (!d || !d->d_buf || d->d_size != len)
			return -ENOENT;
		memcpy(buf, d->d_buf, len);
		return 0;
	}
	return -ENOENT;
}

int elf_symbols__soname(Elf *elf, char *buf, size_t size)
{
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Dyn dyn;
			const char *name;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag != DT_SONAME)
				continue;
			name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!name || strlen(name) >= size)
				return -ENOENT;
			memcpy(buf, name, strlen(name) + 1);
			return 0;
		}
	}
	return -ENOENT;
}
