/* glibc's thread descriptor, read from a process. */
#include "config.h"

#include "runtimes/glibc.h"

int32_t glibc__pthread_tid_offset(struct runtime_process *p)
{
	static const char *const libs[] = { "libc.so.", "libpthread.so.", "libc-2.", "libpthread-2." };
	uint32_t desc[3];
	uint64_t at;

	if (!p->lib_symbol)
		return -1;
	at = p->lib_symbol(p->ctx, libs, sizeof(libs) / sizeof(libs[0]), "_thread_db_pthread_tid");
	/* a 32-bit field, one of it, inside a descriptor of a few KiB */
	if (at && memsource__read(&p->mem, at, desc, sizeof(desc)) == 0 && desc[0] == 32 &&
	    desc[1] == 1 && desc[2] < 4096 && desc[2] % 4 == 0)
		return (int32_t)desc[2];
	return -1;
}
