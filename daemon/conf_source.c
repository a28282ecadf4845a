/* The configuration file, then the command-line overrides, then the checks. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/redact.h"
#include "daemon/conf.h"
#include "daemon/conf_source.h"

int conf_source__load(const struct conf_source *src, struct conf *out, char *err, size_t errlen)
{
	struct stat st;
	size_t i;
	int rc;

	rc = conf__init(out);
	if (rc < 0) {
		snprintf(err, errlen, "%s", strerror(-rc));
		return rc;
	}
	if (src->path_given || stat(src->path, &st) == 0) {
		rc = conf__load(out, src->path, err, errlen);
		if (rc < 0)
			goto fail;
	}
	for (i = 0; i < src->noverrides; i++) {
		rc = conf__set(out, src->overrides[i].key, src->overrides[i].value, err, errlen);
		if (rc < 0)
			goto fail;
	}
	rc = conf__validate(out, err, errlen);
	if (rc < 0)
		goto fail;
	return 0;
fail:
	conf__free(out);
	return rc;
}

int conf_source__exposes_secret(const struct conf_source *src, const struct conf *c, char *msg,
				size_t len)
{
	struct stat st;

	if (!c->url || !redact__url_has_secret(c->url) || stat(src->path, &st) != 0 ||
	    !(st.st_mode & S_IROTH))
		return 0;
	snprintf(msg, len, "%s holds credentials in its url and other users can read it: "
		 "chmod 640 %s (or put the secret in auth_token_file / basic_auth_file)",
		 src->path, src->path);
	return 1;
}

int conf_source__uses_defaults(const struct conf_source *src)
{
	return !src->path_given && access(src->path, F_OK) != 0;
}
