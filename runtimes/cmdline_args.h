/* The arguments of a command line as /proc/PID/cmdline gives it: NUL-
 * separated, argv[0] first, possibly cut at the size read. Every parser
 * of what an interpreter runs (javacmd, nodecmd, pycmd) walks it so.
 * Header-only; thread-safe (the walk is the caller's). */
#ifndef SMOLDER_RUNTIMES_CMDLINE_ARGS_H
#define SMOLDER_RUNTIMES_CMDLINE_ARGS_H
#include <errno.h>
#include <stddef.h>
#include <string.h>

struct cmdline_args {
	const char *p, *end;
};

static inline void cmdline_args__init(struct cmdline_args *a, const char *cmdline, size_t len)
{
	a->p = cmdline;
	a->end = cmdline + len;
}

/* The next argument: 1 with *arg (NUL-terminated) and its length *n; 0
 * when none is left; -ENOENT when the rest has no NUL (the command line
 * was cut: the argument may be too, and is never guessed at). */
static inline int cmdline_args__next(struct cmdline_args *a, const char **arg, size_t *n)
{
	const char *nul;

	if (a->p >= a->end)
		return 0;
	nul = memchr(a->p, '\0', (size_t)(a->end - a->p));
	if (!nul)
		return -ENOENT;
	*arg = a->p;
	*n = (size_t)(nul - a->p);
	a->p = nul + 1;
	return 1;
}

#endif
