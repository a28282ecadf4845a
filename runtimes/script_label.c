/* Labels from script paths. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/script_label.h"

static int is_generic(const char *name, size_t n, const char *const *generic, size_t ngeneric)
{
	size_t i;

	for (i = 0; i < ngeneric; i++)
		if (n > strlen(generic[i]) && strncmp(name, generic[i], strlen(generic[i])) == 0)
			return 1;
	return 0;
}

int script_label__from_path(const char *path, size_t n, const char *const *generic, size_t ngeneric,
			    char *out, size_t size)
{
	const char *slash = memrchr(path, '/', n), *start = path;

	if (!size)
		return -EINVAL;
	if (slash) {
		start = slash + 1;
		if (is_generic(start, n - (size_t)(start - path), generic, ngeneric)) {
			const char *up = slash > path ? memrchr(path, '/', (size_t)(slash - path)) : NULL;

			start = up ? up + 1 : path;
		}
	}
	n -= (size_t)(start - path);
	if (n == 0)
		return -ENOENT;
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(out, start, n);
	out[n] = '\0';
	return (int)n;
}
