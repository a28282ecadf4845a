/* libcurl, loaded at run time (dlopen) by the first HTTP transfer, so that
 * commands and daemons that never send (record, report, probe, a spooling-only
 * run) do not map libcurl and its ~40 dependencies at exec. Types and
 * constants still come from <curl/curl.h> at compile time; only the functions
 * are resolved here. */
#ifndef SMOLDER_EXPORT_CURL_LOADER_H
#define SMOLDER_EXPORT_CURL_LOADER_H
#include <stddef.h>

#include <curl/curl.h>

/* The runtime library of libcurl's ABI 4 (every libcurl since 7.16; RHEL 7's
 * 7.29 included). Not the unversioned "libcurl.so": that is a development
 * symlink, present only where libcurl.so.4 is too. */
#define CURL_LOADER_SONAME "libcurl.so.4"

/* The functions of libcurl that smolder calls, as curl declares them.
 * easy_setopt and easy_getinfo are variadic: curl's compile-time type checks
 * (typecheck-gcc.h) do not apply through these pointers, so callers must pass
 * exactly the type the option expects (long, pointer, curl_off_t, callback). */
struct curl_api {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	char *(*easy_escape)(CURL *curl, const char *string, int length);
	void (*free)(void *p);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *data);
	void (*slist_free_all)(struct curl_slist *list);
};

/* Loads CURL_LOADER_SONAME (RTLD_NOW | RTLD_LOCAL), resolves every function
 * of struct curl_api and runs curl_global_init(CURL_GLOBAL_ALL), all once per
 * process. Returns 0 and *api (valid for the life of the process: the library
 * is never unloaded), or:
 *   -ENOENT  the library (or one it needs) cannot be loaded: "libcurl.so.4
 *            not found: install libcurl (Debian: libcurl4, RHEL: libcurl); ..."
 *   -ENOSYS  it lacks one of the functions (not a libcurl of ABI 4)
 *   -ENOMEM, -EIO  curl_global_init() failed
 * with a one-line reason (dlerror() included) in msg, for the caller to log;
 * *api is then untouched. A failure is not remembered: the next call tries
 * again, so that installing libcurl is enough for a running daemon.
 * Thread-safe (serialized by a mutex), but curl_global_init() itself is not
 * safe against other threads already using libcurl (none in smolder). */
int curl_loader__get(const struct curl_api **api, char *msg, size_t msglen);

/* The loading step alone, for tests: dlopen(soname) and resolve into *api.
 * No curl_global_init(), nothing remembered, the handle never closed once
 * everything resolved (closed again on failure). Same returns and messages
 * as curl_loader__get(); *api untouched on failure. */
int curl_loader__load_from(const char *soname, struct curl_api *api, char *msg, size_t msglen);

#endif
