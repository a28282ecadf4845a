/* Writing and finding plain copies of separate debug files, and of the
 * DWARF of users' binaries. */
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
#include "symbolize/inlines.h"
#include "unwind/elffile.h"

/* Bumped when the copy's layout changes: old copies then age out. */
#define DEBUGCACHE_VERSION 1
#define MAX_SECTIONS 65280 /* below SHN_LORESERVE: no extended numbering */
#define COPY_CHUNK (1u << 20)
#define NOTES_MAX (1u << 20)

/* "PREFIX-<build-id hex>-<hash of the file's identity>": device, inode,
 * size, mtime and owner, so that an updated file gets a fresh copy and no
 * user's file shares a copy with another's. */
static int entry_name(int fd, const char *prefix, const unsigned char *id, size_t len, char *buf,
		      size_t size)
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
	/* a copy made with the line tables is another copy than one without */
	h = hash__mix(hash__mix(DEBUGCACHE_VERSION + (inlines__lines() ? 0x100 : 0), (uint64_t)st.st_dev),
		      (uint64_t)st.st_ino);
	h = hash__mix(hash__mix(h, (uint64_t)st.st_size), (uint64_t)st.st_mtim.tv_sec);
	h = hash__mix(hash__mix(h, (uint64_t)st.st_mtim.tv_nsec), (uint64_t)st.st_uid);
	n = snprintf(buf, size, "%s-%s-%016llx", prefix, hex, (unsigned long long)h);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int debugcache__name(int fd, const unsigned char *id, size_t len, char *buf, size_t size)
{
	return entry_name(fd, "debug", id, len, buf, size);
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
	uint64_t from; /* its data's offset in the original */
	int inflate;   /* SHF_COMPRESSED in the original */
	int keep;      /* data goes into the copy */
};

/* Whether a copy keeps section i's data. A debug file's copy keeps all
 * but the DWARF the inline trees never read; a binary's DWARF copy keeps
 * only its DWARF (that part of it), its notes (the build-id, which
 * identifies the copy) and the section names: not its code and data. */
static int keeps(int dwarf_only, size_t i, size_t shstrndx, const Elf64_Shdr *sh, const char *name)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0)
		return 0;
	if (elffile__is_dwarf(name))
		return !inlines__unused_section(name);
	return !dwarf_only || sh->sh_type == SHT_NOTE || i == shstrndx;
}

/* Lays the copy out: ELF header, program headers, section data, section
 * headers. Returns 0, -ENOENT (a debug file with nothing compressed that
 * we keep: it is used as it is), -EOPNOTSUPP, -EFBIG or -EINVAL for a
 * malformed file. */
static int plan(Elf *elf, const Elf64_Ehdr *eh, int dwarf_only, struct out_section *out,
		size_t nsec, uint64_t limit, uint64_t *shoff, uint64_t *total)
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
		out[i].from = sh->sh_offset;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (!name)
			name = "";
		if (strncmp(name, ".zdebug", 7) == 0)
			return -EOPNOTSUPP;
		out[i].keep = keeps(dwarf_only, i, shstrndx, sh, name);
		if (!out[i].keep && sh->sh_type != SHT_NOBITS) {
			/* what a stripped debug file has: no data */
			out[i].sh.sh_type = SHT_NOBITS;
			out[i].sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			if (elffile__is_dwarf(name)) {
				out[i].sh.sh_name = 0;
				out[i].sh.sh_size = 0;
			}
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
	if (!compressed && !dwarf_only)
		return -ENOENT;
	*shoff = align_up(off, 8);
	*total = *shoff + (uint64_t)nsec * sizeof(Elf64_Shdr);
	return *total > limit ? -EFBIG : 0;
}

/* Copies len bytes at offset from of fd to offset to of tfd, a piece at a
 * time: read whole, a section would stay in the Elf's memory until the end
 * of the copy (hundreds of MB for a large debug file). */
static int copy_bytes(int fd, uint64_t from, int tfd, uint64_t to, uint64_t len)
{
	char *buf = malloc(COPY_CHUNK);
	int err = buf ? 0 : -ENOMEM;

	while (!err && len > 0) {
		size_t n = len < COPY_CHUNK ? (size_t)len : COPY_CHUNK;

		err = fileio__pread_exact(fd, buf, n, from);
		if (!err)
			err = fileio__pwrite_all(tfd, buf, n, to);
		from += n;
		to += n;
		len -= n;
	}
	free(buf);
	return err == -ENODATA ? -EINVAL : err; /* a file cut short: no copy */
}

/* Writes the copy of elf (read from fd) into tfd. */
static int copy(Elf *elf, int fd, int dwarf_only, int tfd, uint64_t limit)
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
	err = plan(elf, eh, dwarf_only, out, nsec, limit, &shoff, &total);
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
		if (!out[i].inflate) {
			err = copy_bytes(fd, out[i].from, tfd, out[i].sh.sh_offset, out[i].sh.sh_size);
			continue;
		}
		scn = elf_getscn(elf, i);
		/* elf_compress replaces the section's data with the inflated
		 * bytes (in our Elf's memory, not the file) */
		if (elf_compress(scn, 0, 0) != 1) {
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

uint64_t debugcache__limit(const struct cachedir *c)
{
	/* one copy may take a quarter of the cache: it must not flush the rest */
	uint64_t limit = c ? cachedir__max_bytes(c) / 4 : 0;

	return limit < DEBUGCACHE_MAX_BYTES ? limit : DEBUGCACHE_MAX_BYTES;
}

/* Creates the copy of fd under name. */
static int create(struct cachedir *c, int fd, int dwarf_only, const char *name)
{
	struct cachedir_tmp t = { .fd = -1 };
	uint64_t limit = debugcache__limit(c);
	Elf *elf;
	int err;

	elf = elffile__read(fd);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -EINVAL;
	}
	err = cachedir__create(c, &t);
	if (!err) {
		err = copy(elf, fd, dwarf_only, t.fd, limit);
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

	elf = elffile__read(fd);
	if (!elf)
		return 0;
	while (!ok && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;
		Elf_Data *d;

		/* a note section of a user's file may be any size: a build-id
		 * is 36 bytes, real note sections a few KB */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || sh.sh_size > NOTES_MAX)
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

static int open_copy(struct cachedir *c, int fd, int dwarf_only, const unsigned char *id,
		     size_t len)
{
	char name[CACHEDIR_NAME_MAX + 1];
	int cfd, err, attempt;

	if (!c || fd < 0 || !id)
		return -EINVAL;
	err = entry_name(fd, dwarf_only ? "dwarf" : "debug", id, len, name, sizeof(name));
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
		err = create(c, fd, dwarf_only, name);
		if (err)
			return err;
	}
	return -EINVAL;
}

int debugcache__open(struct cachedir *c, int fd, const unsigned char *id, size_t len)
{
	return open_copy(c, fd, 0, id, len);
}

int debugcache__open_dwarf(struct cachedir *c, int fd, const unsigned char *id, size_t len)
{
	return open_copy(c, fd, 1, id, len);
}
