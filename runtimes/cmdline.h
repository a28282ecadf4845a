/* Walking a command line as /proc/PID/cmdline holds it (arguments each
 * ended by a NUL), for the readers that label a process by what it runs
 * (phpcmd.c, perlcmd.c). Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_CMDLINE_H
#define SMOLDER_RUNTIMES_CMDLINE_H
#include <stdbool.h>
#include <stddef.h>

struct cmdline {
	const char *p, *end;
};

static inline void cmdline__init(struct cmdline *c, const char *cmdline, size_t len)
{
	c->p = cmdline;
	c->end = cmdline + len;
}

/* The next argument (*arg, *n bytes): true, or false at the end or at an
 * argument without its NUL (a command line cut short: its last argument
 * may be cut too, and counts as none). */
bool cmdline__next(struct cmdline *c, const char **arg, size_t *n);

/* Copies n bytes of s into out as a label, spaces at its end dropped (FPM
 * pads its title with them): the length, -ENOENT when nothing is left,
 * -ENAMETOOLONG when it does not fit in size. */
int cmdline__put(const char *s, size_t n, char *out, size_t size);

/* The last component of a path of n bytes, and its length in *len. */
const char *cmdline__base(const char *path, size_t n, size_t *len);

#endif
