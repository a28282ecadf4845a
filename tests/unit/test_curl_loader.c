/* Unit tests: libcurl loaded at run time (export/curl_loader.c). Criterion
 * runs every test in a fresh process, so each starts with libcurl unloaded;
 * this program does not link libcurl, which the first test checks. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/curl_loader.h"
#include "export/dump_read.h"
#include "export/pyroscope.h"

/* 1 when a file whose name starts with "libcurl" is mapped into this process. */
static int libcurl_mapped(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = 0;

	cr_assert(f, "/proc/self/maps: %s", strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		const char *slash = strrchr(line, '/');

		found = slash && strncmp(slash + 1, "libcurl", 7) == 0;
	}
	fclose(f);
	return found;
}

Test(curl_loader, loads_on_first_use_only)
{
	const struct curl_api *api = NULL;
	char msg[512] = "";
	CURL *c;

	cr_assert_not(libcurl_mapped(), "libcurl is mapped before the loader ran: is it linked?");
	cr_assert_eq(curl_loader__get(&api, msg, sizeof(msg)), 0, "%s", msg);
	cr_assert_not_null(api);
	cr_assert(libcurl_mapped());
	cr_assert(api->global_init && api->easy_init && api->easy_setopt && api->easy_perform &&
		  api->easy_getinfo && api->easy_cleanup && api->easy_strerror && api->easy_escape &&
		  api->free && api->slist_append && api->slist_free_all);

	/* the pointers are libcurl's own functions, not just non-NULL */
	c = api->easy_init();
	cr_assert_not_null(c);
	cr_assert_eq(api->easy_setopt(c, CURLOPT_TIMEOUT_MS, 1000L), CURLE_OK);
	cr_assert_str_eq(api->easy_strerror(CURLE_COULDNT_CONNECT), "Couldn't connect to server");
	api->easy_cleanup(c);
}

Test(curl_loader, idempotent)
{
	const struct curl_api *a = NULL, *b = NULL;

	cr_assert_eq(curl_loader__get(&a, NULL, 0), 0);
	cr_assert_eq(curl_loader__get(&b, NULL, 0), 0);
	cr_assert_eq(a, b, "a second call loads nothing new");
	cr_assert_eq(a->easy_init, b->easy_init);
}

static void *get_in_thread(void *arg)
{
	const struct curl_api **out = arg;

	if (curl_loader__get(out, NULL, 0) != 0)
		*out = NULL;
	return NULL;
}

/* The first use may come from several threads at once. */
Test(curl_loader, concurrent_first_use)
{
	enum { N = 8 };
	const struct curl_api *got[N];
	pthread_t t[N];
	int i;

	memset(got, 0, sizeof(got));
	for (i = 0; i < N; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, get_in_thread, &got[i]), 0);
	for (i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < N; i++) {
		cr_assert_not_null(got[i]);
		cr_assert_eq(got[i], got[0]);
	}
}

Test(curl_loader, missing_library)
{
	struct curl_api api, before;
	char msg[512] = "";

	memset(&api, 0x5a, sizeof(api));
	before = api;
	cr_assert_eq(curl_loader__load_from("libsmolder-no-such-curl.so.4", &api, msg, sizeof(msg)),
		     -ENOENT);
	cr_assert_eq(memcmp(&api, &before, sizeof(api)), 0, "output untouched on failure");
	cr_assert(strstr(msg, "libsmolder-no-such-curl.so.4 not found: install libcurl "
			      "(Debian: libcurl4, RHEL: libcurl)"), "%s", msg);
	cr_assert(strstr(msg, "cannot open shared object file"), "dlerror() is kept: %s", msg);
	cr_assert_not(libcurl_mapped());
	/* a NULL message buffer is fine */
	cr_assert_eq(curl_loader__load_from("libsmolder-no-such-curl.so.4", &api, NULL, 0), -ENOENT);
}

/* A library that loads but is not libcurl (zlib is linked into this test). */
Test(curl_loader, not_libcurl)
{
	struct curl_api api;
	char msg[512] = "";

	cr_assert_eq(curl_loader__load_from("libz.so.1", &api, msg, sizeof(msg)), -ENOSYS);
	cr_assert(strstr(msg, "libz.so.1 lacks curl_global_init"), "%s", msg);
}

Test(curl_loader, bad_arguments)
{
	struct curl_api api;

	cr_assert_eq(curl_loader__load_from(NULL, &api, NULL, 0), -EINVAL);
	cr_assert_eq(curl_loader__load_from(CURL_LOADER_SONAME, NULL, NULL, 0), -EINVAL);
	cr_assert_eq(curl_loader__get(NULL, NULL, 0), -EINVAL);
}

/* pyroscope__query() percent-encodes by itself (it must not need libcurl):
 * byte for byte what curl_easy_escape() would give, over every byte a
 * sanitized name can hold. */
Test(curl_loader, pyroscope_escape_matches_curl)
{
	static const struct dump_label p_labels[] = { { "service_name", "app" } };
	struct dump_label g_labels[1];
	struct dump_profile pr = { .labels = p_labels, .nlabels = 1 };
	const struct curl_api *api = NULL;
	char value[512], *name, *q, *esc, *expect;
	struct dump d;
	size_t n = 0, len;
	int c;

	/* every printable ASCII byte and a few UTF-8 sequences; the label
	 * sanitizer turns some into '_', which is fine: the name is compared */
	for (c = 0x20; c < 0x7f; c++)
		value[n++] = (char)c;
	memcpy(value + n, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", 15);
	n += 15;
	value[n] = '\0';
	g_labels[0].name = "v";
	g_labels[0].value = value;
	memset(&d, 0, sizeof(d));
	d.schema = "smolder.profile/v1";
	d.window_id = "w";
	d.start_ns = 1000000000ull;
	d.end_ns = 2000000000ull;
	d.hostname = "h o/s%t";
	d.labels = g_labels;
	d.nlabels = 1;
	d.profiles = &pr;
	d.nprofiles = 1;

	cr_assert_eq(curl_loader__get(&api, NULL, 0), 0);
	name = pyroscope__name(&d, 0);
	q = pyroscope__query(&d, 0);
	cr_assert(name && q);
	esc = api->easy_escape(NULL, name, (int)strlen(name));
	cr_assert_not_null(esc);
	len = strlen(esc) + sizeof("name=&");
	expect = malloc(len);
	cr_assert_not_null(expect);
	snprintf(expect, len, "name=%s&", esc);
	cr_assert_eq(strncmp(q, expect, strlen(expect)), 0, "\n ours: %s\n curl: %s", q, expect);
	api->free(esc);
	free(expect);
	free(q);
	free(name);
}
