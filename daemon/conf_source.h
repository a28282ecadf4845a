/* Where the daemon's configuration comes from: a file (the default path,
 * which may be absent, or one named with -c, which must exist) and then the
 * command line's KEY=VALUE overrides, in order. Loaded at start and again at
 * every SIGHUP, with the same overrides, so a reload never loses what the
 * command line said. */
#ifndef SMOLDER_DAEMON_CONF_SOURCE_H
#define SMOLDER_DAEMON_CONF_SOURCE_H
#include <stddef.h>

struct conf;

struct conf_override {
	const char *key, *value; /* "interval", "5s"; "label.env", "prod" */
};

struct conf_source {
	const char *path;          /* the configuration file */
	int path_given;            /* named on the command line: it must exist */
	const struct conf_override *overrides; /* borrowed */
	size_t noverrides;
};

/* Fills *out (an uninitialized struct conf) with the defaults, the file,
 * the overrides, and checks the whole (conf__validate). Returns 0, or
 * -errno with a one-line message naming the file, line and key in err;
 * *out holds nothing to free then. */
int conf_source__load(const struct conf_source *src, struct conf *out, char *err, size_t errlen);
/* Whether the file that holds c's credentials (a url with userinfo or a
 * query string) can be read by users other than its owner's group: then
 * msg gets a warning naming the file and the fix, and 1 is returned. */
int conf_source__exposes_secret(const struct conf_source *src, const struct conf *c, char *msg,
				size_t len);
/* Whether the default file was absent and the defaults are in use. */
int conf_source__uses_defaults(const struct conf_source *src);

#endif
