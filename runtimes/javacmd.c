/* The main class, jar or module of a Java command line. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/cmdline_args.h"
#include "runtimes/javacmd.h"

/* Launcher options whose value is the next argument (java --help, JDK 8
 * to 21). Any other argument starting with '-' stands alone. */
static const char *const with_value[] = {
	"-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path",
	"--add-modules", "--enable-native-access", "--add-exports", "--add-opens", "--add-reads",
	"--limit-modules", "--patch-module", "--source", "--describe-module", "-d",
	"--add-exports-private", "--illegal-access", "--finalization",
};

static int takes_value(const char *arg)
{
	size_t i;

	for (i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++)
		if (strcmp(arg, with_value[i]) == 0)
			return 1;
	return 0;
}

static int put(const char *s, size_t n, char *out, size_t size)
{
	if (n == 0)
		return -ENOENT;
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(out, s, n);
	out[n] = '\0';
	return (int)n;
}

int javacmd__main(const char *cmdline, size_t len, char *out, size_t size)
{
	struct cmdline_args args;
	const char *arg;
	size_t n;
	int rc, want = 0; /* want: 1 skip a value, 2 the jar, 3 the module */

	if (!size)
		return -EINVAL;
	cmdline_args__init(&args, cmdline, len);
	if (cmdline_args__next(&args, &arg, &n) != 1) /* argv[0], the launcher */
		return -ENOENT;
	while ((rc = cmdline_args__next(&args, &arg, &n)) == 1) {
		if (want == 1) {
			want = 0;
			continue;
		}
		if (want == 2) { /* the jar: its file name */
			const char *slash = memrchr(arg, '/', n);

			if (slash) {
				n -= (size_t)(slash + 1 - arg);
				arg = slash + 1;
			}
			return put(arg, n, out, size);
		}
		if (want == 3)
			return put(arg, n, out, size);
		if (strcmp(arg, "-jar") == 0)
			want = 2;
		else if (strcmp(arg, "-m") == 0 || strcmp(arg, "--module") == 0)
			want = 3;
		else if (strncmp(arg, "--module=", 9) == 0)
			return put(arg + 9, n - 9, out, size);
		else if (takes_value(arg))
			want = 1;
		else if (arg[0] != '-' && arg[0] != '@')
			return put(arg, n, out, size);
	}
	return -ENOENT;
}
