/* elfutils' debuginfod client, loaded with dlopen (debuginfod_fetch.h).
 * The prototypes are those of <elfutils/debuginfod.h> (elfutils 0.178
 * and later), declared here so that building needs no debuginfod
 * package. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/debuginfod_fetch.h"

typedef struct debuginfod_client debuginfod_client;

struct debuginfod_fetch {
	void *lib;
	debuginfod_client *client;
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *c);
	int (*find_debuginfo)(debuginfod_client *c, const unsigned char *build_id, int build_id_len,
			      char **path);
};

/* dlsym hands out functions as void *: POSIX guarantees the copy. */
static int resolve(void *lib, const char *name, void *out)
{
	void *sym = dlsym(lib, name);

	if (!sym)
		return -ENOENT;
	memcpy(out, &sym, sizeof(sym));
	return 0;
}

int debuginfod_fetch__available(void)
{
	static const char *const prefixes[] = { "", "/usr" };
	char dir[512], path[600];
	Dl_info info;
	char *slash;
	size_t i;

	/* looked for beside the C library, not loaded: loading it would load
	 * libcurl, which nothing but a transfer may (tests/lazy_curl.sh) */
	if (!dladdr((void *)(uintptr_t)&printf, &info) || !info.dli_fname ||
	    snprintf(dir, sizeof(dir), "%s", info.dli_fname) >= (int)sizeof(dir) || !(slash = strrchr(dir, '/')))
		return 0;
	*slash = '\0';
	if (!strncmp(dir, "/usr/", 5))
		memmove(dir, dir + 4, strlen(dir + 4) + 1);
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		snprintf(path, sizeof(path), "%s%s/%s", prefixes[i], dir, DEBUGINFOD_SONAME);
		if (access(path, R_OK) == 0)
			return 1;
	}
	return 0;
}

int debuginfod_fetch__open(const char *urls, struct debuginfod_fetch **out, char *msg, size_t msglen)
{
	struct debuginfod_fetch *f;
	const char *why;

	if (!urls || !*urls) {
		snprintf(msg, msglen, "no server URL");
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->lib = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!f->lib) {
		why = dlerror();
		snprintf(msg, msglen, "%s", why ? why : DEBUGINFOD_SONAME " not found");
		free(f);
		return -ENOENT;
	}
	if (resolve(f->lib, "debuginfod_begin", &f->begin) || resolve(f->lib, "debuginfod_end", &f->end) ||
	    resolve(f->lib, "debuginfod_find_debuginfo", &f->find_debuginfo)) {
		snprintf(msg, msglen, DEBUGINFOD_SONAME " lacks the client's functions");
		dlclose(f->lib);
		free(f);
		return -ENOENT;
	}
	/* the client reads its servers from the environment when it begins */
	if (setenv("DEBUGINFOD_URLS", urls, 1) != 0 || !(f->client = f->begin())) {
		snprintf(msg, msglen, "the debuginfod client did not start");
		unsetenv("DEBUGINFOD_URLS");
		dlclose(f->lib);
		free(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

void debuginfod_fetch__close(struct debuginfod_fetch *f)
{
	if (!f)
		return;
	f->end(f->client);
	unsetenv("DEBUGINFOD_URLS");
	/* not dlclose()d: the client's libraries (libcurl, libstdc++) keep
	 * global state that unloading would strand; it stays until exit */
	free(f);
}

int debuginfod_fetch__debuginfo(struct debuginfod_fetch *f, const char *hex, char *path, size_t size)
{
	char *got = NULL;
	int fd, n;

	if (!f || !hex || !*hex)
		return -EINVAL;
	/* build_id_len 0: the ID given as a hex string */
	fd = f->find_debuginfo(f->client, (const unsigned char *)hex, 0, &got);
	if (fd < 0) {
		free(got);
		return fd;
	}
	close(fd);
	n = got ? snprintf(path, size, "%s", got) : -1;
	free(got);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}
