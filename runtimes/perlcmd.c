/* Perl command lines (runtimes/perlcmd.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "runtimes/cmdline_args.h"
#include "runtimes/perlcmd.h"
#include "runtimes/script_label.h"

/* Scripts whose name alone says little: their directory names the tool. */
static const char *const generic[] = { "index.", "app.", "main.", "run.", "script." };

static bool is_perl(const char *arg, size_t n)
{
	const char *slash = memrchr(arg, '/', n);
	const char *base = slash ? slash + 1 : arg;

	n -= (size_t)(base - arg);
	return n >= 4 && memcmp(base, "perl", 4) == 0 && (n == 4 || base[4] == '5' || base[4] == '.');
}

int perlcmd__label(const char *cmdline, size_t len, char *out, size_t size)
{
	struct cmdline_args a;
	const char *arg;
	size_t n;
	int skip = 0, r;

	if (!size)
		return -EINVAL;
	cmdline_args__init(&a, cmdline, len);
	if (cmdline_args__next(&a, &arg, &n) != 1 || !is_perl(arg, n))
		return -ENOENT;
	while ((r = cmdline_args__next(&a, &arg, &n)) == 1) {
		if (skip) {
			skip = 0;
		} else if (arg[0] != '-' || n == 1) {
			if (n == 1)
				return -ENOENT; /* the program from standard input */
			return script_label__from_path(arg, n, generic, sizeof(generic) / sizeof(generic[0]),
						       out, size);
		} else if (strcmp(arg, "--") == 0) {
			skip = 0;
			if ((r = cmdline_args__next(&a, &arg, &n)) != 1 || (n == 1 && arg[0] == '-'))
				return -ENOENT;
			return script_label__from_path(arg, n, generic, sizeof(generic) / sizeof(generic[0]),
						       out, size);
		} else if (arg[1] == 'e' || arg[1] == 'E') {
			return -ENOENT; /* the program is on the command line */
		} else if (n == 2 && strchr("IMm", arg[1])) {
			skip = 1; /* -I dir, -M Module: the value follows */
		}
	}
	return -ENOENT;
}
