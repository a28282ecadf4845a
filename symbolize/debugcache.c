/* Writing and finding decompressed copies of separate debug files. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cachedir.h"
#include "common/hash.h"
#include "common/fileio.h"
#include "symbolize/debugcache.h"

/* Bumped when the copy's layout changes: old copies then age out. */
#define DEBUGCACHE_VERSION 1
#define MAX_SECTIONS 65280 /* below SHN_LORESERVE: no extended numbering */

/* Sections nothing in smolder reads (variable locations, line tables,
 * macros): left out of the copy, as SHT_NOBITS without a name, so libdw
 * neither inflates nor indexes them. */
static int unused_section(const char *name)
{
	static const char *const names[] = {
		".debug_loc", ".debug_loclists", ".debug_line", ".debug_macro", ".debug_macinfo",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}

int debugcache__name(int fd, const unsigned char *id, size_t len, char *buf, size_t size)
{
	char hex[2 * 64 + 1];
	struct stat st;
	uint64_t h;
	size_t i;
	int n;

	if (len == 0 || len > 64)
		return -ENAMETOOLONG;
	if (fstat(fd, &st) < 0)
		return -errno;
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	h = hash__mix(hash__mix(DEBUGCACHE_VERSION, (uint64_t)st.st_dev), (uint64_t)st.st_ino);
	h = hash__mix(hash__mix(h, (uint64_t)st.st_size), (uint64_t)st.st_mtim.tv_sec);
	h = hash__mix(h, (uint64_t)st.st_mtim.tv_nsec);
	n = snprintf(buf, size, "debug-%s-%016llx", hex, (unsigned long long)h);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	if (a <= 1)
		return v;
	return (v + a - 1) / a * a;
}

/* What the copy holds per section; filled by plan(), written by copy(). */
struct out_section {
	Elf64_Shdr sh;
	int inflate; /* SHF_COMPRESSED in the original */
	int keep;    /* data goes into the copy */
};

/* Lays the copy out: ELF header, program headers, section data, section
 * headers. Returns 0, -ENOENT (nothing compressed that we keep),
 * -EOPNOTSUPP, -EFBIG or -EINVAL for a malformed file. */
static int plan(Elf *elf, const Elf64_Ehdr *eh, struct out_section *out, size_t nsec,
		uint64_t limit, uint64_t *shoff, uint64_t *total)
{
	size_t shstrndx, i;
	uint64_t off = sizeof(Elf64_Ehdr) + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr);
	int compressed = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -EINVAL;
	memset(&out[0], 0, sizeof(out[0]));
	for (i = 1; i < nsec; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		Elf64_Shdr *sh = scn ? elf64_getshdr(scn) : NULL;
		const char *name;

		if (!sh)
			return -EINVAL;
		out[i].sh = *sh;
		out[i].keep = sh->sh_type != SHT_NOBITS && sh->sh_size > 0;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (!name)
			name = "";
		if (strncmp(name, ".zdebug", 7) == 0)
			return -EOPNOTSUPP;
		if (out[i].keep && unused_section(name)) {
			out[i].keep = 0;
			out[i].sh.sh_type = SHT_NOBITS;
			out[i].sh.sh_name = 0;
			out[i].sh.sh_size = 0;
			out[i].sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
		}
		if (out[i].keep && (sh->sh_flags & SHF_COMPRESSED)) {
			GElf_Chdr ch;

			if (!gelf_getchdr(scn, &ch) || ch.ch_type != ELFCOMPRESS_ZLIB)
				return -EOPNOTSUPP;
			if (ch.ch_size > limit)
				return -EFBIG;
			out[i].inflate = 1;
			out[i].sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			out[i].sh.sh_size = ch.ch_size;
			out[i].sh.sh_addralign = ch.ch_addralign;
			compressed = 1;
		}
		if (out[i].keep) {
			off = align_up(off, out[i].sh.sh_addralign > 4096 ? 4096 :
					    out[i].sh.sh_addralign);
			out[i].sh.sh_offset = off;
			if (out[i].sh.sh_size > limit - (off < limit ? off : limit))
				return -EFBIG;
			off += out[i].sh.sh_size;
		} else {
			out[i].sh.sh_offset = off;
		}
	}
	if (!compressed)
		return -ENOENT;
	*shoff = align_up(off, 8);
	*total = *shoff + (uint64_t)nsec * sizeof(Elf64_Shdr);
	return *total > limit ? -EFBIG : 0;
}

/* Writes the copy of elf into tfd. */
static int copy(Elf *elf, int tfd, uint64_t limit)
{
	Elf64_Ehdr *eh = elf64_getehdr(elf), neh;
	Elf64_Phdr *ph;
	struct out_section *out = NULL;
	Elf64_Shdr *shdrs = NULL;
	uint64_t shoff = 0, total = 0;
	size_t nsec, i;
	int err;

	if (!eh || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -EOPNOTSUPP;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return -EOPNOTSUPP;
#else
	if (eh->e_ident[EI_DATA] != ELFDATA2MSB)
		return -EOPNOTSUPP;
#endif
	if (elf_getshdrnum(elf, &nsec) != 0 || nsec < 2 || nsec >= MAX_SECTIONS)
		return -EOPNOTSUPP;
	out = calloc(nsec, sizeof(*out));
	shdrs = calloc(nsec, sizeof(*shdrs));
	if (!out || !shdrs) {
		err = -ENOMEM;
		goto out_free;
	}
	err = plan(elf, eh, out, nsec, limit, &shoff, &total);
	if (err)
		goto out_free;
	neh = *eh;
	neh.e_phoff = eh->e_phnum ? sizeof(Elf64_Ehdr) : 0;
	neh.e_shoff = shoff;
	neh.e_shnum = (Elf64_Half)nsec;
	err = fileio__pwrite_all(tfd, &neh, sizeof(neh), 0);
	if (!err && eh->e_phnum) {
		ph = elf64_getphdr(elf);
		err = ph ? fileio__pwrite_all(tfd, ph, (size_t)eh->e_phnum * sizeof(*ph), sizeof(neh)) : -EINVAL;
	}
	for (i = 1; i < nsec && !err; i++) {
		Elf_Scn *scn;
		Elf_Data *d;

		shdrs[i] = out[i].sh;
		if (!out[i].keep)
			continue;
		scn = elf_getscn(elf, i);
		/* elf_compress replaces the section's data with the inflated
		 * bytes (in our private Elf, not the file) */
		if (out[i].inflate && elf_compress(scn, 0, 0) != 1) {
			err = -EINVAL;
			break;
		}
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != out[i].sh.sh_size) {
			err = -EINVAL;
			break;
		}
		err = fileio__pwrite_all(tfd, d->d_buf, d->d_size, out[i].sh.sh_offset);
	}
	if (!err)
		err = fileio__pwrite_all(tfd, shdrs, nsec * sizeof(*shdrs), shoff);
	if (!err && ftruncate(tfd, (off_t)total) < 0)
		err = -errno;
out_free:
	free(shdrs);
	free(out);
	return err;
}

/* Creates the copy of fd under name. */
static int create(struct cachedir *c, int fd, const char *name)
{
	struct cachedir_tmp t = { .fd = -1 };
	/* one copy may take a quarter of the cache: it must not flush the rest */
	uint64_t limit = cachedir__max_bytes(c) / 4;
	Elf *elf;
	int err;

	if (limit > DEBUGCACHE_MAX_BYTES)
		limit = DEBUGCACHE_MAX_BYTES;
	elf_version(EV_CURRENT);
	/* a private mapping: elf_compress replaces section data in our Elf */
	elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -EINVAL;
	}
	err = cachedir__create(c, &t);
	if (!err) {
		err = copy(elf, t.fd, limit);
		if (err)
			cachedir__abort(c, &t);
		else
			err = cachedir__commit(c, &t, name);
	}
	elf_end(elf);
	return err;
}

int debugcache__build_id_is(int fd, const unsigned char *id, size_t len)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	int ok = 0;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	while (!ok && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((const char *)d->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz == len && memcmp((const char *)d->d_buf + doff, id, len) == 0) {
				ok = 1;
				break;
			}
		}
	}
	elf_end(elf);
	return ok;
}

int debugcache__open(struct cachedir *c, int fd, const unsigned char *id, size_t len)
{
	char name[CACHEDIR_NAME_MAX + 1];
	int cfd, err, attempt;

	if (!c || fd < 0 || !id)
		return -EINVAL;
	err = debugcache__name(fd, id, len, name, sizeof(name));
	if (err)
		return err;
	if (!debugcache__build_id_is(fd, id, len))
		return -EINVAL;
	for (attempt = 0; attempt < 2; attempt++) {
		cfd = cachedir__open_file(c, name);
		if (cfd >= 0) {
			/* ours, but checked like any file: a wrong or torn
			 * copy is replaced */
			if (debugcache__build_id_is(cfd, id, len))
				return cfd;
			close(cfd);
			if (attempt)
				return -EINVAL;
		} else if (cfd != -ENOENT) {
			return cfd;
		}
		err = create(c, fd, name);
		if (err)
			return err;
	}
	return -EINVAL;
}
