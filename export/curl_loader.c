/* libcurl loaded with dlopen on first use, its functions resolved with dlsym. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "export/curl_loader.h"

/* dlsym hands out functions as void *; POSIX guarantees the two have the
 * same size and representation, which the copies below rely on. */
typedef char fn_ptr_fits_void_ptr[sizeof(void (*)(void)) == sizeof(void *) ? 1 : -1];

static const struct {
	const char *name;
	size_t off;
} symbols[] = {
	{ "curl_global_init", offsetof(struct curl_api, global_init) },
	{ "curl_easy_init", offsetof(struct curl_api, easy_init) },
	{ "curl_easy_setopt", offsetof(struct curl_api, easy_setopt) },
	{ "curl_easy_perform", offsetof(struct curl_api, easy_perform) },
	{ "curl_easy_getinfo", offsetof(struct curl_api, easy_getinfo) },
	{ "curl_easy_cleanup", offsetof(struct curl_api, easy_cleanup) },
	{ "curl_easy_strerror", offsetof(struct curl_api, easy_strerror) },
	{ "curl_easy_escape", offsetof(struct curl_api, easy_escape) },
	{ "curl_free", offsetof(struct curl_api, free) },
	{ "curl_slist_append", offsetof(struct curl_api, slist_append) },
	{ "curl_slist_free_all", offsetof(struct curl_api, slist_free_all) },
};

int curl_loader__load_from(const char *soname, struct curl_api *api, char *msg, size_t msglen)
{
	struct curl_api a;
	const char *why;
	void *h, *sym;
	size_t i;

	if (!soname || !api)
		return -EINVAL;
	/* RTLD_NOW: a libcurl whose own dependencies do not resolve fails here,
	 * not in the middle of a transfer. RTLD_LOCAL: its symbols stay out of
	 * the global namespace, where they could interpose on other libraries'. */
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		why = dlerror();
		if (msg && msglen)
			snprintf(msg, msglen,
				 "%s not found: install libcurl (Debian: libcurl4, RHEL: libcurl); %s",
				 soname, why ? why : "dlopen failed");
		return -ENOENT;
	}
	memset(&a, 0, sizeof(a));
	for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		dlerror();
		sym = dlsym(h, symbols[i].name);
		if (!sym) {
			why = dlerror();
			if (msg && msglen)
				snprintf(msg, msglen, "%s lacks %s, not a libcurl of ABI 4? %s", soname,
					 symbols[i].name, why ? why : "");
			dlclose(h);
			return -ENOSYS;
		}
		memcpy((char *)&a + symbols[i].off, &sym, sizeof(sym));
	}
	*api = a;
	return 0;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct curl_api loaded; /* written once, under lock, before `ready` */
static int ready;

int curl_loader__get(const struct curl_api **api, char *msg, size_t msglen)
{
	struct curl_api a;
	CURLcode rc;
	int err = 0;

	if (!api)
		return -EINVAL;
	pthread_mutex_lock(&lock);
	if (ready)
		goto out;
	err = curl_loader__load_from(CURL_LOADER_SONAME, &a, msg, msglen);
	if (err)
		goto out;
	/* Once per process, before any handle exists. The library stays loaded
	 * even when this fails: the next try runs it again, which curl allows. */
	rc = a.global_init(CURL_GLOBAL_ALL);
	if (rc != CURLE_OK) {
		if (msg && msglen)
			snprintf(msg, msglen, "%s: curl_global_init failed: %s", CURL_LOADER_SONAME,
				 a.easy_strerror(rc));
		err = rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
		goto out;
	}
	loaded = a;
	ready = 1;
out:
	if (!err)
		*api = &loaded;
	pthread_mutex_unlock(&lock);
	return err;
}
