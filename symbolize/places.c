/* Where native code is (places.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/frame_name.h"
#include "symbolize/places.h"

int places__intern(struct strtab *names, const char *name, const char *file, unsigned line, const char *suffix,
		   uint32_t *id)
{
	const char *base = file ? strrchr(file, '/') : NULL;
	char small[512], *buf = small;
	size_t need;
	int err;

	if (!file || !*file || !line)
		return frame_name__intern(names, name, suffix, id);
	base = base ? base + 1 : file;
	/* a file name holds no parenthesis: the place could not be read back */
	if (strpbrk(base, "()"))
		return frame_name__intern(names, name, suffix, id);
	need = strlen(name) + strlen(base) + 24;
	if (need > sizeof(small) && !(buf = malloc(need)))
		return -ENOMEM;
	snprintf(buf, need, "%s (%s:%u)", name, base, line);
	err = frame_name__intern(names, buf, suffix, id);
	if (buf != small)
		free(buf);
	return err;
}
