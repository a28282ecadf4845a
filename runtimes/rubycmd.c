/* The main script of a ruby command line. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/rubycmd.h"

/* Options whose value may be the next argument (ruby --help, 2.0 to 3.3). */
static const char *const with_value[] = {
	"-I", "-r", "-C", "-E", "-K", "--encoding", "--external-encoding", "--internal-encoding",
	"--enable", "--disable", "--dump", "--backtrace-limit", "--crash-report",
};

static int in(const char *arg, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(arg, list[i]) == 0)
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

/* The file name of a path. */
static int put_file(const char *arg, size_t n, char *out, size_t size)
{
	const char *slash = memrchr(arg, '/', n);

	if (slash) {
		n -= (size_t)(slash + 1 - arg);
		arg = slash + 1;
	}
	return put(arg, n, out, size);
}

/* A title the process set itself: its first word ("puma", "unicorn"),
 * and for puma the application its brackets end with. */
static int title(const char *t, size_t n, char *out, size_t size)
{
	size_t w = 0;
	const char *open, *close;

	while (w < n && t[w] != ' ' && t[w] != ':')
		w++;
	if (w == n)
		return put_file(t, n, out, size); /* no title: a program's path */
	if (w == 4 && strncmp(t, "puma", 4) == 0 && n > 2 && (close = memrchr(t, ']', n)) != NULL &&
	    (open = memrchr(t, '[', (size_t)(close - t))) != NULL && close > open + 1) {
		size_t app = (size_t)(close - open - 1);

		if (w + 2 + app + 1 >= size)
			return -ENAMETOOLONG;
		memcpy(out, t, w);
		out[w] = ' ';
		memcpy(out + w + 1, open, app + 2);
		out[w + app + 3] = '\0';
		return (int)(w + app + 3);
	}
	return put(t, w, out, size);
}

static int is_ruby(const char *arg, size_t n)
{
	const char *slash = memrchr(arg, '/', n);

	if (slash) {
		n -= (size_t)(slash + 1 - arg);
		arg = slash + 1;
	}
	return n >= 4 && strncmp(arg, "ruby", 4) == 0 && memchr(arg, ' ', n) == NULL;
}

int rubycmd__main(const char *cmdline, size_t len, char *out, size_t size)
{
	const char *p = cmdline, *end = cmdline + len;
	int first = 1, skip = 0, script = 0;

	if (!size)
		return -EINVAL;
	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		const char *arg = p;
		size_t n;

		/* a title may fill the arguments' whole area, without NULs */
		if (!nul && !first)
			return -ENOENT;
		n = nul ? (size_t)(nul - p) : (size_t)(end - p);
		p = nul ? nul + 1 : end;
		if (first) {
			first = 0;
			if (!is_ruby(arg, n))
				return title(arg, n, out, size);
			continue;
		}
		if (skip) {
			skip = 0;
			continue;
		}
		if (script || arg[0] != '-')
			return put_file(arg, n, out, size);
		if (strcmp(arg, "--") == 0)
			script = 1;
		else if (strncmp(arg, "-e", 2) == 0 || strcmp(arg, "-") == 0)
			return -ENOENT;
		else if (in(arg, with_value, sizeof(with_value) / sizeof(with_value[0])))
			skip = 1;
	}
	return -ENOENT;
}
