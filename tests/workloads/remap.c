/* Workload: unmaps and remaps a library over and over. For argv[1] seconds:
 * dlopen libdlwork.so (next to this executable, or argv[2]), run its
 * dl_outer -> dl_hot for ~20 ms, dlclose it (the last reference: the library
 * is unmapped). Every other round an anonymous page is mapped where the
 * library was (MAP_FIXED_NOREPLACE), so it comes back at another address and
 * something else occupies the old one. Reports the reloads. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl_time.h"

static int lib_path(char *buf, size_t size, int argc, char **argv)
{
	ssize_t n;
	char *slash;

	if (argc > 2) {
		if (strlen(argv[2]) >= size)
			return -1;
		memcpy(buf, argv[2], strlen(argv[2]) + 1);
		return 0;
	}
	n = readlink("/proc/self/exe", buf, size - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash || (size_t)(slash - buf) + sizeof("/libdlwork.so") > size)
		return -1;
	memcpy(slash, "/libdlwork.so", sizeof("/libdlwork.so"));
	return 0;
}

int main(int argc, char **argv)
{
	double end = wl_now() + wl_seconds(argc, argv, 3.0);
	char path[PATH_MAX];
	unsigned long rounds = 0, moved = 0;
	void *prev = NULL, *base = NULL;

	if (lib_path(path, sizeof(path), argc, argv) < 0) {
		fprintf(stderr, "remap: cannot find libdlwork.so\n");
		return 1;
	}
	while (wl_now() < end) {
		size_t hole_len = 4096;
		void *hole = MAP_FAILED, *h;
		void (*outer)(double);
		struct link_map *lm = NULL;

		if ((rounds & 1) && base)
			hole = mmap(base, hole_len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "remap: %s\n", dlerror());
			return 1;
		}
		*(void **)&outer = dlsym(h, "dl_outer");
		if (!outer) {
			fprintf(stderr, "remap: %s\n", dlerror());
			return 1;
		}
		if (prev && (void *)outer != prev)
			moved++;
		prev = (void *)outer;
		if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm)
			base = (void *)lm->l_addr;
		outer(0.02);
		if (dlclose(h) != 0) {
			fprintf(stderr, "remap: dlclose: %s\n", dlerror());
			return 1;
		}
		if (hole != MAP_FAILED)
			munmap(hole, hole_len);
		rounds++;
	}
	printf("remap: %lu dlopen/dlclose rounds, the library moved %lu times\n", rounds, moved);
	return 0;
}
