/* The main script or module of a Python command line. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/cmdline_args.h"
#include "runtimes/pycmd.h"
#include "runtimes/script_label.h"

/* Script names that say little alone: their directory names the service. */
static const char *const generic_stems[] = { "__main__.", "main.", "app.", "server.",
					     "run.", "manage.", "wsgi.", "asgi." };

static int script(const char *arg, size_t n, char *out, size_t size)
{
	/* a directory or zip run as a script: its own name */
	while (n > 1 && arg[n - 1] == '/')
		n--;
	return script_label__from_path(arg, n, generic_stems,
				       sizeof(generic_stems) / sizeof(generic_stems[0]), out, size);
}

static int module(const char *arg, size_t n, char *out, size_t size)
{
	if (n == 0)
		return -ENOENT;
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(out, arg, n);
	out[n] = '\0';
	return (int)n;
}

/* What one argument of options says: 0 go on; 1 the next argument is an
 * option's value; 2 the next argument is -m's module; 3 -c ran code; 4
 * the module is attached (at *rest). */
static int options(const char *arg, const char **rest)
{
	size_t i;

	if (strcmp(arg, "--check-hash-based-pycs") == 0)
		return 1;
	if (arg[1] == '-')
		return 0; /* --version, --help and such: nothing to run or skip */
	for (i = 1; arg[i]; i++) {
		switch (arg[i]) {
		case 'c':
			return 3;
		case 'm':
			*rest = arg + i + 1;
			return **rest ? 4 : 2;
		case 'W':
		case 'X':
		case 'Q':
			return arg[i + 1] ? 0 : 1;
		default:
			break;
		}
	}
	return 0;
}

int pycmd__main(const char *cmdline, size_t len, char *out, size_t size)
{
	struct cmdline_args args;
	const char *arg, *rest = NULL;
	size_t n;
	int rc, want = 0; /* 1: an option's value, 2: a module, 3: the script */

	if (!size)
		return -EINVAL;
	cmdline_args__init(&args, cmdline, len);
	if (cmdline_args__next(&args, &arg, &n) != 1) /* argv[0], the interpreter */
		return -ENOENT;
	while ((rc = cmdline_args__next(&args, &arg, &n)) == 1) {
		if (want == 2)
			return module(arg, n, out, size);
		if (want == 3)
			return script(arg, n, out, size);
		if (want == 1) {
			want = 0;
			continue;
		}
		if (arg[0] != '-')
			return script(arg, n, out, size);
		if (n == 1)
			return -ENOENT; /* "-": the script comes on standard input */
		if (strcmp(arg, "--") == 0) {
			want = 3; /* the next argument is the script, whatever it looks like */
			continue;
		}
		switch (options(arg, &rest)) {
		case 1:
			want = 1;
			break;
		case 2:
			want = 2;
			break;
		case 3:
			return -ENOENT;
		case 4:
			return module(rest, strlen(rest), out, size);
		default:
			break;
		}
	}
	return -ENOENT;
}
