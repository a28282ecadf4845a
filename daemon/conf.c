/* The configuration: its lifetime and defaults, the file reader (lines,
 * quoting, errors naming file and line), command-line overrides, secret
 * files and the checks across keys. The keys themselves are conf_keys.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon/conf.h"
#include "daemon/conf_keys.h"
#include "daemon/conf_msg.h"
#include "common/cachedir.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/parse.h"
#include "common/units.h"
#include "symbolize/loadbudget.h"

/* Hostile-input bounds: a config file is small; anything bigger is a mistake
 * (or an attack) and reading it whole keeps the parser simple. */
#define MAX_FILE_SIZE (1024 * 1024)
#define MAX_LINE 4096
#define MAX_SECRET 4096



/* ---- lifetime ---- */

int conf__init(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->frequency = 99;
	c->stack_size = 32768; /* PERF_DEFAULT_STACK */
	c->max_frames = 512;
	c->nice = CONF_DEFAULT_NICE;
	c->names = NAME_DETAIL_DEFAULT;
	c->names_max_size = UINT64_C(8) << 20;
	c->load_max_size = LOADBUDGET_DEFAULT_BYTES;
	c->load_cpu_budget_bp = LOADBUDGET_DEFAULT_LOAD_PPM / 100;
	c->per_pid = 0;
	c->group_by_thread = 0;
	c->interval_ns = 10 * NS_PER_S;
	c->stats_interval_ns = 60 * NS_PER_S;
	c->cpu_budget_bp = 100;
	c->log = CONF_LOG_STDERR;
	c->log_level = LOG_NOTICE;
	c->export = CONF_EXPORT_NONE;
	c->tls_verify = 1;
	c->connect_timeout_ns = 5 * NS_PER_S;
	c->timeout_ns = 30 * NS_PER_S;
	c->backoff_min_ns = 1 * NS_PER_S;
	c->backoff_max_ns = 5 * NS_PER_MIN;
	c->spool_max_size = UINT64_C(512) << 20;
	c->spool_max_age_ns = 7 * NS_PER_D;
	c->event = strdup("cpu-clock");
	c->spool_dir = strdup("/var/lib/smolder/spool");
	c->cache_dir = strdup(CACHEDIR_DEFAULT_PATH);
	c->cache_max_size = CACHEDIR_DEFAULT_MAX_BYTES;
	if (!c->event || !c->spool_dir || !c->cache_dir) {
		conf__free(c);
		return -ENOMEM;
	}
	return 0;
}

void conf__free(struct conf *c)
{
	size_t i;

	if (!c)
		return;
	free(c->event);
	free(c->url);
	free(c->auth_token_file);
	free(c->basic_auth_file);
	free(c->tenant_id);
	free(c->tls_ca_file);
	free(c->spool_dir);
	free(c->cache_dir);
	for (i = 0; i < c->nlabels && i < CONF_MAX_LABELS; i++) {
		free(c->labels[i].name);
		free(c->labels[i].value);
	}
	/* Zeroed so that a second conf__free, or a free after a failed init, is harmless. */
	memset(c, 0, sizeof(*c));
}

static int dup_field(char **dst, const char *src)
{
	if (!src) {
		*dst = NULL;
		return 0;
	}
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

int conf__copy(struct conf *dst, const struct conf *src)
{
	struct conf t;
	size_t i;
	int rc = 0;

	/* Shallow copy first, then replace every pointer; t owns nothing until
	 * each pointer is rewritten, so clear them before any early exit. */
	t = *src;
	t.event = t.url = t.auth_token_file = t.basic_auth_file = NULL;
	t.tenant_id = t.tls_ca_file = t.spool_dir = t.cache_dir = NULL;
	t.nlabels = 0;
	memset(t.labels, 0, sizeof(t.labels));

	rc |= dup_field(&t.event, src->event);
	rc |= dup_field(&t.url, src->url);
	rc |= dup_field(&t.auth_token_file, src->auth_token_file);
	rc |= dup_field(&t.basic_auth_file, src->basic_auth_file);
	rc |= dup_field(&t.tenant_id, src->tenant_id);
	rc |= dup_field(&t.tls_ca_file, src->tls_ca_file);
	rc |= dup_field(&t.spool_dir, src->spool_dir);
	rc |= dup_field(&t.cache_dir, src->cache_dir);
	if (rc < 0)
		goto out_free;
	for (i = 0; i < src->nlabels && i < CONF_MAX_LABELS; i++) {
		rc = dup_field(&t.labels[i].name, src->labels[i].name);
		if (rc == 0)
			rc = dup_field(&t.labels[i].value, src->labels[i].value);
		t.nlabels = i + 1;
		if (rc < 0)
			goto out_free;
	}
	*dst = t;
	return 0;

out_free:
	conf__free(&t);
	return -ENOMEM;
}

/* ---- files ---- */

/* Reads at most max bytes of a regular file; a larger file is -EFBIG. */
static int read_file(const char *path, int extra_flags, size_t max,
		     char **out, size_t *outlen, struct stat *st)
{
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | extra_flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		rc = -errno;
		goto out_close;
	}
	/* A FIFO or a device would block or never end. */
	if (!S_ISREG(st->st_mode)) {
		rc = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
		goto out_close;
	}
	if (st->st_size > (off_t)max) {
		rc = -EFBIG;
		goto out_close;
	}
	buf = malloc(max + 2);
	if (!buf) {
		rc = -ENOMEM;
		goto out_close;
	}
	/* The file may grow while we read: stop one byte past the bound. Read
	 * straight into buf, which is wiped: it may hold a secret. */
	n = fileio__read_into(fd, buf, max + 1);
	if (n < 0) {
		rc = (int)n;
		goto out_free;
	}
	len = (size_t)n;
	if (len > max) {
		rc = -EFBIG;
		goto out_free;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	close(fd);
	return 0;

out_free:
	conf_msg__wipe(buf, max + 2);
	free(buf);
out_close:
	close(fd);
	return rc;
}

static const char *file_problem(int rc, char *buf, size_t len)
{
	switch (rc) {
	case -EFBIG:
		return "file too large";
	case -EINVAL:
		return "not a regular file";
	case -ELOOP:
		return "is a symbolic link (refusing to follow it)";
	default:
		return conf_msg__strerror(-rc, buf, len);
	}
}

static char *trim(char *s, char **end)
{
	char *e = *end;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	*end = e;
	return s;
}

/* Removes optional double quotes in place; inside them only \" and \\ are
 * escapes, so Windows-style paths or regexes are not silently mangled. */
static int unquote(char *v, char *end, char *msg, size_t msglen)
{
	char *r, *w;

	if (*v != '"')
		return 0;
	if (end - v < 2 || end[-1] != '"') {
		conf_msg__set(msg, msglen, "unterminated quoted value");
		return -EINVAL;
	}
	end[-1] = '\0';
	for (r = v + 1, w = v; *r; r++) {
		if (*r == '\\') {
			if (r[1] != '"' && r[1] != '\\') {
				conf_msg__set(msg, msglen, "invalid escape in quoted value (only \\\" and \\\\)");
				return -EINVAL;
			}
			r++;
		} else if (*r == '"') {
			conf_msg__set(msg, msglen, "unescaped '\"' inside quoted value");
			return -EINVAL;
		}
		*w++ = *r;
	}
	*w = '\0';
	return 0;
}

/* Common slip: "key = value # comment". Say why the value looks wrong. */
static int has_trailing_comment(const char *v)
{
	const char *p = strchr(v, '#');

	return p && p > v && (p[-1] == ' ' || p[-1] == '\t');
}

static int parse_line(struct conf *c, const char *path, unsigned lineno,
		      char *line, char *end, char *err, size_t errlen)
{
	char msg[384];
	char *key, *kend, *v, *eq;
	int rc;

	key = trim(line, &end);
	if (key == end || *key == '#')
		return 0;
	eq = memchr(key, '=', (size_t)(end - key));
	if (!eq) {
		conf_msg__set(err, errlen, "%s:%u: expected 'key = value'", path, lineno);
		return -EINVAL;
	}
	kend = eq;
	*eq = '\0';
	key = trim(key, &kend);
	v = eq + 1;
	v = trim(v, &end);
	if (!*key) {
		conf_msg__set(err, errlen, "%s:%u: expected 'key = value'", path, lineno);
		return -EINVAL;
	}
	if (!conf_keys__printable(key)) {
		conf_msg__set(err, errlen, "%s:%u: invalid character in key", path, lineno);
		return -EINVAL;
	}
	/* Control characters are checked before unquoting, so a quoted value
	 * cannot smuggle one in, and before echoing the value in a message. */
	if (conf_msg__has_ctl(v, (size_t)(end - v))) {
		conf_msg__set(err, errlen, "%s:%u: %." CONF_ECHO_MAX "s: value contains a control character",
			path, lineno, key);
		return -EINVAL;
	}
	rc = unquote(v, end, msg, sizeof(msg));
	if (rc == 0)
		rc = conf_keys__set(c, key, v, msg, sizeof(msg));
	if (rc < 0) {
		conf_msg__set(err, errlen, "%s:%u: %." CONF_ECHO_MAX "s: %s%s", path, lineno, key, msg,
			rc == -EINVAL && has_trailing_comment(v) ?
			" ('#' starts a comment only at the start of a line)" : "");
		return rc;
	}
	return 0;
}

static int parse_buffer(struct conf *c, const char *path, char *buf, size_t len,
			char *err, size_t errlen)
{
	char *p = buf, *bufend = buf + len;
	unsigned lineno = 0;
	int rc;

	/* Editors on some systems prepend a UTF-8 byte order mark. */
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < bufend) {
		char *nl = memchr(p, '\n', (size_t)(bufend - p));
		char *end = nl ? nl : bufend;

		lineno++;
		if (end > p && end[-1] == '\r')
			end--;
		if ((size_t)(end - p) > MAX_LINE) {
			conf_msg__set(err, errlen, "%s:%u: line too long (max %d bytes)", path, lineno, MAX_LINE);
			return -EINVAL;
		}
		/* A NUL would silently cut the line short: treat it as the control
		 * character it is (parse_line then sees it in key or value). */
		if (memchr(p, '\0', (size_t)(end - p))) {
			conf_msg__set(err, errlen, "%s:%u: line contains a NUL byte", path, lineno);
			return -EINVAL;
		}
		*end = '\0';
		rc = parse_line(c, path, lineno, p, end, err, errlen);
		if (rc < 0)
			return rc;
		p = nl ? nl + 1 : bufend;
	}
	return 0;
}

int conf__load(struct conf *c, const char *path, char *err, size_t errlen)
{
	struct conf t;
	struct stat st;
	char *buf = NULL, eb[128];
	size_t len;
	int rc;

	rc = read_file(path, 0, MAX_FILE_SIZE, &buf, &len, &st);
	if (rc < 0) {
		if (rc == -EFBIG)
			conf_msg__set(err, errlen, "%s: file too large (max 1 MiB)", path);
		else
			conf_msg__set(err, errlen, "%s: %s", path, file_problem(rc, eb, sizeof(eb)));
		return rc;
	}
	/* Parse into a copy so that c is untouched when the file is bad. */
	rc = conf__copy(&t, c);
	if (rc < 0) {
		conf_msg__set(err, errlen, "%s: out of memory", path);
		goto out_buf;
	}
	rc = parse_buffer(&t, path, buf, len, err, errlen);
	if (rc < 0) {
		conf__free(&t);
		goto out_buf;
	}
	conf__free(c);
	*c = t;
out_buf:
	free(buf);
	return rc;
}

int conf__set(struct conf *c, const char *key, const char *value, char *err, size_t errlen)
{
	char name[128], msg[384];
	size_t i, n;
	int rc;

	if (!key || !value) {
		conf_msg__set(err, errlen, "--: missing key or value");
		return -EINVAL;
	}
	n = strlen(key);
	if (n == 0 || !conf_keys__printable(key)) {
		conf_msg__set(err, errlen, "invalid option name");
		return -EINVAL;
	}
	if (n >= sizeof(name)) {
		conf_msg__set(err, errlen, "--%." CONF_ECHO_MAX "s: unknown key", key);
		return -EINVAL;
	}
	memcpy(name, key, n + 1);
	/* Flags are spelled with dashes (--spool-dir); label names keep theirs
	 * so an invalid label name is reported rather than silently renamed. */
	if (strncmp(name, "label.", 6) != 0)
		for (i = 0; i < n; i++)
			if (name[i] == '-')
				name[i] = '_';
	rc = conf_keys__set(c, name, value, msg, sizeof(msg));
	if (rc < 0)
		conf_msg__set(err, errlen, "--%." CONF_ECHO_MAX "s: %s", key, msg);
	return rc;
}

/* ---- secrets and validation ---- */

int conf__read_secret_ex(const char *path, char **out, int *exposed, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL, *nl, *s, eb[128];
	size_t len;
	int rc;

	/* O_NOFOLLOW: a symlink planted where the secret should be must not
	 * redirect the daemon to some other file it can read. */
	rc = read_file(path, O_NOFOLLOW, MAX_SECRET, &buf, &len, &st);
	if (rc < 0) {
		if (rc == -EFBIG)
			conf_msg__set(err, errlen, "%s: file too large (max %d bytes)", path, MAX_SECRET);
		else
			conf_msg__set(err, errlen, "%s: %s", path, file_problem(rc, eb, sizeof(eb)));
		return rc;
	}
	nl = memchr(buf, '\n', len);
	if (nl)
		len = (size_t)(nl - buf);
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	if (len == 0) {
		conf_msg__set(err, errlen, "%s: first line is empty", path);
		rc = -EINVAL;
		goto out_wipe;
	}
	/* The secret ends up in an HTTP header: CR, LF or NUL would inject or cut it. */
	if (conf_msg__has_ctl(buf, len)) {
		conf_msg__set(err, errlen, "%s: first line contains a control character", path);
		rc = -EINVAL;
		goto out_wipe;
	}
	s = malloc(len + 1);
	if (!s) {
		conf_msg__set(err, errlen, "%s: out of memory", path);
		rc = -ENOMEM;
		goto out_wipe;
	}
	memcpy(s, buf, len);
	s[len] = '\0';
	*out = s;
	if (exposed)
		*exposed = (st.st_mode & (S_IRGRP | S_IROTH)) != 0;
	rc = 0;
out_wipe:
	conf_msg__wipe(buf, MAX_SECRET + 2);
	free(buf);
	return rc;
}

int conf__read_secret(const char *path, char **out, char *err, size_t errlen)
{
	return conf__read_secret_ex(path, out, NULL, err, errlen);
}

static int check_secret(const char *key, const char *path, int need_colon, char *err, size_t errlen)
{
	char msg[384];
	char *s = NULL;
	int rc;

	rc = conf__read_secret(path, &s, msg, sizeof(msg));
	if (rc < 0) {
		conf_msg__set(err, errlen, "%s: %s", key, msg);
		return -EINVAL;
	}
	rc = 0;
	if (need_colon && !strchr(s, ':')) {
		conf_msg__set(err, errlen, "%s: %s: first line must be 'user:password'", key, path);
		rc = -EINVAL;
	}
	conf_msg__wipe(s, strlen(s));
	free(s);
	return rc;
}

int conf__validate(const struct conf *c, char *err, size_t errlen)
{
	static const char *const export_names[] = { "none", "json", "pyroscope" };
	char a[32], b[32], eb[128];
	size_t i;
	int fd;

	if (c->export != CONF_EXPORT_NONE) {
		const char *name = (unsigned)c->export < 3 ? export_names[c->export] : "?";
		const char *rest;

		/* The URL is never echoed: it may carry user:password. */
		if (!c->url) {
			conf_msg__set(err, errlen, "url: required when export = %s", name);
			return -EINVAL;
		}
		if (strncasecmp(c->url, "http://", 7) == 0)
			rest = c->url + 7;
		else if (strncasecmp(c->url, "https://", 8) == 0)
			rest = c->url + 8;
		else {
			conf_msg__set(err, errlen, "url: must start with http:// or https://");
			return -EINVAL;
		}
		if (!*rest || *rest == '/') {
			conf_msg__set(err, errlen, "url: has no host");
			return -EINVAL;
		}
	}
	if (c->auth_token_file && c->basic_auth_file) {
		conf_msg__set(err, errlen, "auth_token_file: cannot be combined with basic_auth_file");
		return -EINVAL;
	}
	if (c->auth_token_file && check_secret("auth_token_file", c->auth_token_file, 0, err, errlen) < 0)
		return -EINVAL;
	if (c->basic_auth_file && check_secret("basic_auth_file", c->basic_auth_file, 1, err, errlen) < 0)
		return -EINVAL;
	if (c->tls_ca_file) {
		fd = open(c->tls_ca_file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			conf_msg__set(err, errlen, "tls_ca_file: %s: %s", c->tls_ca_file,
				conf_msg__strerror(errno, eb, sizeof(eb)));
			return -EINVAL;
		}
		close(fd);
	}
	if (!c->spool_dir || c->spool_dir[0] != '/') {
		conf_msg__set(err, errlen, "spool_dir: must be an absolute path");
		return -EINVAL;
	}
	if (c->cache_dir && c->cache_dir[0] != '/') {
		conf_msg__set(err, errlen, "cache_dir: must be an absolute path (or empty: no cache)");
		return -EINVAL;
	}
	if (c->backoff_min_ns > c->backoff_max_ns) {
		units__format_duration(c->backoff_min_ns, a, sizeof(a));
		units__format_duration(c->backoff_max_ns, b, sizeof(b));
		conf_msg__set(err, errlen, "retry_backoff_min: %s is greater than retry_backoff_max (%s)", a, b);
		return -EINVAL;
	}
	/* Pyroscope's name{k=v,...} syntax has no escaping. */
	if (c->export == CONF_EXPORT_PYROSCOPE) {
		for (i = 0; i < c->nlabels; i++) {
			if (strpbrk(c->labels[i].value, ",}=")) {
				conf_msg__set(err, errlen, "label.%s: value must not contain ',', '}' or '=' with export = pyroscope",
					c->labels[i].name);
				return -EINVAL;
			}
		}
	}
	return 0;
}
