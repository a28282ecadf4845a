/* Workload: a user cutting their own library short while running it.
 * truncate_own SECONDS LIB AFTER: dlopens LIB (the user's own copy of
 * libtrunc.so), runs its functions for SECONDS, and AFTER seconds in
 * truncates LIB to the end of its executable segment: the code it runs
 * stays, its read-only data, unwind tables, symbols and section headers
 * go. A profiler that mapped the file faults on its next read of them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl_time.h"

volatile unsigned long sink;

struct code_end {
	const char *path;
	uint64_t end; /* file offset just past the executable segment, page-rounded */
};

static int find_code_end(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct code_end *c = arg;
	long page = sysconf(_SC_PAGESIZE);
	int i;

	(void)size;
	if (!info->dlpi_name || strcmp(info->dlpi_name, c->path) != 0)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t end = ph->p_offset + ph->p_filesz;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && end > c->end)
			c->end = (end + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;
	}
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long (*work)(void *, unsigned long, unsigned long);
	void *(*table)(void);
	void *fns;
	struct code_end c = { NULL, 0 };
	double t0 = wl_now(), end, cut;
	unsigned long seed = 1;
	void *h;

	if (argc != 4) {
		fprintf(stderr, "usage: truncate_own SECONDS LIB AFTER\n");
		return 2;
	}
	end = t0 + wl_seconds(argc, argv, 10.0);
	cut = t0 + strtod(argv[3], NULL);
	h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "truncate_own: %s\n", dlerror());
		return 1;
	}
	*(void **)&work = dlsym(h, "trunc_work");
	*(void **)&table = dlsym(h, "trunc_table");
	c.path = argv[2];
	dl_iterate_phdr(find_code_end, &c);
	fns = table ? table() : NULL;
	if (!work || !fns || !c.end) {
		fprintf(stderr, "truncate_own: no trunc_work, trunc_table or code segment in %s\n", argv[2]);
		return 1;
	}
	while (wl_now() < end) {
		sink += work(fns, seed++, 20000);
		if (cut && wl_now() >= cut) {
			if (truncate(argv[2], (off_t)c.end) != 0) {
				perror("truncate_own: truncate");
				return 1;
			}
			printf("truncated %s to %llu bytes\n", argv[2], (unsigned long long)c.end);
			fflush(stdout);
			cut = 0;
		}
	}
	/* the library's destructors would read what is gone */
	_exit(0);
}
