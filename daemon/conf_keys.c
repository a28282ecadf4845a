/* The configuration keys: their table (name, kind, range), and parsing and
 * checking one value into struct conf. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "common/clock.h"
#include "common/parse.h"
#include "common/units.h"
#include "daemon/conf.h"
#include "daemon/conf_keys.h"
#include "daemon/conf_msg.h"
#include "profile/event_list.h"

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
	K_EVENT,    /* char *, the events recorded (profile/event_list.h), canonical */
	K_LOG,
	K_LOGLEVEL,
	K_EXPORT,
	K_NAMES,    /* enum name_detail: short | full */
	K_PERCENT,  /* unsigned hundredths of a percent, "1%", "0.5%", [min, max] */
	K_GROUP_BY, /* int: 0 process, 1 thread */
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
	{ "events", K_EVENT, F(event), 0, 0, 0 }, /* the same: one or two events */
	{ "per_pid", K_BOOL, F(per_pid), 0, 0, 0 },
	{ "group_by", K_GROUP_BY, F(group_by_thread), 0, 0, 0 },
	{ "python_eval_frames", K_BOOL, F(python_eval_frames), 0, 0, 0 },
	{ "lines", K_BOOL, F(python_lines), 0, 0, 0 },
	{ "symbolize_on_upload", K_BOOL, F(symbolize_on_upload), 0, 0, 0 },
	{ "python_lines", K_BOOL, F(python_lines), 0, 0, 0 }, /* lines' first name */
	{ "cpu_budget", K_PERCENT, F(cpu_budget_bp), 0, 10000, 0 },
	{ "nice", K_INT, F(nice), (uint64_t)-20, 19, 0 },
	{ "names", K_NAMES, F(names), 0, 0, 0 },
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

static const struct name_value details[] = {
	{ "short", NAME_DETAIL_SHORT }, { "full", NAME_DETAIL_FULL }, { NULL, 0 },
};
static const struct name_value groupings[] = {
	{ "process", 0 }, { "thread", 1 }, { NULL, 0 },
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
	conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is not one of %s", v, list);
}

static int set_duration(const struct key *k, const char *v, uint64_t *out,
			char *msg, size_t msglen)
{
	char lo[32], hi[32];
	uint64_t ns;
	int rc;

	rc = units__parse_duration(v, &ns);
	if (rc == -ERANGE) {
		conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is too large", v);
		return -EINVAL;
	}
	if (rc < 0) {
		conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is not a duration " UNITS_DURATION_HINT, v);
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
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is out of range (%s..%s)", v, lo, hi);
		else if (k->zero_ok)
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is out of range (0 or at least %s)", v, lo);
		else
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' must be greater than 0", v);
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
			conf_msg__set(msg, msglen, "out of memory");
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
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is not a number", v);
			return -EINVAL;
		}
		if (rc < 0 || u < k->min || u > k->max) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is out of range (%" PRIu64 "..%" PRIu64 ")",
				v, k->min, k->max);
			return -EINVAL;
		}
		*(unsigned *)field = (unsigned)u;
		return 0;
	case K_INT: {
		long l;

		rc = parse__int(v, (long)(int64_t)k->min, (long)(int64_t)k->max, &l);
		if (rc == -EINVAL) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is not a number in %" PRId64 "..%" PRId64,
				v, (int64_t)k->min, (int64_t)k->max);
			return -EINVAL;
		}
		if (rc < 0) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is out of range (%" PRId64 "..%" PRId64 ")",
				v, (int64_t)k->min, (int64_t)k->max);
			return -EINVAL;
		}
		*(int *)field = (int)l;
		return 0;
	}
	case K_STACK:
		rc = units__parse_size(v, &u);
		if (rc == -EINVAL) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is not a size " UNITS_SIZE_HINT, v);
			return -EINVAL;
		}
		if (rc < 0 || u < k->min || u > k->max) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is out of range (%" PRIu64 "..%" PRIu64 ")",
				v, k->min, k->max);
			return -EINVAL;
		}
		/* perf_event_open rejects sample_stack_user values that are not u64-aligned. */
		if (u % 8 != 0) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is not a multiple of 8", v);
			return -EINVAL;
		}
		*(uint32_t *)field = (uint32_t)u;
		return 0;
	case K_PERCENT:
		if (parse_percent(v, &u) < 0 || u > k->max) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is not a percentage from 0%% to 100%% "
				"(e.g. 1%% or 0.5%%)", v);
			return -EINVAL;
		}
		if (u < k->min) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' must be greater than 0", v);
			return -EINVAL;
		}
		*(unsigned *)field = (unsigned)u;
		return 0;
	case K_BOOL:
		if (units__parse_bool(v, &b) < 0) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is not a boolean (use yes or no)", v);
			return -EINVAL;
		}
		*(int *)field = b;
		return 0;
	case K_DURATION:
		return set_duration(k, v, (uint64_t *)field, msg, msglen);
	case K_SIZE:
		rc = units__parse_size(v, &u);
		if (rc == -ERANGE) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is too large", v);
			return -EINVAL;
		}
		if (rc < 0) {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is not a size " UNITS_SIZE_HINT, v);
			return -EINVAL;
		}
		if ((u < k->min || u > k->max) && !(u == 0 && k->zero_ok)) {
			if (k->max == UINT64_MAX)
				conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is below the minimum of %" PRIu64
					" bytes", v, k->min);
			else
				conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is out of range (%" PRIu64 "..%" PRIu64
					" bytes)", v, k->min, k->max);
			return -EINVAL;
		}
		*(uint64_t *)field = u;
		return 0;
	case K_STRING:
		return replace_string((char **)field, *v ? v : NULL, msg, msglen);
	case K_ABSPATH:
		if (v[0] != '/') {
			conf_msg__set(msg, msglen, "'%." CONF_ECHO_MAX "s' is not an absolute path", v);
			return -EINVAL;
		}
		return replace_string((char **)field, v, msg, msglen);
	case K_EVENT: {
		struct event_list l;
		char why[160], canon[64];

		if (event_list__parse(v, &l, why, sizeof(why)) < 0) {
			conf_msg__set(msg, msglen, "%s", why);
			return -EINVAL;
		}
		/* Store the canonical spelling: the sampler compares it. */
		event_list__format(&l, canon, sizeof(canon));
		return replace_string((char **)field, canon, msg, msglen);
	}
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
	case K_NAMES:
		nv = find_name(details, v);
		if (!nv) {
			not_one_of(details, 2, v, msg, msglen);
			return -EINVAL;
		}
		*(enum name_detail *)field = (enum name_detail)nv->value;
		return 0;
	case K_GROUP_BY:
		nv = find_name(groupings, v);
		if (!nv) {
			not_one_of(groupings, 2, v, msg, msglen);
			return -EINVAL;
		}
		*(int *)field = nv->value;
		return 0;
	}
	conf_msg__set(msg, msglen, "internal error");
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
		conf_msg__set(msg, msglen, "invalid label name (use letters, digits, '_' and '.')");
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
		conf_msg__set(msg, msglen, "too many labels (max %d)", CONF_MAX_LABELS);
		return -EINVAL;
	}
	{
		char *n = strdup(name), *val = strdup(v);

		if (!n || !val) {
			free(n);
			free(val);
			conf_msg__set(msg, msglen, "out of memory");
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
int conf_keys__printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/* Shared by the file and the command line: key is canonical ('_'), v unquoted. */
int conf_keys__set(struct conf *c, const char *key, const char *v, char *msg, size_t msglen)
{
	const struct key *k;

	if (conf_msg__has_ctl(v, strlen(v))) {
		conf_msg__set(msg, msglen, "value contains a control character");
		return -EINVAL;
	}
	if (strncmp(key, "label.", 6) == 0)
		return set_label(c, key + 6, v, msg, msglen);
	k = find_key(key);
	if (!k) {
		conf_msg__set(msg, msglen, "unknown key");
		return -EINVAL;
	}
	return set_value(c, k, v, msg, msglen);
}
