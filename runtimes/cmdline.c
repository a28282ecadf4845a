/* Command lines as the kernel keeps them (runtimes/cmdline.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/cmdline.h"

bool cmdline__next(struct cmdline *c, const char **arg, size_t *n)
{
	const char *nul;

	if (c->p >= c->end)
		return false;
	nul = memchr(c->p, '\0', (size_t)(c->end - c->p));
	if (!nul)
		return false;
	*arg = c->p;
	*n = (size_t)(nul - c->p);
	c->p = nul + 1;
	return true;
}

int cmdline__put(const char *s, size_t n, char *out, size_t size)
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

const char *cmdline__base(const char *path, size_t n, size_t *len)
{
	const char *slash = memrchr(path, '/', n);

	if (!slash) {
		*len = n;
		return path;
	}
	*len = n - (size_t)(slash + 1 - path);
	return slash + 1;
}
