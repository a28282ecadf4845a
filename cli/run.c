/* `smolder run`: the options of the always-on service; the service itself
 * is daemon/service.c. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/log.h"
#include "daemon/conf.h"
#include "daemon/service.h"

#define MAX_OVERRIDES 128

/* The options, as configuration overrides applied after the file. */
struct run_args {
	struct service_opts so;
	struct conf_override ov[MAX_OVERRIDES];
	char keys[MAX_OVERRIDES][300]; /* "label.NAME" and --set keys */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smolder run [-c FILE] [--daemon [--pidfile FILE]] [OPTIONS]\n"
		"\n"
		"Always-on profiling of the whole machine. Every window (interval) becomes a\n"
		"dump in the spool directory; with export = json or pyroscope an uploader\n"
		"thread delivers it, and a dump leaves the spool only once delivered.\n"
		"\n"
		"  -c, --config FILE      configuration file (default " CONF_DEFAULT_PATH
		", if present)\n"
		"      --daemon           detach into the background (SysV init); the default is\n"
		"                         to stay in the foreground (systemd, Type=notify)\n"
		"      --pidfile FILE     write and lock FILE with the daemon's pid (an\n"
		"                         existing FILE only if a regular file of ours)\n"
		"  -F, --frequency HZ     sampling frequency (key: frequency)\n"
		"      --interval DUR     window length, e.g. 10s (key: interval)\n"
		"      --export KIND      none, json or pyroscope (key: export)\n"
		"      --url URL          collector URL (key: url)\n"
		"      --spool-dir DIR    spool directory (key: spool_dir)\n"
		"      --label NAME=VALUE label added to every dump (key: label.NAME)\n"
		"      --set KEY=VALUE    any configuration key\n"
		"  -h, --help             this help\n"
		"\n"
		"Signals: TERM/INT flush the current window and exit, HUP reloads the\n"
		"configuration (a broken one is reported and the old one kept), USR1 ends\n"
		"the current window now. See smolder(8) for every configuration key.\n");
}

static int add_override(struct run_args *a, const char *key, const char *value)
{
	struct conf_source *src = &a->so.conf;

	if (src->noverrides == MAX_OVERRIDES) {
		log__error("too many options");
		return -1;
	}
	a->ov[src->noverrides].key = key;
	a->ov[src->noverrides].value = value;
	src->noverrides++;
	return 0;
}

/* "NAME=VALUE" arguments of --label and --set. */
static int add_pair(struct run_args *a, const char *opt, const char *arg, const char *prefix)
{
	const char *eq = strchr(arg, '=');
	size_t klen, n = a->so.conf.noverrides;

	if (!eq || eq == arg) {
		log__error("%s: expected NAME=VALUE, got '%s'", opt, arg);
		return -1;
	}
	klen = (size_t)(eq - arg);
	if (klen + strlen(prefix) >= sizeof(a->keys[0]) || n == MAX_OVERRIDES) {
		log__error("%s: '%s' is too long", opt, arg);
		return -1;
	}
	snprintf(a->keys[n], sizeof(a->keys[0]), "%s%.*s", prefix, (int)klen, arg);
	return add_override(a, a->keys[n], eq + 1);
}

enum { OPT_DAEMON = 256, OPT_PIDFILE, OPT_INTERVAL, OPT_EXPORT, OPT_URL, OPT_SPOOL, OPT_LABEL, OPT_SET };

/* One option; returns 0, or -1 after logging why it is refused. */
static int take_option(struct run_args *a, int c, const char *arg)
{
	switch (c) {
	case 'c':
		a->so.conf.path = arg;
		a->so.conf.path_given = 1;
		return 0;
	case OPT_DAEMON:
		a->so.detach = 1;
		return 0;
	case OPT_PIDFILE:
		a->so.pidfile = arg;
		return 0;
	case 'F':
		return add_override(a, "frequency", arg);
	case OPT_INTERVAL:
		return add_override(a, "interval", arg);
	case OPT_EXPORT:
		return add_override(a, "export", arg);
	case OPT_URL:
		return add_override(a, "url", arg);
	case OPT_SPOOL:
		return add_override(a, "spool_dir", arg);
	case OPT_LABEL:
		return add_pair(a, "--label", arg, "label.");
	case OPT_SET:
		return add_pair(a, "--set", arg, "");
	default:
		return -1;
	}
}

/* Returns 0 to go on, 1 after --help, 2 on a usage error. */
static int parse_args(int argc, char **argv, struct run_args *a)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "daemon", no_argument, NULL, OPT_DAEMON },
		{ "pidfile", required_argument, NULL, OPT_PIDFILE },
		{ "frequency", required_argument, NULL, 'F' },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "export", required_argument, NULL, OPT_EXPORT },
		{ "url", required_argument, NULL, OPT_URL },
		{ "spool-dir", required_argument, NULL, OPT_SPOOL },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "set", required_argument, NULL, OPT_SET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":c:F:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == ':') {
			log__error("option '%s' needs a value (see 'smolder run --help')", argv[optind - 1]);
			return 2;
		}
		if (c == '?') {
			log__error("unknown option '%s' (see 'smolder run --help')", argv[optind - 1]);
			return 2;
		}
		if (take_option(a, c, optarg) < 0)
			return 2;
	}
	if (optind < argc) {
		log__error("unexpected argument '%s' (see 'smolder run --help')", argv[optind]);
		return 2;
	}
	return 0;
}

int run_cmd__main(int argc, char **argv)
{
	/* static: the overrides' keys live as long as the service (reloads) */
	static struct run_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.so.conf.path = CONF_DEFAULT_PATH;
	a.so.conf.overrides = a.ov;
	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc == 1 ? 0 : 2;
	return service__run(&a.so);
}
