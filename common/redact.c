/* URLs with their credentials cut out, for logs. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/redact.h"

/* The authority's end (first '/', '?' or '#' after "scheme://"). */
static const char *authority_end(const char *auth)
{
	return auth + strcspn(auth, "/?#");
}

int redact__url_has_secret(const char *url)
{
	const char *auth, *end;

	if (!url || !(auth = strstr(url, "://")))
		return 0;
	auth += 3;
	end = authority_end(auth);
	return memchr(auth, '@', (size_t)(end - auth)) != NULL || strpbrk(end, "?#") != NULL;
}

const char *redact__url(const char *url, char *buf, size_t size)
{
	const char *auth, *end, *at, *host, *tail;
	size_t path_len;

	if (size == 0)
		return buf;
	if (!url || !(auth = strstr(url, "://")) || auth == url ||
	    strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-") !=
		    (size_t)(auth - url)) {
		snprintf(buf, size, "(not a URL)");
		return buf;
	}
	auth += 3;
	end = authority_end(auth);
	/* the last '@' of the authority ends the userinfo (a password may hold '@') */
	at = NULL;
	for (host = auth; host < end; host++)
		if (*host == '@')
			at = host;
	host = at ? at + 1 : auth;
	tail = strpbrk(end, "?#");
	path_len = tail ? (size_t)(tail - end) : strlen(end);
	snprintf(buf, size, "%.*s%s%.*s%.*s%s", (int)(auth - url), url, at ? "***@" : "",
		 (int)(end - host), host, (int)path_len, end, tail ? "?***" : "");
	return buf;
}
