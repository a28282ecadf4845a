/* PHP command lines and PHP-FPM's process titles (runtimes/phpcmd.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/cmdline_args.h"
#include "runtimes/phpcmd.h"
#include "runtimes/script_label.h"

/* Scripts whose name alone says little: their directory names the site. */
static const char *const generic[] = { "index.", "app.", "main.", "cron." };

/* A title's text without the spaces FPM pads it with. */
static int put(const char *s, size_t n, char *out, size_t size)
{
	while (n && s[n - 1] == ' ')
		n--;
	if (!n)
		return -ENOENT;
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(out, s, n);
	out[n] = '\0';
	return (int)n;
}

/* FPM's title of a worker ("php-fpm: pool www") or of its master, in
 * argv[0]: the label, or 0 when argv[0] is no such title. */
static int fpm_title(const char *arg, size_t n, char *out, size_t size)
{
	static const char fpm[] = "php-fpm: ", pool[] = "pool ", master[] = "master process";
	const size_t k = sizeof(fpm) - 1;

	if (n <= k || memcmp(arg, fpm, k) != 0)
		return 0;
	if (n > k + sizeof(pool) - 1 && memcmp(arg + k, pool, sizeof(pool) - 1) == 0)
		return put(arg + k, n - k, out, size);
	if (n >= k + sizeof(master) - 1 && memcmp(arg + k, master, sizeof(master) - 1) == 0)
		return put("master", 6, out, size);
	return 0;
}

int phpcmd__label(const char *cmdline, size_t len, char *out, size_t size)
{
	struct cmdline_args a;
	const char *arg;
	size_t n;
	int skip = 0, file = 0, r;

	if (!size)
		return -EINVAL;
	cmdline_args__init(&a, cmdline, len);
	if (cmdline_args__next(&a, &arg, &n) != 1)
		return -ENOENT;
	if ((r = fpm_title(arg, n, out, size)) != 0)
		return r;
	while ((r = cmdline_args__next(&a, &arg, &n)) == 1) {
		if (skip) {
			skip = 0;
		} else if (file || arg[0] != '-' || n == 1) {
			if (n == 1 && arg[0] == '-')
				return -ENOENT; /* the script from standard input */
			return script_label__from_path(arg, n, generic, sizeof(generic) / sizeof(generic[0]),
						       out, size);
		} else if (n == 2 && strchr("cdztS", arg[1])) {
			skip = 1; /* an option's value: -c php.ini, -d key=value */
		} else if (n == 2 && arg[1] == 'f') {
			file = 1;
		} else if ((n == 2 && strchr("rRBEFa", arg[1])) || strcmp(arg, "--") == 0) {
			return -ENOENT; /* code given, or read from standard input */
		}
	}
	return -ENOENT;
}
