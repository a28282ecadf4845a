/* Workload: sleep 0.5 s (sampling has started), then dlopen libdlwork.so and
 * run its dl_outer -> dl_hot for argv[1] seconds. The library is looked up next
 * to this executable, or at argv[2]. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
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
	double secs = wl_seconds(argc, argv, 3.0);
	struct timespec half = { 0, 500000000 };
	char path[PATH_MAX];
	void (*outer)(double);
	void *h;

	nanosleep(&half, NULL);
	if (lib_path(path, sizeof(path), argc, argv) < 0) {
		fprintf(stderr, "dlopen_main: cannot find libdlwork.so\n");
		return 1;
	}
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen_main: %s\n", dlerror());
		return 1;
	}
	*(void **)&outer = dlsym(h, "dl_outer");
	if (!outer) {
		fprintf(stderr, "dlopen_main: %s\n", dlerror());
		return 1;
	}
	outer(secs);
	dlclose(h);
	return 0;
}
