/* Unit tests: collector/conf (config file syntax, keys, units, errors, secrets). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon/conf.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

#define S (UINT64_C(1000000000))

/* Each test gets its own directory: Criterion may run tests in parallel. */
static char dir[64];
static char paths[16][128];
static int npaths;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/smolder-test-conf-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	npaths = 0;
}

static void teardown(void)
{
	int i;

	for (i = 0; i < npaths; i++)
		unlink(paths[i]);
	rmdir(dir);
}

TestSuite(conf, .init = setup, .fini = teardown);

static const char *tmp_path(const char *name)
{
	cr_assert_lt(npaths, 16);
	snprintf(paths[npaths], sizeof(paths[0]), "%s/%s", dir, name);
	return paths[npaths++];
}

static const char *write_file_n(const char *name, const char *data, size_t len, mode_t mode)
{
	const char *p = tmp_path(name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	cr_assert_eq(fchmod(fd, mode), 0);
	close(fd);
	return p;
}

static const char *write_file(const char *name, const char *data)
{
	return write_file_n(name, data, strlen(data), 0600);
}

/* Loads text into a fresh default config; returns conf__load's result. */
static int load_text(struct conf *c, const char *text, char *err, size_t errlen)
{
	const char *p = write_file("smolder.conf", text);

	cr_assert_eq(conf__init(c), 0);
	return conf__load(c, p, err, errlen);
}

/* Expects text to fail with exactly "PATH:" + expected. */
static void expect_load_error(const char *text, const char *expected)
{
	struct conf c;
	char err[512], want[512];
	int rc;

	rc = load_text(&c, text, err, sizeof(err));
	cr_assert_eq(rc, -EINVAL, "accepted: %s", text);
	snprintf(want, sizeof(want), "%s/smolder.conf:%s", dir, expected);
	cr_assert_str_eq(err, want);
	conf__free(&c);
	unlink(paths[--npaths]);
}

static int streq_null(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static void assert_conf_eq(const struct conf *a, const struct conf *b)
{
	size_t i;

	cr_assert_eq(a->frequency, b->frequency);
	cr_assert_eq(a->stack_size, b->stack_size);
	cr_assert_eq(a->max_frames, b->max_frames);
	cr_assert(streq_null(a->event, b->event));
	cr_assert_eq(a->per_pid, b->per_pid);
	cr_assert_eq(a->group_by_thread, b->group_by_thread);
	cr_assert_eq(a->interval_ns, b->interval_ns);
	cr_assert_eq(a->stats_interval_ns, b->stats_interval_ns);
	cr_assert_eq(a->log, b->log);
	cr_assert_eq(a->log_level, b->log_level);
	cr_assert_eq(a->export, b->export);
	cr_assert(streq_null(a->url, b->url));
	cr_assert(streq_null(a->auth_token_file, b->auth_token_file));
	cr_assert(streq_null(a->basic_auth_file, b->basic_auth_file));
	cr_assert(streq_null(a->tenant_id, b->tenant_id));
	cr_assert(streq_null(a->tls_ca_file, b->tls_ca_file));
	cr_assert_eq(a->tls_verify, b->tls_verify);
	cr_assert_eq(a->connect_timeout_ns, b->connect_timeout_ns);
	cr_assert_eq(a->timeout_ns, b->timeout_ns);
	cr_assert_eq(a->backoff_min_ns, b->backoff_min_ns);
	cr_assert_eq(a->backoff_max_ns, b->backoff_max_ns);
	cr_assert(streq_null(a->spool_dir, b->spool_dir));
	cr_assert_eq(a->spool_max_size, b->spool_max_size);
	cr_assert_eq(a->spool_max_age_ns, b->spool_max_age_ns);
	cr_assert_eq(a->names_max_size, b->names_max_size);
	cr_assert_eq(a->load_max_size, b->load_max_size);
	cr_assert_eq(a->load_cpu_budget_bp, b->load_cpu_budget_bp);
	cr_assert_eq(a->nlabels, b->nlabels);
	for (i = 0; i < a->nlabels; i++) {
		cr_assert_str_eq(a->labels[i].name, b->labels[i].name);
		cr_assert_str_eq(a->labels[i].value, b->labels[i].value);
	}
}

Test(conf, defaults)
{
	struct conf c;

	cr_assert_eq(conf__init(&c), 0);
	cr_assert_eq(c.frequency, 99);
	cr_assert_eq(c.stack_size, 32768);
	cr_assert_eq(c.max_frames, 512);
	cr_assert_str_eq(c.event, "cpu-clock");
	cr_assert_eq(c.per_pid, 0);
	cr_assert_eq(c.group_by_thread, 0);
	cr_assert_eq(c.interval_ns, 10 * S);
	cr_assert_eq(c.stats_interval_ns, 60 * S);
	cr_assert_eq(c.log, CONF_LOG_STDERR);
	cr_assert_eq(c.log_level, LOG_NOTICE);
	cr_assert_eq(c.export, CONF_EXPORT_NONE);
	cr_assert_null(c.url);
	cr_assert_null(c.auth_token_file);
	cr_assert_null(c.basic_auth_file);
	cr_assert_null(c.tenant_id);
	cr_assert_null(c.tls_ca_file);
	cr_assert_eq(c.tls_verify, 1);
	cr_assert_eq(c.connect_timeout_ns, 5 * S);
	cr_assert_eq(c.timeout_ns, 30 * S);
	cr_assert_eq(c.backoff_min_ns, 1 * S);
	cr_assert_eq(c.backoff_max_ns, 300 * S);
	cr_assert_str_eq(c.spool_dir, "/var/lib/smolder/spool");
	cr_assert_eq(c.spool_max_size, UINT64_C(512) * 1024 * 1024);
	cr_assert_eq(c.spool_max_age_ns, 7 * 86400 * S);
	cr_assert_eq(c.names_max_size, UINT64_C(8) << 20);
	cr_assert_eq(c.load_max_size, UINT64_C(256) << 20);
	cr_assert_eq(c.load_cpu_budget_bp, 200);
	cr_assert_eq(c.nlabels, 0);
	cr_assert_eq(conf__validate(&c, NULL, 0), 0);
	conf__free(&c);
	conf__free(&c); /* freeing twice is harmless */
	conf__free(NULL);
}

Test(conf, every_key)
{
	struct conf c;
	char err[512] = "";
	const char *text =
		"# full config\n"
		"   # indented comment\n"
		"\n"
		"frequency = 997\n"
		"stack_size = 8KiB\n"
		"max_frames=64\n"
		"event = cycles\n"
		"per_pid = on\n"
		"group_by = thread\n"
		"interval = 30s\n"
		"stats_interval = 0\n"
		"log = syslog\n"
		"log_level = debug\n"
		"export = pyroscope\n"
		"url = https://pyro.example:4040/\n"
		"auth_token_file = /etc/smolder/token\n"
		"basic_auth_file = /etc/smolder/basic\n"
		"tenant_id = team-a\n"
		"tls_ca_file = /etc/ssl/ca.pem\n"
		"tls_verify = false\n"
		"connect_timeout = 1500ms\n"
		"timeout = 2m\n"
		"retry_backoff_min = 2s\n"
		"retry_backoff_max = 1h\n"
		"spool_dir = /srv/spool\n"
		"spool_max_size = 1GB\n"
		"spool_max_age = 2d\n"
		"load_max_size = 64MiB\n"
		"load_cpu_budget = 0.5%\n"
		"\tlabel.env\t=\tprod  \n"
		"label.k8s.pod_name = web-1\n";

	cr_assert_eq(load_text(&c, text, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.frequency, 997);
	cr_assert_eq(c.stack_size, 8192);
	cr_assert_eq(c.max_frames, 64);
	cr_assert_str_eq(c.event, "cycles");
	cr_assert_eq(c.per_pid, 1);
	cr_assert_eq(c.group_by_thread, 1);
	cr_assert_eq(c.load_max_size, UINT64_C(64) << 20);
	cr_assert_eq(c.load_cpu_budget_bp, 50);
	cr_assert_eq(c.interval_ns, 30 * S);
	cr_assert_eq(c.stats_interval_ns, 0);
	cr_assert_eq(c.log, CONF_LOG_SYSLOG);
	cr_assert_eq(c.log_level, LOG_DEBUG);
	cr_assert_eq(c.export, CONF_EXPORT_PYROSCOPE);
	cr_assert_str_eq(c.url, "https://pyro.example:4040/");
	cr_assert_str_eq(c.auth_token_file, "/etc/smolder/token");
	cr_assert_str_eq(c.basic_auth_file, "/etc/smolder/basic");
	cr_assert_str_eq(c.tenant_id, "team-a");
	cr_assert_str_eq(c.tls_ca_file, "/etc/ssl/ca.pem");
	cr_assert_eq(c.tls_verify, 0);
	cr_assert_eq(c.connect_timeout_ns, 1500000000ULL);
	cr_assert_eq(c.timeout_ns, 120 * S);
	cr_assert_eq(c.backoff_min_ns, 2 * S);
	cr_assert_eq(c.backoff_max_ns, 3600 * S);
	cr_assert_str_eq(c.spool_dir, "/srv/spool");
	cr_assert_eq(c.spool_max_size, 1000000000ULL);
	cr_assert_eq(c.spool_max_age_ns, 2 * 86400 * S);
	cr_assert_eq(c.nlabels, 2);
	cr_assert_str_eq(c.labels[0].name, "env");
	cr_assert_str_eq(c.labels[0].value, "prod");
	cr_assert_str_eq(c.labels[1].name, "k8s.pod_name");
	cr_assert_str_eq(c.labels[1].value, "web-1");
	conf__free(&c);
}

Test(conf, enum_spellings)
{
	static const struct {
		const char *v;
		int level;
	} t[] = {
		{ "err", LOG_ERR }, { "error", LOG_ERR }, { "warning", LOG_WARNING },
		{ "warn", LOG_WARNING }, { "notice", LOG_NOTICE }, { "info", LOG_INFO },
		{ "DEBUG", LOG_DEBUG },
	};
	struct conf c;
	char err[256];
	size_t i;

	cr_assert_eq(conf__init(&c), 0);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cr_assert_eq(conf__set(&c, "log_level", t[i].v, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(c.log_level, t[i].level, "%s", t[i].v);
	}
	cr_assert_eq(conf__set(&c, "export", "json", err, sizeof(err)), 0);
	cr_assert_eq(c.export, CONF_EXPORT_JSON);
	cr_assert_eq(conf__set(&c, "export", "none", err, sizeof(err)), 0);
	cr_assert_eq(c.export, CONF_EXPORT_NONE);
	cr_assert_eq(conf__set(&c, "event", "CPU-Clock", err, sizeof(err)), 0);
	cr_assert_str_eq(c.event, "cpu-clock", "canonical spelling stored");
	cr_assert_eq(conf__set(&c, "log_level", "loud", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--log_level: 'loud' is not one of err, warning, notice, info or debug");
	cr_assert_eq(conf__set(&c, "event", "instructions", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--event: unknown event 'instructions' (cpu-clock, cycles, off-cpu, "
			      "or a CPU event and off-cpu: cpu-clock,off-cpu)");
	cr_assert_eq(conf__set(&c, "export", "otlp", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--export: 'otlp' is not one of none, json or pyroscope");
	cr_assert_eq(conf__set(&c, "log", "file", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--log: 'file' is not one of stderr or syslog");
	conf__free(&c);
}

Test(conf, error_messages)
{
	char longline[4200];

	expect_load_error("\n\ninterval = 10x\n",
			  "3: interval: '10x' is not a duration (use e.g. 10s, 500ms, 5m, 1h30m, 1w)");
	expect_load_error("frobnicate = 1\n", "1: frobnicate: unknown key");
	expect_load_error("frequency = 99\njust some words\n", "2: expected 'key = value'");
	expect_load_error(" = 5\n", "1: expected 'key = value'");
	expect_load_error("frequency = 0\n", "1: frequency: '0' is out of range (1..100000)");
	expect_load_error("frequency = 100001\n", "1: frequency: '100001' is out of range (1..100000)");
	expect_load_error("frequency = -5\n", "1: frequency: '-5' is not a number");
	expect_load_error("max_frames = 2000\n", "1: max_frames: '2000' is out of range (1..1024)");
	expect_load_error("stack_size = 1001\n", "1: stack_size: '1001' is not a multiple of 8");
	expect_load_error("stack_size = 1004\n", "1: stack_size: '1004' is not a multiple of 8");
	expect_load_error("stack_size = 64KiB\n", "1: stack_size: '64KiB' is out of range (8..65528)");
	expect_load_error("label.bad-name = x\n",
			  "1: label.bad-name: invalid label name (use letters, digits, '_' and '.')");
	expect_load_error("label. = x\n",
			  "1: label.: invalid label name (use letters, digits, '_' and '.')");
	expect_load_error("tenant_id = a\tb\n", "1: tenant_id: value contains a control character");
	expect_load_error("tenant_id = \"a\x1b[31m\"\n", "1: tenant_id: value contains a control character");
	expect_load_error("ten\x01nt = x\n", "1: invalid character in key");
	expect_load_error("spool_dir = var/spool\n", "1: spool_dir: 'var/spool' is not an absolute path");
	expect_load_error("spool_dir =\n", "1: spool_dir: '' is not an absolute path");
	expect_load_error("interval = 500ms\n", "1: interval: '500ms' is out of range (1s..1h)");
	expect_load_error("interval = 2h\n", "1: interval: '2h' is out of range (1s..1h)");
	expect_load_error("stats_interval = 10ms\n",
			  "1: stats_interval: '10ms' is out of range (0 or at least 1s)");
	expect_load_error("timeout = 0\n", "1: timeout: '0' must be greater than 0");
	expect_load_error("per_pid = maybe\n", "1: per_pid: 'maybe' is not a boolean (use yes or no)");
	expect_load_error("group_by = pid\n", "1: group_by: 'pid' is not one of process or thread");
	expect_load_error("spool_max_size = 5 GiB\n",
			  "1: spool_max_size: '5 GiB' is not a size (use e.g. 4096, 64KiB, 512MiB)");
	expect_load_error("spool_max_age = 999999999999d\n", "1: spool_max_age: '999999999999d' is too large");
	expect_load_error("load_max_size = 512KiB\n",
			  "1: load_max_size: '512KiB' is below the minimum of 1048576 bytes");
	expect_load_error("load_cpu_budget = 0\n", "1: load_cpu_budget: '0' must be greater than 0");
	expect_load_error("names_max_size = 4KiB\n",
			  "1: names_max_size: '4KiB' is below the minimum of 65536 bytes");
	expect_load_error("interval = 10s # ten seconds\n",
			  "1: interval: '10s # ten seconds' is not a duration (use e.g. 10s, 500ms, 5m, 1h30m, 1w)"
			  " ('#' starts a comment only at the start of a line)");
	expect_load_error("url = \"http://x\n", "1: url: unterminated quoted value");
	expect_load_error("url = \"a\"b\"\n", "1: url: unescaped '\"' inside quoted value");
	expect_load_error("url = \"a\\nb\"\n", "1: url: invalid escape in quoted value (only \\\" and \\\\)");

	/* 4096 bytes is the longest line; the 4097-byte one is named by number. */
	memset(longline, 'a', sizeof(longline));
	memcpy(longline, "tenant_id = ", 12);
	memcpy(longline + 4096, "\n# x\n", 6);
	{
		struct conf c;
		char err[256];

		cr_assert_eq(load_text(&c, longline, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(strlen(c.tenant_id), 4096 - 12);
		conf__free(&c);
		unlink(paths[--npaths]);
	}
	memset(longline + 4096, 'a', 5);
	memcpy(longline, "# x\ntenant_id = ", 16);
	memcpy(longline + 4 + 4097, "\n", 2);
	expect_load_error(longline, "2: line too long (max 4096 bytes)");
}

Test(conf, nul_byte_and_big_file)
{
	struct conf c;
	char err[512], want[512];
	const char *p;
	char *big;
	size_t n = 1024 * 1024 + 1;

	p = write_file_n("nul.conf", "frequency = 9\0 9\n", 17, 0600);
	cr_assert_eq(conf__init(&c), 0);
	cr_assert_eq(conf__load(&c, p, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:1: line contains a NUL byte", p);
	cr_assert_str_eq(err, want);

	big = malloc(n);
	cr_assert_not_null(big);
	memset(big, '\n', n);
	p = write_file_n("big.conf", big, n, 0600);
	cr_assert_eq(conf__load(&c, p, err, sizeof(err)), -EFBIG);
	snprintf(want, sizeof(want), "%s: file too large (max 1 MiB)", p);
	cr_assert_str_eq(err, want);
	p = write_file_n("max.conf", big, n - 1, 0600);
	cr_assert_eq(conf__load(&c, p, err, sizeof(err)), 0, "%s", err);
	free(big);

	cr_assert_eq(conf__load(&c, dir, err, sizeof(err)), -EISDIR);
	p = tmp_path("missing.conf");
	cr_assert_eq(conf__load(&c, p, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", p);
	cr_assert_str_eq(err, want);
	conf__free(&c);
}

Test(conf, crlf_bom_and_no_final_newline)
{
	struct conf c;
	char err[256];

	cr_assert_eq(load_text(&c, "\xef\xbb\xbf# bom\r\nfrequency = 49\r\ninterval = 20s", err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(c.frequency, 49);
	cr_assert_eq(c.interval_ns, 20 * S);
	conf__free(&c);
}

Test(conf, failed_load_leaves_config_untouched)
{
	struct conf c, before;
	char err[256];

	cr_assert_eq(load_text(&c, "frequency = 7\nlabel.a = 1\n", err, sizeof(err)), 0);
	cr_assert_eq(conf__copy(&before, &c), 0);
	cr_assert_eq(conf__load(&c, write_file("bad.conf", "frequency = 11\nlabel.b = 2\nbogus = 1\n"),
				err, sizeof(err)), -EINVAL);
	assert_conf_eq(&c, &before);
	/* A good file is applied on top of what c holds. */
	cr_assert_eq(conf__load(&c, write_file("good.conf", "max_frames = 3\n"), err, sizeof(err)), 0);
	cr_assert_eq(c.frequency, 7);
	cr_assert_eq(c.max_frames, 3);
	cr_assert_eq(c.nlabels, 1);
	conf__free(&c);
	conf__free(&before);
}

Test(conf, quotes_and_hashes)
{
	struct conf c;
	char err[256];
	const char *text =
		"url = \"https://h.example/ingest#frag\"\n"
		"tenant_id = team#1\n"
		"auth_token_file = \"/etc/smolder/tok \\\"x\\\" \\\\ # y\"\n"
		"label.q = \"  padded  \"\n"
		"label.empty_quotes = \"\"\n"
		"basic_auth_file = \"\n" /* a lone quote is not a quoted value */;

	cr_assert_eq(load_text(&c, text, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, ":6: basic_auth_file: unterminated quoted value"), "%s", err);
	conf__free(&c);
	unlink(paths[--npaths]);

	/* Without the last line the file is good. */
	{
		char good[512];
		size_t n = strlen(text) - strlen("basic_auth_file = \"\n");

		memcpy(good, text, n);
		good[n] = '\0';
		cr_assert_eq(load_text(&c, good, err, sizeof(err)), 0, "%s", err);
	}
	cr_assert_str_eq(c.url, "https://h.example/ingest#frag");
	cr_assert_str_eq(c.tenant_id, "team#1");
	cr_assert_str_eq(c.auth_token_file, "/etc/smolder/tok \"x\" \\ # y");
	cr_assert_eq(c.nlabels, 1, "an empty label value adds nothing");
	cr_assert_str_eq(c.labels[0].value, "  padded  ");
	conf__free(&c);
}

Test(conf, later_duplicate_wins)
{
	struct conf c;
	char err[256];

	cr_assert_eq(load_text(&c,
			       "frequency = 10\nlabel.env = dev\nlabel.team = a\nurl = http://a/\n"
			       "frequency = 20\nlabel.env = prod\nurl =\n",
			       err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.frequency, 20);
	cr_assert_null(c.url, "an empty value unsets an optional string");
	cr_assert_eq(c.nlabels, 2);
	cr_assert_str_eq(c.labels[0].name, "env");
	cr_assert_str_eq(c.labels[0].value, "prod");
	cr_assert_str_eq(c.labels[1].name, "team");
	/* An empty label value removes the label (command-line override). */
	cr_assert_eq(conf__set(&c, "label.env", "", err, sizeof(err)), 0);
	cr_assert_eq(c.nlabels, 1);
	cr_assert_str_eq(c.labels[0].name, "team");
	conf__free(&c);
}

Test(conf, too_many_labels)
{
	struct conf c;
	char err[256], name[32];
	int i;

	cr_assert_eq(conf__init(&c), 0);
	for (i = 0; i < CONF_MAX_LABELS; i++) {
		snprintf(name, sizeof(name), "label.l%d", i);
		cr_assert_eq(conf__set(&c, name, "v", err, sizeof(err)), 0, "%s", err);
	}
	cr_assert_eq(conf__set(&c, "label.l0", "again", err, sizeof(err)), 0, "override fits");
	cr_assert_eq(conf__set(&c, "label.extra", "v", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--label.extra: too many labels (max 64)");
	cr_assert_eq(c.nlabels, CONF_MAX_LABELS);
	conf__free(&c);
}

Test(conf, set_with_dashes)
{
	struct conf c;
	char err[256];

	cr_assert_eq(conf__init(&c), 0);
	cr_assert_eq(conf__set(&c, "spool-dir", "/srv/s", err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(c.spool_dir, "/srv/s");
	cr_assert_eq(conf__set(&c, "retry-backoff-max", "10m", err, sizeof(err)), 0);
	cr_assert_eq(c.backoff_max_ns, 600 * S);
	cr_assert_eq(conf__set(&c, "interval", "5s", err, sizeof(err)), 0);
	cr_assert_eq(c.interval_ns, 5 * S);
	cr_assert_eq(conf__set(&c, "url", "https://x/#a b", err, sizeof(err)), 0);
	cr_assert_str_eq(c.url, "https://x/#a b");
	cr_assert_eq(conf__set(&c, "tenant-id", "\"q\"", err, sizeof(err)), 0);
	cr_assert_str_eq(c.tenant_id, "\"q\"", "no quote removal on the command line");

	cr_assert_eq(conf__set(&c, "spool-dir", "rel", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--spool-dir: 'rel' is not an absolute path");
	cr_assert_str_eq(c.spool_dir, "/srv/s", "unchanged on error");
	cr_assert_eq(conf__set(&c, "interval", "10x", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--interval: '10x' is not a duration (use e.g. 10s, 500ms, 5m, 1h30m, 1w)");
	cr_assert_eq(c.interval_ns, 5 * S);
	cr_assert_eq(conf__set(&c, "frobnicate", "1", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--frobnicate: unknown key");
	cr_assert_eq(conf__set(&c, "label.my-app", "x", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--label.my-app: invalid label name (use letters, digits, '_' and '.')");
	cr_assert_eq(conf__set(&c, "tenant-id", "a\nb", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--tenant-id: value contains a control character");
	conf__free(&c);
}

Test(conf, copy_is_deep)
{
	struct conf a, b;
	char err[256];

	cr_assert_eq(load_text(&a, "url = http://h/\ntenant_id = t\ntls_ca_file = /ca\n"
				   "auth_token_file = /tok\nbasic_auth_file = /b\nlabel.x = 1\nlabel.y = 2\n",
			       err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(conf__copy(&b, &a), 0);
	assert_conf_eq(&a, &b);
	cr_assert_neq(a.url, b.url);
	cr_assert_neq(a.event, b.event);
	cr_assert_neq(a.labels[1].value, b.labels[1].value);
	conf__free(&a);
	cr_assert_str_eq(b.url, "http://h/");
	cr_assert_str_eq(b.spool_dir, "/var/lib/smolder/spool");
	cr_assert_str_eq(b.labels[1].name, "y");
	cr_assert_str_eq(b.labels[1].value, "2");
	conf__free(&b);
}

/* The shipped file, and the same file with every "#key = default" example
 * uncommented, both load to exactly the defaults; every key is documented. */
Test(conf, shipped_config)
{
	static const char *const all_keys[] = {
		"frequency", "stack_size", "max_frames", "event", "events", "per_pid", "group_by", "interval",
		"stats_interval", "log", "log_level", "export", "url", "auth_token_file",
		"basic_auth_file", "tenant_id", "tls_ca_file", "tls_verify", "connect_timeout",
		"timeout", "retry_backoff_min", "retry_backoff_max", "spool_dir",
		"spool_max_size", "spool_max_age", "names_max_size",
	};
	struct conf def, c;
	char err[512], line[4200], *out = NULL;
	size_t outlen = 0, i;
	FILE *in, *mem;

	cr_assert_eq(conf__init(&def), 0);
	cr_assert_eq(conf__init(&c), 0);
	cr_assert_eq(conf__load(&c, SRCDIR "/packaging/smolder.conf", err, sizeof(err)), 0, "%s", err);
	assert_conf_eq(&c, &def);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), 0, "%s", err);
	conf__free(&c);

	in = fopen(SRCDIR "/packaging/smolder.conf", "re");
	cr_assert_not_null(in);
	mem = open_memstream(&out, &outlen);
	cr_assert_not_null(mem);
	while (fgets(line, sizeof(line), in)) {
		size_t k = 1;

		while (line[k] >= 'a' && line[k] <= 'z')
			k++;
		while (line[k] == '_' || (line[k] >= 'a' && line[k] <= 'z'))
			k++;
		if (line[0] == '#' && k > 1 && strncmp(line + k, " =", 2) == 0)
			fputs(line + 1, mem);
		else
			fputs(line, mem);
	}
	fclose(in);
	fclose(mem);
	for (i = 0; i < sizeof(all_keys) / sizeof(all_keys[0]); i++) {
		char needle[64];

		snprintf(needle, sizeof(needle), "\n%s = ", all_keys[i]);
		if (!strstr(out, needle)) {
			snprintf(needle, sizeof(needle), "\n%s =\n", all_keys[i]);
			cr_assert_not_null(strstr(out, needle), "%s is not documented", all_keys[i]);
		}
	}
	cr_assert_eq(load_text(&c, out, err, sizeof(err)), 0, "%s", err);
	assert_conf_eq(&c, &def);
	free(out);
	conf__free(&c);
	conf__free(&def);
}

Test(conf, validate)
{
	struct conf c;
	char err[512], want[512];
	const char *tok, *basic_bad;

	cr_assert_eq(conf__init(&c), 0);
	cr_assert_eq(conf__set(&c, "export", "json", err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "url: required when export = json");
	cr_assert_eq(conf__set(&c, "url", "ftp://user:hunter2@h/", err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "url: must start with http:// or https://");
	cr_assert_eq(conf__set(&c, "url", "https://", err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "url: has no host");
	cr_assert_eq(conf__set(&c, "url", "HTTPS://h:4040/x", err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), 0, "%s", err);

	cr_assert_eq(conf__set(&c, "retry_backoff_min", "10m", err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "retry_backoff_min: 10m is greater than retry_backoff_max (5m)");
	cr_assert_eq(conf__set(&c, "retry_backoff_min", "5m", err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), 0, "min == max is fine");

	cr_assert_eq(conf__set(&c, "auth_token_file", tmp_path("nope"), err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "auth_token_file: %s: No such file or directory", c.auth_token_file);
	cr_assert_str_eq(err, want);
	tok = write_file("tok", "s3cret\n");
	cr_assert_eq(conf__set(&c, "auth_token_file", tok, err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), 0, "%s", err);

	basic_bad = write_file("basic", "nocolon\n");
	cr_assert_eq(conf__set(&c, "basic_auth_file", basic_bad, err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "auth_token_file: cannot be combined with basic_auth_file");
	cr_assert_eq(conf__set(&c, "auth_token_file", "", err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "basic_auth_file: %s: first line must be 'user:password'", basic_bad);
	cr_assert_str_eq(err, want);
	cr_assert_null(strstr(err, "nocolon"), "secret not echoed");
	cr_assert_eq(conf__set(&c, "basic_auth_file", write_file("basic2", "u:p\n"), err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), 0, "%s", err);

	cr_assert_eq(conf__set(&c, "tls_ca_file", tmp_path("noca"), err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "tls_ca_file: %s: No such file or directory", c.tls_ca_file);
	cr_assert_str_eq(err, want);
	cr_assert_eq(conf__set(&c, "tls_ca_file", "", err, sizeof(err)), 0);

	cr_assert_eq(conf__set(&c, "export", "pyroscope", err, sizeof(err)), 0);
	cr_assert_eq(conf__set(&c, "label.env", "a,b", err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "label.env: value must not contain ',', '}' or '=' with export = pyroscope");
	cr_assert_eq(conf__set(&c, "export", "json", err, sizeof(err)), 0);
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), 0, "JSON escapes anything");

	/* spool_dir can only be made relative by poking the struct. */
	free(c.spool_dir);
	c.spool_dir = strdup("rel");
	cr_assert_eq(conf__validate(&c, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "spool_dir: must be an absolute path");
	conf__free(&c);
}

Test(conf, read_secret)
{
	char err[512], want[512], big[4200];
	char *s = NULL;
	const char *p, *link;
	int exposed = -1;

	p = write_file("token", "hunter2\r\nsecond line\n");
	cr_assert_eq(conf__read_secret_ex(p, &s, &exposed, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(s, "hunter2");
	cr_assert_eq(exposed, 0);
	free(s);
	s = NULL;

	p = write_file_n("world", "tok", 3, 0644);
	cr_assert_eq(conf__read_secret_ex(p, &s, &exposed, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(s, "tok", "no final newline");
	cr_assert_eq(exposed, 1);
	free(s);
	s = NULL;
	cr_assert_eq(conf__read_secret_ex(p, &s, NULL, err, sizeof(err)), 0, "exposed may be NULL");
	free(s);
	s = NULL;
	p = write_file_n("group", "tok\n", 4, 0640);
	exposed = -1;
	cr_assert_eq(conf__read_secret_ex(p, &s, &exposed, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(exposed, 1, "group-readable");
	free(s);
	s = NULL;

	link = tmp_path("link");
	cr_assert_eq(symlink(p, link), 0);
	cr_assert_eq(conf__read_secret_ex(link, &s, &exposed, err, sizeof(err)), -ELOOP);
	cr_assert_null(s);
	snprintf(want, sizeof(want), "%s: is a symbolic link (refusing to follow it)", link);
	cr_assert_str_eq(err, want);

	memset(big, 'x', sizeof(big));
	p = write_file_n("big", big, 4097, 0600);
	cr_assert_eq(conf__read_secret(p, &s, err, sizeof(err)), -EFBIG);
	snprintf(want, sizeof(want), "%s: file too large (max 4096 bytes)", p);
	cr_assert_str_eq(err, want);
	cr_assert_null(s);
	p = write_file_n("max", big, 4096, 0600);
	cr_assert_eq(conf__read_secret(p, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(strlen(s), 4096);
	free(s);
	s = NULL;

	p = write_file("ctl", "pass\x01word\n");
	cr_assert_eq(conf__read_secret(p, &s, err, sizeof(err)), -EINVAL);
	cr_assert_null(strstr(err, "pass"), "secret not in err: %s", err);
	snprintf(want, sizeof(want), "%s: first line contains a control character", p);
	cr_assert_str_eq(err, want);
	p = write_file("empty", "\nsecret on line two\n");
	cr_assert_eq(conf__read_secret(p, &s, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: first line is empty", p);
	cr_assert_str_eq(err, want);
	cr_assert_eq(conf__read_secret(dir, &s, err, sizeof(err)), -EISDIR);
	cr_assert_null(s);
}

Test(conf, cpu_budget_percentages)
{
	static const struct {
		const char *v;
		int ok;
		unsigned bp;
	} cases[] = {
		{ "1%", 1, 100 }, { "0.5%", 1, 50 }, { "0.25", 1, 25 }, { "2", 1, 200 },
		{ "0", 1, 0 }, { "100%", 1, 10000 }, { "101%", 0, 0 }, { "1.234%", 0, 0 },
		{ "%", 0, 0 }, { "abc", 0, 0 }, { "1%%", 0, 0 }, { "-1%", 0, 0 }, { ".5%", 1, 50 },
	};
	struct conf c;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(conf__init(&c), 0);
		err[0] = '\0';
		if (cases[i].ok) {
			cr_assert_eq(conf__set(&c, "cpu_budget", cases[i].v, err, sizeof(err)), 0,
				     "'%s' refused: %s", cases[i].v, err);
			cr_assert_eq(c.cpu_budget_bp, cases[i].bp, "'%s' gave %u", cases[i].v, c.cpu_budget_bp);
		} else {
			cr_assert_neq(conf__set(&c, "cpu_budget", cases[i].v, err, sizeof(err)), 0,
				      "'%s' accepted", cases[i].v);
			cr_assert(strstr(err, "cpu_budget") != NULL, "error does not name the key: %s", err);
		}
		conf__free(&c);
	}
	cr_assert_eq(conf__init(&c), 0);
	cr_assert_eq(c.cpu_budget_bp, 100, "default is 1%% of one CPU");
	conf__free(&c);
}

Test(conf, nice_range_and_sign)
{
	static const struct {
		const char *v;
		int ok, nice;
	} cases[] = {
		{ "-10", 1, -10 }, { "-20", 1, -20 }, { "19", 1, 19 }, { "0", 1, 0 },
		{ "-21", 0, 0 }, { "20", 0, 0 }, { "--1", 0, 0 }, { "x", 0, 0 }, { "", 0, 0 },
		{ "99999999999999999999", 0, 0 },
	};
	struct conf c;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(conf__init(&c), 0);
		err[0] = '\0';
		if (cases[i].ok) {
			cr_assert_eq(conf__set(&c, "nice", cases[i].v, err, sizeof(err)), 0,
				     "'%s' refused: %s", cases[i].v, err);
			cr_assert_eq(c.nice, cases[i].nice);
		} else {
			cr_assert_neq(conf__set(&c, "nice", cases[i].v, err, sizeof(err)), 0,
				      "'%s' accepted", cases[i].v);
			cr_assert(strstr(err, "-20..19") != NULL, "error does not give the range: %s", err);
		}
		conf__free(&c);
	}
	cr_assert_eq(conf__init(&c), 0);
	cr_assert_eq(c.nice, -10);
	conf__free(&c);
}

/* The keys read the grammar of common/units.h, the same as the command line. */
Test(conf, one_grammar_for_every_key)
{
	struct conf c;
	char err[256];

	cr_assert_eq(conf__init(&c), 0);
	cr_assert_eq(conf__set(&c, "spool_max_age", "1w", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.spool_max_age_ns, UINT64_C(7) * 86400 * S);
	cr_assert_eq(conf__set(&c, "interval", "1m30s", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.interval_ns, 90 * S);
	cr_assert_eq(conf__set(&c, "interval", "1.5s", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "1h30m") != NULL, "the hint shows the grammar: %s", err);
	conf__free(&c);
}

/* events = a CPU event and off-cpu, in the order given, one window each;
 * two CPU events or one twice are refused by name. */
Test(conf, events_list)
{
	struct conf c;
	char err[256];

	cr_assert_eq(conf__init(&c), 0);
	cr_assert_eq(conf__set(&c, "events", "cpu-clock, off-cpu", err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(c.event, "cpu-clock,off-cpu");
	cr_assert_eq(conf__set(&c, "events", "Off-CPU cycles", err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(c.event, "off-cpu,cycles");
	cr_assert_eq(conf__set(&c, "event", "off-cpu", err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(c.event, "off-cpu");
	cr_assert_eq(conf__set(&c, "events", "cpu-clock,cycles", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--events: cpu-clock and cycles: one CPU event at a time");
	cr_assert_str_eq(c.event, "off-cpu", "a refused value leaves the old one");
	cr_assert_eq(conf__set(&c, "events", "off-cpu,off-cpu", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--events: off-cpu twice");
	cr_assert_eq(conf__set(&c, "events", " , ", err, sizeof(err)), -EINVAL);
	conf__free(&c);
}

/* lines = yes, and python_lines, its former name, set the same thing. */
Test(conf, lines_and_its_former_name)
{
	struct conf c;
	char err[256];

	cr_assert_eq(conf__init(&c), 0);
	cr_assert_eq(c.python_lines, 0);
	cr_assert_eq(conf__set(&c, "lines", "yes", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.python_lines, 1);
	cr_assert_eq(conf__set(&c, "python_lines", "no", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.python_lines, 0);
	cr_assert_eq(conf__set(&c, "lines", "maybe", err, sizeof(err)), -EINVAL);
	cr_assert_eq(c.symbolize_on_upload, 0);
	cr_assert_eq(conf__set(&c, "symbolize_on_upload", "yes", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.symbolize_on_upload, 1);
	conf__free(&c);
}
