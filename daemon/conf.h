/* The configuration: /etc/smolder/smolder.conf ("key = value" lines, '#'
 * comments, label.NAME = value, values in the grammar of common/units.h such
 * as 10s or 512MiB), then command
 * line overrides. Errors name the file, the line and the key. */
#ifndef SMOLDER_DAEMON_CONF_H
#define SMOLDER_DAEMON_CONF_H
#include <stddef.h>
#include <stdint.h>

#include "symbolize/demangle.h"

#define CONF_DEFAULT_PATH "/etc/smolder/smolder.conf"
#define CONF_MAX_LABELS 64
#define CONF_DEFAULT_NICE -10

enum conf_export { CONF_EXPORT_NONE = 0, CONF_EXPORT_JSON, CONF_EXPORT_PYROSCOPE };
enum conf_log { CONF_LOG_STDERR = 0, CONF_LOG_SYSLOG };

struct conf_label {
	char *name, *value;
};

/* All strings are owned by the config (malloc'd). */
struct conf {
	/* sampling */
	unsigned frequency;        /* frequency = 99 (Hz per CPU) */
	uint32_t stack_size;       /* stack_size = 32768 (bytes, multiple of 8, <= 65528) */
	unsigned max_frames;       /* max_frames = 512 */
	char *event;               /* events = cpu-clock | cycles | off-cpu, or a CPU
	                            * event and off-cpu ("cpu-clock,off-cpu"; the
	                            * key event is the same) */
	int per_pid;               /* per_pid = no */
	int group_by_thread;       /* group_by = process | thread: one profile
	                            * per thread name too (a "thread" label) */
	int symbolize_on_upload;   /* smolder upload names stripped functions
	                            * from /usr/lib/debug before sending */
	int python_lines;          /* lines = no (python_lines, its first
	                            * name): frames carry their file and
	                            * line, native and interpreted */
	int python_eval_frames;    /* python_eval_frames = no: keep CPython's
	                            * native eval-loop frames beside the Python
	                            * frames they ran */
	unsigned cpu_budget_bp;    /* cpu_budget = 1% of one CPU (hundredths of a
	                            * percent; 0 = no budget): above it, run lowers
	                            * the frequency, and restores it below */
	int nice;                  /* nice = -10 (-20..19): the sampling thread's
	                            * scheduling priority, see privileges.h */
	enum name_detail names;    /* names = short | full: how much of demangled
	                            * names frames show, symbolize/demangle.h */
	uint64_t names_max_size;   /* names_max_size = 8MiB (64KiB..): interned
	                            * names are compacted past it, see
	                            * sampler__compact_names */
	uint64_t load_max_size;    /* load_max_size = 256MiB (1MiB..): what users'
	                            * files (debug data, JIT maps) may make the
	                            * agent hold, symbolize/loadbudget.h */
	unsigned load_cpu_budget_bp; /* load_cpu_budget = 2% (0.01%..100%): CPU
	                            * loading them may take */
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
	/* cache of regenerable data (kernel symbols, decompressed debug
	 * sections) kept across restarts */
	char *cache_dir;           /* cache_dir = /var/cache/smolder (empty = none) */
	uint64_t cache_max_size;   /* cache_max_size = 256MiB (0 = unbounded) */
	/* labels added to every dump: label.NAME = value */
	struct conf_label labels[CONF_MAX_LABELS];
	size_t nlabels;
};

/* Fills defaults. Returns 0 or -ENOMEM. */
int conf__init(struct conf *c);
void conf__free(struct conf *c);

/* Parses `path` into c (on top of what c holds; c must be initialized).
 * File syntax: "key = value" lines; '#' starts a comment only at the start of
 * a line (values may contain '#'); optional double quotes around a value (only
 * \" and \\ escapes); a repeated key: the later wins; label.NAME = "" removes
 * the label. Bounds: file <= 1 MiB, line <= 4096 bytes, no control characters.
 * On error returns -EINVAL (or -errno when the file cannot be read, -EFBIG)
 * and writes a one-line message "PATH:LINE: KEY: problem" into err (err may
 * be NULL); c is then untouched. Unknown keys are errors. Not thread-safe
 * with respect to c; otherwise reentrant. */
int conf__load(struct conf *c, const char *path, char *err, size_t errlen);

/* Sets one key from the command line (same checks as the file, e.g. key
 * "interval", value "5s"; "label.env"). '-' in a key means '_' (--spool-dir);
 * the value is taken as is (no quote removal). Returns 0, -EINVAL or -ENOMEM;
 * on error the key keeps its value and err holds "--KEY: problem". */
int conf__set(struct conf *c, const char *key, const char *value, char *err, size_t errlen);

/* Checks cross-key consistency (url present and http(s) when exporting,
 * readable secret files...). Returns 0 or -EINVAL with err. */
int conf__validate(const struct conf *c, char *err, size_t errlen);

/* Deep copy: dst is overwritten, not freed (pass an uninitialized or freed
 * struct). Returns 0 or -ENOMEM; dst is untouched on failure. */
int conf__copy(struct conf *dst, const struct conf *src);

/* Reads the first line of a secret file (file <= 4 KiB, trailing LF/CR
 * stripped; opened O_CLOEXEC|O_NOFOLLOW, must be a regular file; an empty
 * first line or one with control characters is an error). On success *out is
 * a malloc'd string owned by the caller (wipe it before free). Returns 0 or
 * negative errno (-ELOOP for a symlink, -EFBIG) with "PATH: problem" in err;
 * the secret never appears in err. Logs nothing. */
int conf__read_secret(const char *path, char **out, char *err, size_t errlen);
/* The same; when exposed is not NULL, *exposed is set (on success) when the
 * file is readable by group or others, checked on the fd that was read, so
 * the caller can warn. */
int conf__read_secret_ex(const char *path, char **out, int *exposed, char *err, size_t errlen);

#endif
