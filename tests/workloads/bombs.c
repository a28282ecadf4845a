/* Workload: dlopens every library named after argv[1] and calls bomb_work
 * in each in turn for argv[1] seconds: the libraries are the debug-data
 * bombs of tests/integration/security_bombs.sh, and a profiler sampling
 * this process must load (or refuse) each one's debug data. */
#include <dlfcn.h>
#include <stdio.h>

#include "wl_time.h"

#define MAX_LIBS 64

volatile unsigned long sink;

int main(int argc, char **argv)
{
	unsigned long (*fn[MAX_LIBS])(unsigned long);
	double end = wl_now() + wl_seconds(argc, argv, 10.0);
	int n = 0, i;

	for (i = 2; i < argc && n < MAX_LIBS; i++) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			fprintf(stderr, "bombs: %s\n", dlerror());
			return 1;
		}
		*(void **)&fn[n] = dlsym(h, "bomb_work");
		if (!fn[n]) {
			fprintf(stderr, "bombs: %s has no bomb_work\n", argv[i]);
			return 1;
		}
		n++;
	}
	while (wl_now() < end)
		for (i = 0; i < n; i++)
			sink += fn[i](20000);
	return 0;
}
