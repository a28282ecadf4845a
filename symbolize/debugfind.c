/* Where a binary's separate debug info is found: local files by build-id
 * only, through the cache's decompressed copy when there is one. */
#include "config.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
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

static int find_debuginfo_local(Dwfl_Module *mod, void **userdata, const char *modname,
				Dwarf_Addr base, const char *file_name, const char *debuglink_file,
				GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct cachedir *cache = *userdata;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len <= 0)
		return -1;
	if (cache)
		return find_debuginfo_cached(cache, bits, (size_t)len, debuginfo_file_name);
	return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo_local,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

const Dwfl_Callbacks *debugfind__callbacks(void)
{
	return &callbacks;
}
