/* PHP command lines and PHP-FPM's process titles (runtimes/phpcmd.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/cmdline.h"
#include "runtimes/phpcmd.h"

/* FPM's title of a worker ("php-fpm: pool www") or of its master, in
 * argv[0]: the label, or 0 when argv[0] is no such title. */
static int fpm_title(const char *arg, size_t n, char *out, size_t size)
{
	static const char fpm[] = "php-fpm: ", pool[] = "pool ", master[] = "master process";
	const size_t k = sizeof(fpm) - 1;

	if (n <= k || memcmp(arg, fpm, k) != 0)
		return 0;
	if (n > k + sizeof(pool) - 1 && memcmp(arg + k, pool, sizeof(pool) - 1) == 0)
		return cmdline__put(arg + k, n - k, out, size);
	if (n >= k + sizeof(master) - 1 && memcmp(arg + k, master, sizeof(master) - 1) == 0)
		return cmdline__put("master", 6, out, size);
	return 0;
}

int phpcmd__label(const char *cmdline, size_t len, char *out, size_t size)
{
	struct cmdline c;
	const char *arg, *base;
	size_t n, bn;
	int skip = 0, file = 0, r;

	if (!size)
		return -EINVAL;
	cmdline__init(&c, cmdline, len);
	if (!cmdline__next(&c, &arg, &n))
		return -ENOENT;
	if ((r = fpm_title(arg, n, out, size)) != 0)
		return r;
	while (cmdline__next(&c, &arg, &n)) {
		if (skip) {
			skip = 0;
		} else if (file || arg[0] != '-' || n == 1) {
			if (n == 1 && arg[0] == '-')
				return -ENOENT; /* the script from standard input */
			base = cmdline__base(arg, n, &bn);
			return cmdline__put(base, bn, out, size);
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
