/* PHP command lines and PHP-FPM's process titles (runtimes/phpcmd.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/phpcmd.h"

static int put(const char *s, size_t n, char *out, size_t size)
{
	while (n && s[n - 1] == ' ') /* FPM pads its title with spaces */
		n--;
	if (!n)
		return -ENOENT;
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(out, s, n);
	out[n] = '\0';
	return (int)n;
}

/* FPM's title of a worker or of its master, in argv[0]. */
static int fpm_title(const char *arg, size_t n, char *out, size_t size)
{
	static const char worker[] = "php-fpm: pool ", master[] = "php-fpm: master process";

	if (n > sizeof(worker) - 1 && memcmp(arg, worker, sizeof(worker) - 1) == 0)
		return put(arg + sizeof(worker) - 1 - 5, n - (sizeof(worker) - 1 - 5), out, size);
	if (n >= sizeof(master) - 1 && memcmp(arg, master, sizeof(master) - 1) == 0)
		return put("master", 6, out, size);
	return 0;
}

/* The script's file name (its last component). */
static int script(const char *arg, size_t n, char *out, size_t size)
{
	const char *slash = memrchr(arg, '/', n);

	if (slash) {
		n -= (size_t)(slash + 1 - arg);
		arg = slash + 1;
	}
	return put(arg, n, out, size);
}

int phpcmd__label(const char *cmdline, size_t len, char *out, size_t size)
{
	const char *p = cmdline, *end = cmdline + len;
	int first = 1, skip = 0, file = 0, r;

	if (!size)
		return -EINVAL;
	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		const char *arg = p;
		size_t n;

		if (!nul)
			return -ENOENT; /* cut: the last argument may be too */
		n = (size_t)(nul - p);
		p = nul + 1;
		if (first) {
			first = 0;
			if ((r = fpm_title(arg, n, out, size)) != 0)
				return r;
			continue;
		}
		if (skip) {
			skip = 0;
			continue;
		}
		if (file || arg[0] != '-' || n == 1)
			return n == 1 && arg[0] == '-' ? -ENOENT : script(arg, n, out, size);
		if (n == 2 && strchr("cdztS", arg[1]))
			skip = 1;
		else if (n == 2 && arg[1] == 'f')
			file = 1;
		else if (n == 2 && strchr("rRBEFa", arg[1]))
			return -ENOENT;
		else if (strcmp(arg, "--") == 0)
			return -ENOENT; /* arguments for code read from standard input */
	}
	return -ENOENT;
}
