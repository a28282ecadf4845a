/* The configuration: /etc/smolder/smolder.conf ("key = value" lines, '#'
 * comments, units such as 10s or 512MiB, label.NAME = value), then command
 * line overrides. Errors name the file, the line and the key. */
#ifndef SMOLDER_COLLECTOR_CONF_H
#define SMOLDER_COLLECTOR_CONF_H
#include <stddef.h>
#include <stdint.h>

#define CONF_DEFAULT_PATH "/etc/smolder/smolder.conf"
#define CONF_MAX_LABELS 64

enum conf_export { CONF_EXPORT_NONE = 0, CONF_EXPORT_JSON, CONF_EXPORT_PYROSCOPE };
enum conf_log { CONF_LOG_STDERR = 0, CONF_LOG_SYSLOG };

struct conf_label {
	char *name, *value;
};

/* All strings are owned by the config (malloc'd). */
struct conf {
	/* sampling */
	unsigned frequency;        /* frequency = 99 (Hz per CPU) */
	uint32_t stack_size;       /* stack_size = 16384 (bytes, multiple of 8, <= 65528) */
	unsigned max_frames;       /* max_frames = 128 */
	char *event;               /* event = cpu-clock | cycles */
	int per_pid;               /* per_pid = no */
	/* windows and logging */
	uint64_t interval_ns;      /* interval = 10s (1s .. 1h) */
	uint64_t stats_interval_ns;/* stats_interval = 60s (a stats line this often; 0 = never) */
	enum conf_log log;       /* log = stderr | syslog */
	int log_level;             /* log_level = err|warning|notice|info|debug (syslog numbers) */
	/* export */
	enum conf_export export; /* export = none | json | pyroscope (default none) */
	char *url;                 /* url = http(s)://... (required unless export = none) */
	char *auth_token_file;     /* bearer token file (first line) */
	char *basic_auth_file;     /* "user:password" file (first line) */
	char *tenant_id;           /* tenant_id = X-Scope-OrgID value */
	char *tls_ca_file;
	int tls_verify;            /* tls_verify = yes */
	uint64_t connect_timeout_ns; /* connect_timeout = 5s */
	uint64_t timeout_ns;       /* timeout = 30s */
	uint64_t backoff_min_ns;   /* retry_backoff_min = 1s */
	uint64_t backoff_max_ns;   /* retry_backoff_max = 5m */
	/* spool */
	char *spool_dir;           /* spool_dir = /var/lib/smolder/spool */
	uint64_t spool_max_size;   /* spool_max_size = 512MiB (bytes; 0 = unbounded) */
	uint64_t spool_max_age_ns; /* spool_max_age = 7d (0 = unbounded) */
	/* labels added to every dump: label.NAME = value */
	struct conf_label labels[CONF_MAX_LABELS];
	size_t nlabels;
};

/* Fills defaults. Returns 0 or -ENOMEM. */
int conf__init(struct conf *c);
void conf__free(struct conf *c);

/* Parses `path` into c (on top of what c holds). On error returns -EINVAL
 * (or -errno when the file cannot be read) and writes a one-line message
 * "PATH:LINE: KEY: problem" into err; c is then unspecified (parse into a
 * scratch config and swap on success). Unknown keys are errors. */
int conf__load(struct conf *c, const char *path, char *err, size_t errlen);

/* Sets one key from the command line (same syntax and checks as the file,
 * e.g. key "interval", value "5s"; "label.env"). Error text "--KEY: problem". */
int conf__set(struct conf *c, const char *key, const char *value, char *err, size_t errlen);

/* Checks cross-key consistency (url present and http(s) when exporting,
 * readable secret files...). Returns 0 or -EINVAL with err. */
int conf__validate(const struct conf *c, char *err, size_t errlen);

/* Unit parsers, shared with the CLI: "10s", "250ms", "5m", "2h", "7d", a bare
 * number is seconds; "512MiB", "64KiB", "1GiB", "100MB", "4096" (bytes). */
int conf__parse_duration(const char *s, uint64_t *ns);
int conf__parse_size(const char *s, uint64_t *bytes);
int conf__parse_bool(const char *s, int *v);

#endif
