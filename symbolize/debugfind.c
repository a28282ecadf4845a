/* How libdwfl gets a binary (the Elf we read) and its separate debug info
 * (local files by build-id only, through the cache's decompressed copy
 * when there is one). */
#include "config.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/debugcache.h"
#include "symbolize/debugfind.h"

/* Separate debug info is looked up only under /usr/lib/debug (by build-id,
 * then by .gnu_debuglink name), never next to the binary as the default
 * path ":.debug:/usr/lib/debug" would: libdwfl opens candidates with a
 * blocking open(), and a FIFO planted beside another user's binary would
 * hang the profiler. */
static char *debuginfo_path = (char *)"/usr/lib/debug";

struct debugfind {
	struct cachedir *cache;
	Elf *elf; /* until find_elf hands it to libdwfl */
	int fd;
	int dwarf_fd; /* the binary, to copy its DWARF from; -1: none */
	char *path;
};

int debugfind__new(struct cachedir *cache, Elf *elf, int fd, const char *path,
		   struct debugfind **out)
{
	struct debugfind *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->path = strdup(path);
	if (!f->path) {
		free(f);
		return -ENOMEM;
	}
	f->cache = cache;
	f->elf = elf;
	f->fd = fd;
	f->dwarf_fd = -1;
	*out = f;
	return 0;
}

void debugfind__dwarf_from_copy(struct debugfind *f, int fd)
{
	if (f->dwarf_fd >= 0)
		close(f->dwarf_fd);
	f->dwarf_fd = fd;
}

void debugfind__delete(struct debugfind *f)
{
	if (!f)
		return;
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	if (f->dwarf_fd >= 0)
		close(f->dwarf_fd);
	free(f->path);
	free(f);
}

/* Hands libdwfl the binary as we read it, once; libdwfl owns the Elf and
 * the fd from then on. */
static int find_elf_read(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			 char **file_name, Elf **elfp)
{
	struct debugfind *f = *userdata;
	int fd;

	(void)mod;
	(void)modname;
	(void)base;
	if (!f || !f->elf)
		return -1;
	*elfp = f->elf;
	fd = f->fd;
	f->elf = NULL;
	f->fd = -1;
	if (!*file_name)
		*file_name = strdup(f->path); /* libdwfl frees it; NULL is fine */
	return fd;
}

void debugfind__set_root(const char *dir)
{
	debuginfo_path = (char *)dir;
}

/* Separate debug info from local files only, by build-id. libdwfl's
 * standard callback goes on, when that finds nothing, to ask debuginfod: in
 * elfutils 0.188 that loads libdebuginfod, libcurl and GnuTLS (~4 MB of
 * resident libraries) and opens a socketpair per binary even with
 * DEBUGINFOD_URLS unset, and a profiler must not fetch from the network
 * anyway. Its other fallback, the .gnu_debuglink name under the binary's
 * directory, never matched here: our paths are /proc/PID/root/... ones. */
/* With a cache directory, the debug file is looked up here rather than by
 * dwfl_build_id_find_debuginfo: that one hands libdwfl an Elf of the file it
 * found through a back door, and libdwfl would use it whatever fd we return.
 * Same lookup (debuginfo_path/.build-id/NN/REST.debug, build-id checked),
 * then the plain copy from the cache when one can be had. */
static int find_debuginfo_cached(struct cachedir *cache, const unsigned char *id, size_t len,
				 char **debuginfo_file_name)
{
	char path[PATH_MAX], *p;
	size_t i, off;
	struct stat st;
	int fd, cfd;

	if (len < 2 || len > 64)
		return -1;
	off = (size_t)snprintf(path, sizeof(path), "%s/.build-id/%02x/", debuginfo_path, id[0]);
	for (i = 1; i < len && off + 3 < sizeof(path); i++)
		off += (size_t)snprintf(path + off, sizeof(path) - off, "%02x", id[i]);
	if (off + sizeof(".debug") > sizeof(path))
		return -1;
	memcpy(path + off, ".debug", sizeof(".debug"));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !debugcache__build_id_is(fd, id, len)) {
		close(fd);
		return -1;
	}
	p = strdup(path);
	if (!p) {
		close(fd);
		return -1;
	}
	/* the plain copy when there is one: libdw then maps instead of inflating */
	cfd = debugcache__open(cache, fd, id, len);
	if (cfd >= 0) {
		close(fd);
		fd = cfd;
	}
	*debuginfo_file_name = p;
	return fd;
}

/* The address range libdwfl gives a module reported at base 0 relative
 * to p_vaddr (dwfl_report_elf's): from the first PT_LOAD, page-aligned, to
 * the end of the last. Module addresses are then the ELF vaddrs, even for
 * prelinked libraries, whose first PT_LOAD is not at 0. */
static int address_range(Elf *elf, Dwarf_Addr *start, Dwarf_Addr *end)
{
	size_t phnum, i;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	int first = 1;

	/* a relocatable object would need libdwfl's section layout */
	if (!gelf_getehdr(elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    elf_getphdrnum(elf, &phnum) != 0)
		return -ENOEXEC;
	*start = *end = 0;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first)
			*start = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
		first = 0;
		if (ph.p_vaddr + ph.p_memsz > 0)
			*end = ph.p_vaddr + ph.p_memsz;
	}
	return *end > *start ? 0 : -ENOEXEC;
}

Dwfl_Module *debugfind__report(struct debugfind *f, Dwfl *dwfl, const char *name, Dwarf_Addr *end)
{
	Dwarf_Addr start;
	Dwfl_Module *mod;
	void **userdata = NULL;

	if (!f->elf || address_range(f->elf, &start, end) < 0)
		return NULL;
	dwfl_report_begin(dwfl);
	mod = dwfl_report_module(dwfl, name, start, *end);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod)
		return NULL;
	/* the callbacks get the module's slot: the file, our cache */
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!userdata)
		return NULL;
	*userdata = f;
	return mod;
}

static int find_debuginfo_local(Dwfl_Module *mod, void **userdata, const char *modname,
				Dwarf_Addr base, const char *file_name, const char *debuglink_file,
				GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct debugfind *f = *userdata;
	struct cachedir *cache = f ? f->cache : NULL;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len <= 0)
		return -1;
	if (f && f->dwarf_fd >= 0) {
		/* once: libdwfl keeps the file, or the failure */
		int cfd = debugcache__open_dwarf(cache, f->dwarf_fd, bits, (size_t)len);

		debugfind__dwarf_from_copy(f, -1);
		if (cfd < 0)
			return -1; /* no DWARF: the binary's symbols still name it */
		*debuginfo_file_name = strdup(f->path);
		return cfd;
	}
	if (cache)
		return find_debuginfo_cached(cache, bits, (size_t)len, debuginfo_file_name);
	return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf_read,
	.find_debuginfo = find_debuginfo_local,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

const Dwfl_Callbacks *debugfind__callbacks(void)
{
	return &callbacks;
}
