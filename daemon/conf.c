/* The configuration file parser, command line overrides and secret files. */
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
/* Values echoed back in error messages are cut here so one bad line cannot
 * produce a multi-kilobyte log line. */
#define ECHO_MAX "128"



static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* strerror is not thread-safe and the daemon may reload while its uploader
 * runs; strerror_r comes in a GNU and an XSI flavour. */
static const char *errstr(int e, char *buf, size_t len)
{
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
	return strerror_r(e, buf, len);
#else
	if (strerror_r(e, buf, len) != 0)
		snprintf(buf, len, "error %d", e);
	return buf;
#endif
}

/* A plain memset before free may be optimized away; secrets must not linger. */
static void wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n--)
		*v++ = 0;
}

static int is_ctl(unsigned char ch)
{
	return ch < 0x20 || ch == 0x7f;
}

static int has_ctl(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (is_ctl((unsigned char)s[i]))
			return 1;
	return 0;
}

/* "1%", "0.25%", "2" (a bare number is percent too) -> hundredths of a percent. */
static int parse_percent(const char *v, uint64_t *out)
{
	uint64_t whole = 0, frac = 0;
	size_t i = 0, nd = 0, fd = 0;

	for (; v[i] >= '0' && v[i] <= '9'; i++, nd++) {
		if (nd >= 6)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(v[i] - '0');
	}
	if (v[i] == '.') {
		for (i++; v[i] >= '0' && v[i] <= '9'; i++, fd++) {
			if (fd >= 2)
				return -EINVAL; /* finer than 0.01% is noise */
			frac = frac * 10 + (uint64_t)(v[i] - '0');
		}
		if (fd == 0)
			return -EINVAL;
		if (fd == 1)
			frac *= 10;
	}
	if (nd == 0 && fd == 0)
		return -EINVAL;
	if (v[i] == '%')
		i++;
	if (v[i] != '\0')
		return -EINVAL;
	*out = whole * 100 + frac;
	return 0;
}

/* ---- keys ---- */

enum kind {
	K_UINT,     /* unsigned, [min, max] */
	K_INT,      /* int, [(int)min, (int)max] */
	K_STACK,    /* uint32_t size, [min, max], multiple of 8 */
	K_BOOL,     /* int */
	K_DURATION, /* uint64_t ns, [min, max], or 0 when zero_ok */
	K_SIZE,     /* uint64_t bytes, [min, max], or 0 when zero_ok */
	K_STRING,   /* char *, optional: empty unsets */
	K_ABSPATH,  /* char *, required absolute path */
	K_EVENT,    /* char *, one of the perf events we program */
	K_LOG,
	K_LOGLEVEL,
	K_EXPORT,
	K_PERCENT,  /* unsigned hundredths of a percent, "1%", "0.5%", [min, max] */
};

struct key {
	const char *name;
	enum kind kind;
	size_t off;
	uint64_t min, max;
	int zero_ok;
};

#define F(field) offsetof(struct conf, field)

static const struct key keys[] = {
	{ "frequency", K_UINT, F(frequency), 1, 100000, 0 },
	{ "stack_size", K_STACK, F(stack_size), 8, 65528, 0 },
	{ "max_frames", K_UINT, F(max_frames), 1, 1024, 0 },
	{ "event", K_EVENT, F(event), 0, 0, 0 },
	{ "per_pid", K_BOOL, F(per_pid), 0, 0, 0 },
	{ "cpu_budget", K_PERCENT, F(cpu_budget_bp), 0, 10000, 0 },
	{ "nice", K_INT, F(nice), (uint64_t)-20, 19, 0 },
	{ "names_max_size", K_SIZE, F(names_max_size), 64u << 10, UINT64_MAX, 0 },
	{ "load_max_size", K_SIZE, F(load_max_size), 1u << 20, UINT64_MAX, 0 },
	{ "load_cpu_budget", K_PERCENT, F(load_cpu_budget_bp), 1, 10000, 0 },
	{ "interval", K_DURATION, F(interval_ns), NS_PER_S, NS_PER_H, 0 },
	/* Sub-second stats would flood the log; 0 switches them off. */
	{ "stats_interval", K_DURATION, F(stats_interval_ns), NS_PER_S, UINT64_MAX, 1 },
	{ "log", K_LOG, F(log), 0, 0, 0 },
	{ "log_level", K_LOGLEVEL, F(log_level), 0, 0, 0 },
	{ "export", K_EXPORT, F(export), 0, 0, 0 },
	{ "url", K_STRING, F(url), 0, 0, 0 },
	{ "auth_token_file", K_STRING, F(auth_token_file), 0, 0, 0 },
	{ "basic_auth_file", K_STRING, F(basic_auth_file), 0, 0, 0 },
	{ "tenant_id", K_STRING, F(tenant_id), 0, 0, 0 },
	{ "tls_ca_file", K_STRING, F(tls_ca_file), 0, 0, 0 },
	{ "tls_verify", K_BOOL, F(tls_verify), 0, 0, 0 },
	{ "connect_timeout", K_DURATION, F(connect_timeout_ns), 1, UINT64_MAX, 0 },
	{ "timeout", K_DURATION, F(timeout_ns), 1, UINT64_MAX, 0 },
	{ "retry_backoff_min", K_DURATION, F(backoff_min_ns), 1, UINT64_MAX, 0 },
	{ "retry_backoff_max", K_DURATION, F(backoff_max_ns), 1, UINT64_MAX, 0 },
	{ "spool_dir", K_ABSPATH, F(spool_dir), 0, 0, 0 },
	{ "spool_max_size", K_SIZE, F(spool_max_size), 0, UINT64_MAX, 1 },
	{ "spool_max_age", K_DURATION, F(spool_max_age_ns), 1, UINT64_MAX, 1 },
	{ "cache_dir", K_STRING, F(cache_dir), 0, 0, 0 },
	{ "cache_max_size", K_SIZE, F(cache_max_size), 0, UINT64_MAX, 1 },
};

#undef F

struct name_value {
	const char *name;
	int value;
};

static const struct name_value events[] = {
	{ "cpu-clock", 0 }, { "cycles", 1 }, { NULL, 0 },
};
static const struct name_value logs[] = {
	{ "stderr", CONF_LOG_STDERR }, { "syslog", CONF_LOG_SYSLOG }, { NULL, 0 },
};
/* The first spelling of each level is the one listed in error messages. */
static const struct name_value levels[] = {
	{ "err", LOG_ERR }, { "warning", LOG_WARNING }, { "notice", LOG_NOTICE },
	{ "info", LOG_INFO }, { "debug", LOG_DEBUG },
	{ "error", LOG_ERR }, { "warn", LOG_WARNING }, { NULL, 0 },
};
static const struct name_value exports[] = {
	{ "none", CONF_EXPORT_NONE }, { "json", CONF_EXPORT_JSON },
	{ "pyroscope", CONF_EXPORT_PYROSCOPE }, { NULL, 0 },
};

static const struct key *find_key(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static const struct name_value *find_name(const struct name_value *t, const char *s)
{
	for (; t->name; t++)
		if (strcasecmp(t->name, s) == 0)
			return t;
	return NULL;
}

static void not_one_of(const struct name_value *t, size_t listed, const char *v,
		       char *msg, size_t msglen)
{
	char list[128];
	size_t i, off = 0;

	list[0] = '\0';
	for (i = 0; i < listed && t[i].name; i++) {
		int n = snprintf(list + off, sizeof(list) - off, "%s%s",
				 i ? (i + 1 == listed ? " or " : ", ") : "", t[i].name);

		if (n < 0 || (size_t)n >= sizeof(list) - off)
			break;
		off += (size_t)n;
	}
	set_err(msg, msglen, "'%." ECHO_MAX "s' is not one of %s", v, list);
}

static int set_duration(const struct key *k, const char *v, uint64_t *out,
			char *msg, size_t msglen)
{
	char lo[32], hi[32];
	uint64_t ns;
	int rc;

	rc = units__parse_duration(v, &ns);
	if (rc == -ERANGE) {
		set_err(msg, msglen, "'%." ECHO_MAX "s' is too large", v);
		return -EINVAL;
	}
	if (rc < 0) {
		set_err(msg, msglen, "'%." ECHO_MAX "s' is not a duration " UNITS_DURATION_HINT, v);
		return -EINVAL;
	}
	if (ns == 0 && k->zero_ok) {
		*out = 0;
		return 0;
	}
	if (ns < k->min || ns > k->max) {
		units__format_duration(k->min, lo, sizeof(lo));
		units__format_duration(k->max, hi, sizeof(hi));
		if (k->max != UINT64_MAX)
			set_err(msg, msglen, "'%." ECHO_MAX "s' is out of range (%s..%s)", v, lo, hi);
		else if (k->zero_ok)
			set_err(msg, msglen, "'%." ECHO_MAX "s' is out of range (0 or at least %s)", v, lo);
		else
			set_err(msg, msglen, "'%." ECHO_MAX "s' must be greater than 0", v);
		return -EINVAL;
	}
	*out = ns;
	return 0;
}

/* Replaces a string field only once the copy succeeded, so a failed set
 * leaves the old value in place. */
static int replace_string(char **field, const char *v, char *msg, size_t msglen)
{
	char *s = NULL;

	if (v) {
		s = strdup(v);
		if (!s) {
			set_err(msg, msglen, "out of memory");
			return -ENOMEM;
		}
	}
	free(*field);
	*field = s;
	return 0;
}

/* Sets one (already unquoted, control-character-free) value. Writes the
 * problem, without key or position, into msg. */
static int set_value(struct conf *c, const struct key *k, const char *v,
		     char *msg, size_t msglen)
{
	void *field = (char *)c + k->off;
	const struct name_value *nv;
	uint64_t u;
	int b, rc;

	switch (k->kind) {
	case K_UINT:
		rc = parse__u64n(v, strlen(v), 10, &u);
		if (rc == -EINVAL) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is not a number", v);
			return -EINVAL;
		}
		if (rc < 0 || u < k->min || u > k->max) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is out of range (%" PRIu64 "..%" PRIu64 ")",
				v, k->min, k->max);
			return -EINVAL;
		}
		*(unsigned *)field = (unsigned)u;
		return 0;
	case K_INT: {
		long l;

		rc = parse__int(v, (long)(int64_t)k->min, (long)(int64_t)k->max, &l);
		if (rc == -EINVAL) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is not a number in %" PRId64 "..%" PRId64,
				v, (int64_t)k->min, (int64_t)k->max);
			return -EINVAL;
		}
		if (rc < 0) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is out of range (%" PRId64 "..%" PRId64 ")",
				v, (int64_t)k->min, (int64_t)k->max);
			return -EINVAL;
		}
		*(int *)field = (int)l;
		return 0;
	}
	case K_STACK:
		rc = units__parse_size(v, &u);
		if (rc == -EINVAL) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is not a size " UNITS_SIZE_HINT, v);
			return -EINVAL;
		}
		if (rc < 0 || u < k->min || u > k->max) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is out of range (%" PRIu64 "..%" PRIu64 ")",
				v, k->min, k->max);
			return -EINVAL;
		}
		/* perf_event_open rejects sample_stack_user values that are not u64-aligned. */
		if (u % 8 != 0) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is not a multiple of 8", v);
			return -EINVAL;
		}
		*(uint32_t *)field = (uint32_t)u;
		return 0;
	case K_PERCENT:
		if (parse_percent(v, &u) < 0 || u > k->max) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is not a percentage from 0%% to 100%% "
				"(e.g. 1%% or 0.5%%)", v);
			return -EINVAL;
		}
		if (u < k->min) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' must be greater than 0", v);
			return -EINVAL;
		}
		*(unsigned *)field = (unsigned)u;
		return 0;
	case K_BOOL:
		if (units__parse_bool(v, &b) < 0) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is not a boolean (use yes or no)", v);
			return -EINVAL;
		}
		*(int *)field = b;
		return 0;
	case K_DURATION:
		return set_duration(k, v, (uint64_t *)field, msg, msglen);
	case K_SIZE:
		rc = units__parse_size(v, &u);
		if (rc == -ERANGE) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is too large", v);
			return -EINVAL;
		}
		if (rc < 0) {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is not a size " UNITS_SIZE_HINT, v);
			return -EINVAL;
		}
		if ((u < k->min || u > k->max) && !(u == 0 && k->zero_ok)) {
			if (k->max == UINT64_MAX)
				set_err(msg, msglen, "'%." ECHO_MAX "s' is below the minimum of %" PRIu64
					" bytes", v, k->min);
			else
				set_err(msg, msglen, "'%." ECHO_MAX "s' is out of range (%" PRIu64 "..%" PRIu64
					" bytes)", v, k->min, k->max);
			return -EINVAL;
		}
		*(uint64_t *)field = u;
		return 0;
	case K_STRING:
		return replace_string((char **)field, *v ? v : NULL, msg, msglen);
	case K_ABSPATH:
		if (v[0] != '/') {
			set_err(msg, msglen, "'%." ECHO_MAX "s' is not an absolute path", v);
			return -EINVAL;
		}
		return replace_string((char **)field, v, msg, msglen);
	case K_EVENT:
		nv = find_name(events, v);
		if (!nv) {
			not_one_of(events, 2, v, msg, msglen);
			return -EINVAL;
		}
		/* Store the canonical spelling: the sampler compares it. */
		return replace_string((char **)field, nv->name, msg, msglen);
	case K_LOG:
		nv = find_name(logs, v);
		if (!nv) {
			not_one_of(logs, 2, v, msg, msglen);
			return -EINVAL;
		}
		*(enum conf_log *)field = (enum conf_log)nv->value;
		return 0;
	case K_LOGLEVEL:
		nv = find_name(levels, v);
		if (!nv) {
			not_one_of(levels, 5, v, msg, msglen);
			return -EINVAL;
		}
		*(int *)field = nv->value;
		return 0;
	case K_EXPORT:
		nv = find_name(exports, v);
		if (!nv) {
			not_one_of(exports, 3, v, msg, msglen);
			return -EINVAL;
		}
		*(enum conf_export *)field = (enum conf_export)nv->value;
		return 0;
	}
	set_err(msg, msglen, "internal error");
	return -EINVAL;
}

static int valid_label_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++) {
		char ch = *s;

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.'))
			return 0;
	}
	return 1;
}

/* label.NAME = value; a repeated NAME overrides, an empty value removes it
 * (so a command line override can drop a label the file sets). */
static int set_label(struct conf *c, const char *name, const char *v, char *msg, size_t msglen)
{
	size_t i;

	if (!valid_label_name(name)) {
		set_err(msg, msglen, "invalid label name (use letters, digits, '_' and '.')");
		return -EINVAL;
	}
	for (i = 0; i < c->nlabels; i++)
		if (strcmp(c->labels[i].name, name) == 0)
			break;
	if (!*v) {
		if (i < c->nlabels) {
			free(c->labels[i].name);
			free(c->labels[i].value);
			memmove(&c->labels[i], &c->labels[i + 1],
				(c->nlabels - i - 1) * sizeof(c->labels[0]));
			c->nlabels--;
			c->labels[c->nlabels].name = NULL;
			c->labels[c->nlabels].value = NULL;
		}
		return 0;
	}
	if (i < c->nlabels)
		return replace_string(&c->labels[i].value, v, msg, msglen);
	if (c->nlabels >= CONF_MAX_LABELS) {
		set_err(msg, msglen, "too many labels (max %d)", CONF_MAX_LABELS);
		return -EINVAL;
	}
	{
		char *n = strdup(name), *val = strdup(v);

		if (!n || !val) {
			free(n);
			free(val);
			set_err(msg, msglen, "out of memory");
			return -ENOMEM;
		}
		c->labels[c->nlabels].name = n;
		c->labels[c->nlabels].value = val;
		c->nlabels++;
	}
	return 0;
}

/* Keys are echoed into error messages, so anything but printable ASCII is
 * refused before a key is looked up. */
static int printable_key(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/* Shared by the file and the command line: key is canonical ('_'), v unquoted. */
static int set_key(struct conf *c, const char *key, const char *v, char *msg, size_t msglen)
{
	const struct key *k;

	if (has_ctl(v, strlen(v))) {
		set_err(msg, msglen, "value contains a control character");
		return -EINVAL;
	}
	if (strncmp(key, "label.", 6) == 0)
		return set_label(c, key + 6, v, msg, msglen);
	k = find_key(key);
	if (!k) {
		set_err(msg, msglen, "unknown key");
		return -EINVAL;
	}
	return set_value(c, k, v, msg, msglen);
}

/* ---- lifetime ---- */

int conf__init(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->frequency = 99;
	c->stack_size = 16384;
	c->max_frames = 128;
	c->nice = CONF_DEFAULT_NICE;
	c->names_max_size = UINT64_C(8) << 20;
	c->load_max_size = LOADBUDGET_DEFAULT_BYTES;
	c->load_cpu_budget_bp = LOADBUDGET_DEFAULT_LOAD_PPM / 100;
	c->per_pid = 0;
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
	wipe(buf, max + 2);
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
		return errstr(-rc, buf, len);
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
		set_err(msg, msglen, "unterminated quoted value");
		return -EINVAL;
	}
	end[-1] = '\0';
	for (r = v + 1, w = v; *r; r++) {
		if (*r == '\\') {
			if (r[1] != '"' && r[1] != '\\') {
				set_err(msg, msglen, "invalid escape in quoted value (only \\\" and \\\\)");
				return -EINVAL;
			}
			r++;
		} else if (*r == '"') {
			set_err(msg, msglen, "unescaped '\"' inside quoted value");
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
		set_err(err, errlen, "%s:%u: expected 'key = value'", path, lineno);
		return -EINVAL;
	}
	kend = eq;
	*eq = '\0';
	key = trim(key, &kend);
	v = eq + 1;
	v = trim(v, &end);
	if (!*key) {
		set_err(err, errlen, "%s:%u: expected 'key = value'", path, lineno);
		return -EINVAL;
	}
	if (!printable_key(key)) {
		set_err(err, errlen, "%s:%u: invalid character in key", path, lineno);
		return -EINVAL;
	}
	/* Control characters are checked before unquoting, so a quoted value
	 * cannot smuggle one in, and before echoing the value in a message. */
	if (has_ctl(v, (size_t)(end - v))) {
		set_err(err, errlen, "%s:%u: %." ECHO_MAX "s: value contains a control character",
			path, lineno, key);
		return -EINVAL;
	}
	rc = unquote(v, end, msg, sizeof(msg));
	if (rc == 0)
		rc = set_key(c, key, v, msg, sizeof(msg));
	if (rc < 0) {
		set_err(err, errlen, "%s:%u: %." ECHO_MAX "s: %s%s", path, lineno, key, msg,
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
			set_err(err, errlen, "%s:%u: line too long (max %d bytes)", path, lineno, MAX_LINE);
			return -EINVAL;
		}
		/* A NUL would silently cut the line short: treat it as the control
		 * character it is (parse_line then sees it in key or value). */
		if (memchr(p, '\0', (size_t)(end - p))) {
			set_err(err, errlen, "%s:%u: line contains a NUL byte", path, lineno);
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
			set_err(err, errlen, "%s: file too large (max 1 MiB)", path);
		else
			set_err(err, errlen, "%s: %s", path, file_problem(rc, eb, sizeof(eb)));
		return rc;
	}
	/* Parse into a copy so that c is untouched when the file is bad. */
	rc = conf__copy(&t, c);
	if (rc < 0) {
		set_err(err, errlen, "%s: out of memory", path);
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
		set_err(err, errlen, "--: missing key or value");
		return -EINVAL;
	}
	n = strlen(key);
	if (n == 0 || !printable_key(key)) {
		set_err(err, errlen, "invalid option name");
		return -EINVAL;
	}
	if (n >= sizeof(name)) {
		set_err(err, errlen, "--%." ECHO_MAX "s: unknown key", key);
		return -EINVAL;
	}
	memcpy(name, key, n + 1);
	/* Flags are spelled with dashes (--spool-dir); label names keep theirs
	 * so an invalid label name is reported rather than silently renamed. */
	if (strncmp(name, "label.", 6) != 0)
		for (i = 0; i < n; i++)
			if (name[i] == '-')
				name[i] = '_';
	rc = set_key(c, name, value, msg, sizeof(msg));
	if (rc < 0)
		set_err(err, errlen, "--%." ECHO_MAX "s: %s", key, msg);
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
			set_err(err, errlen, "%s: file too large (max %d bytes)", path, MAX_SECRET);
		else
			set_err(err, errlen, "%s: %s", path, file_problem(rc, eb, sizeof(eb)));
		return rc;
	}
	nl = memchr(buf, '\n', len);
	if (nl)
		len = (size_t)(nl - buf);
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	if (len == 0) {
		set_err(err, errlen, "%s: first line is empty", path);
		rc = -EINVAL;
		goto out_wipe;
	}
	/* The secret ends up in an HTTP header: CR, LF or NUL would inject or cut it. */
	if (has_ctl(buf, len)) {
		set_err(err, errlen, "%s: first line contains a control character", path);
		rc = -EINVAL;
		goto out_wipe;
	}
	s = malloc(len + 1);
	if (!s) {
		set_err(err, errlen, "%s: out of memory", path);
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
	wipe(buf, MAX_SECRET + 2);
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
		set_err(err, errlen, "%s: %s", key, msg);
		return -EINVAL;
	}
	rc = 0;
	if (need_colon && !strchr(s, ':')) {
		set_err(err, errlen, "%s: %s: first line must be 'user:password'", key, path);
		rc = -EINVAL;
	}
	wipe(s, strlen(s));
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
			set_err(err, errlen, "url: required when export = %s", name);
			return -EINVAL;
		}
		if (strncasecmp(c->url, "http://", 7) == 0)
			rest = c->url + 7;
		else if (strncasecmp(c->url, "https://", 8) == 0)
			rest = c->url + 8;
		else {
			set_err(err, errlen, "url: must start with http:// or https://");
			return -EINVAL;
		}
		if (!*rest || *rest == '/') {
			set_err(err, errlen, "url: has no host");
			return -EINVAL;
		}
	}
	if (c->auth_token_file && c->basic_auth_file) {
		set_err(err, errlen, "auth_token_file: cannot be combined with basic_auth_file");
		return -EINVAL;
	}
	if (c->auth_token_file && check_secret("auth_token_file", c->auth_token_file, 0, err, errlen) < 0)
		return -EINVAL;
	if (c->basic_auth_file && check_secret("basic_auth_file", c->basic_auth_file, 1, err, errlen) < 0)
		return -EINVAL;
	if (c->tls_ca_file) {
		fd = open(c->tls_ca_file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			set_err(err, errlen, "tls_ca_file: %s: %s", c->tls_ca_file,
				errstr(errno, eb, sizeof(eb)));
			return -EINVAL;
		}
		close(fd);
	}
	if (!c->spool_dir || c->spool_dir[0] != '/') {
		set_err(err, errlen, "spool_dir: must be an absolute path");
		return -EINVAL;
	}
	if (c->cache_dir && c->cache_dir[0] != '/') {
		set_err(err, errlen, "cache_dir: must be an absolute path (or empty: no cache)");
		return -EINVAL;
	}
	if (c->backoff_min_ns > c->backoff_max_ns) {
		units__format_duration(c->backoff_min_ns, a, sizeof(a));
		units__format_duration(c->backoff_max_ns, b, sizeof(b));
		set_err(err, errlen, "retry_backoff_min: %s is greater than retry_backoff_max (%s)", a, b);
		return -EINVAL;
	}
	/* Pyroscope's name{k=v,...} syntax has no escaping. */
	if (c->export == CONF_EXPORT_PYROSCOPE) {
		for (i = 0; i < c->nlabels; i++) {
			if (strpbrk(c->labels[i].value, ",}=")) {
				set_err(err, errlen, "label.%s: value must not contain ',', '}' or '=' with export = pyroscope",
					c->labels[i].name);
				return -EINVAL;
			}
		}
	}
	return 0;
}
