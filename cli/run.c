/* `smolder run`: the always-on service. Samples every CPU without pause; at
 * each window's end (aligned to the wall clock) the window's dump is written
 * to the spool, and the uploader thread delivers it. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/cli.h"
#include "daemon/startup.h"
#include "daemon/sink_setup.h"
#include "daemon/conf.h"
#include "daemon/detach.h"
#include "daemon/notify.h"
#include "daemon/pidfile.h"
#include "collector/perf_events.h"
#include "daemon/privileges.h"
#include "profile/agent_stats.h"
#include "profile/profile.h"
#include "collector/sampler.h"
#include "common/cachedir.h"
#include "common/log.h"
#include "common/clock.h"
#include "common/selfusage.h"
#include "export/gzip.h"
#include "export/json_dump.h"
#include "export/sink.h"
#include "export/spool.h"
#include "export/uploader.h"

#define MAX_OVERRIDES 128
/* TERM/INT: the current window is flushed and delivery tried this long, so
 * that the whole stop stays within systemd's and the init script's patience. */
#define STOP_DELIVERY_NS 3000000000ull

struct override {
	const char *key, *value;
};

struct run_state {
	struct conf conf;
	const char *conf_path;
	int conf_explicit;
	struct override ov[MAX_OVERRIDES];
	size_t nov;

	struct sampler *s;
	struct spool *spool;
	struct cachedir *cache; /* NULL: none */
	struct uploader *up;
	struct utsname uts;

	uint64_t window_start, window_end; /* wall clock ns */
	unsigned freq_now;                 /* in effect: lowered when over cpu_budget */
	double cost_bp;                    /* smoothed agent CPU, hundredths of a percent */
	uint64_t budget_windows;           /* windows seen by the budget */
	char window_id[320];
	uint64_t spool_dropped; /* for the next dump */

	/* since the last stats line */
	uint64_t st_windows, st_samples, st_lost, st_complete, st_user, st_cpu_ns, st_since;
	uint64_t next_stats;
};

static volatile sig_atomic_t sig_stop, sig_hup, sig_usr1;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		sig_hup = 1;
	else if (sig == SIGUSR1)
		sig_usr1 = 1;
	else
		sig_stop = sig;
}

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
		"      --pidfile FILE     write and lock FILE with the daemon's pid\n"
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

static int add_override(struct run_state *r, const char *key, const char *value)
{
	if (r->nov == MAX_OVERRIDES) {
		log__error("too many options");
		return -1;
	}
	r->ov[r->nov].key = key;
	r->ov[r->nov].value = value;
	r->nov++;
	return 0;
}

/* "NAME=VALUE" arguments of --label and --set. */
static int add_pair(struct run_state *r, const char *opt, const char *arg, const char *prefix)
{
	static char keys[MAX_OVERRIDES][300];
	const char *eq = strchr(arg, '=');
	size_t klen;

	if (!eq || eq == arg) {
		log__error("%s: expected NAME=VALUE, got '%s'", opt, arg);
		return -1;
	}
	klen = (size_t)(eq - arg);
	if (klen + strlen(prefix) >= sizeof(keys[0]) || r->nov == MAX_OVERRIDES) {
		log__error("%s: '%s' is too long", opt, arg);
		return -1;
	}
	snprintf(keys[r->nov], sizeof(keys[0]), "%s%.*s", prefix, (int)klen, arg);
	return add_override(r, keys[r->nov], eq + 1);
}

/* Returns 0 to go on, 1 after --help, 2 on a usage error. */
static int parse_args(int argc, char **argv, struct run_state *r, int *detach, const char **pidfile)
{
	enum { OPT_DAEMON = 256, OPT_PIDFILE, OPT_INTERVAL, OPT_EXPORT, OPT_URL, OPT_SPOOL, OPT_LABEL,
	       OPT_SET };
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
		int rc = 0;

		switch (c) {
		case 'c':
			r->conf_path = optarg;
			r->conf_explicit = 1;
			break;
		case OPT_DAEMON:
			*detach = 1;
			break;
		case OPT_PIDFILE:
			*pidfile = optarg;
			break;
		case 'F':
			rc = add_override(r, "frequency", optarg);
			break;
		case OPT_INTERVAL:
			rc = add_override(r, "interval", optarg);
			break;
		case OPT_EXPORT:
			rc = add_override(r, "export", optarg);
			break;
		case OPT_URL:
			rc = add_override(r, "url", optarg);
			break;
		case OPT_SPOOL:
			rc = add_override(r, "spool_dir", optarg);
			break;
		case OPT_LABEL:
			rc = add_pair(r, "--label", optarg, "label.");
			break;
		case OPT_SET:
			rc = add_pair(r, "--set", optarg, "");
			break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			log__error("option '%s' needs a value (see 'smolder run --help')", argv[optind - 1]);
			return 2;
		default:
			log__error("unknown option '%s' (see 'smolder run --help')", argv[optind - 1]);
			return 2;
		}
		if (rc < 0)
			return 2;
	}
	if (optind < argc) {
		log__error("unexpected argument '%s' (see 'smolder run --help')", argv[optind]);
		return 2;
	}
	return 0;
}

/* File, then command-line overrides, then the cross-key checks. */
static int load_conf(const struct run_state *r, struct conf *c, char *err, size_t errlen)
{
	struct stat st;
	size_t i;
	int rc;

	rc = conf__init(c);
	if (rc < 0) {
		snprintf(err, errlen, "%s", strerror(-rc));
		return rc;
	}
	if (r->conf_explicit || stat(r->conf_path, &st) == 0) {
		rc = conf__load(c, r->conf_path, err, errlen);
		if (rc < 0)
			goto fail;
	}
	for (i = 0; i < r->nov; i++) {
		rc = conf__set(c, r->ov[i].key, r->ov[i].value, err, errlen);
		if (rc < 0)
			goto fail;
	}
	rc = conf__validate(c, err, errlen);
	if (rc < 0)
		goto fail;
	return 0;
fail:
	conf__free(c);
	return rc;
}

static void apply_logging(const struct conf *c)
{
	log__set_level(c->log_level);
	log__use_syslog(c->log == CONF_LOG_SYSLOG);
}

static void uploader_log(void *ctx, int priority, const char *msg)
{
	(void)ctx;
	log__msg(priority, "%s", msg);
}

static int abort_uploads(void *ctx)
{
	return uploader__should_abort(ctx);
}

/* The sink for c (NULL for export = none). Returns 0 or -errno (logged). */
static int make_sink(struct run_state *r, const struct conf *c, struct sink **out)
{
	*out = NULL;
	if (c->export == CONF_EXPORT_NONE)
		return 0;
	return sink_setup__new(c, abort_uploads, r->up, out);
}

static uint64_t next_boundary(uint64_t t, uint64_t interval)
{
	return (t / interval + 1) * interval;
}

static void fill_meta(struct run_state *r, struct profile *prof, uint64_t end_ns)
{
	static const char *lnames[CONF_MAX_LABELS], *lvalues[CONF_MAX_LABELS];
	struct profile_meta *m = profile__meta(prof);
	size_t i;

	for (i = 0; i < r->conf.nlabels; i++) {
		lnames[i] = r->conf.labels[i].name;
		lvalues[i] = r->conf.labels[i].value;
	}
	snprintf(r->window_id, sizeof(r->window_id), "%s@%llu", r->uts.nodename,
		 (unsigned long long)r->window_start);
	m->start_ns = r->window_start;
	m->end_ns = end_ns;
	m->window_id = r->window_id;
	m->hostname = r->uts.nodename;
	m->kernel = r->uts.release;
	m->arch = r->uts.machine;
	m->event_name = r->conf.event;
	m->event_unit = "samples";
	m->frequency_hz = r->freq_now;
	m->nlabels = r->conf.nlabels;
	m->label_names = lnames;
	m->label_values = lvalues;
}

/* Keeps the agent within cpu_budget: when a window cost more than the
 * budget, the next samples less often (cost is roughly proportional to the
 * sample rate), never below 1 Hz; when it cost well under half the budget,
 * the frequency climbs back towards the configured one. */
static void apply_budget(struct run_state *r, uint64_t cpu_ns, uint64_t wall_ns)
{
	double used_bp, budget = (double)r->conf.cpu_budget_bp, want;
	unsigned next;

	if (!wall_ns)
		return;
	/* The first window pays for start-up (probing, the first symbol and CFI
	 * loads): one-time costs the frequency cannot change. After it, the cost
	 * is smoothed over windows so that one expensive window (a burst of new
	 * binaries) does not halve the sampling on its own. */
	used_bp = 10000.0 * (double)cpu_ns / (double)wall_ns;
	if (r->budget_windows++ == 0)
		return;
	r->cost_bp = r->budget_windows == 2 ? used_bp : 0.5 * r->cost_bp + 0.5 * used_bp;
	used_bp = r->cost_bp;
	if (budget > 0 && used_bp > budget) {
		want = (double)r->freq_now * (budget / used_bp) * 0.9;
		next = want < 1.0 ? 1 : (unsigned)want;
		if (next >= r->freq_now)
			next = r->freq_now > 1 ? r->freq_now - 1 : 1;
	} else if (r->freq_now < r->conf.frequency && (budget == 0 || used_bp < budget / 2)) {
		want = budget == 0 ? (double)r->conf.frequency :
				     (double)r->freq_now * (budget * 0.8 / (used_bp > 1.0 ? used_bp : 1.0));
		if (want > 2.0 * (double)r->freq_now)
			want = 2.0 * (double)r->freq_now;
		next = want > (double)r->conf.frequency ? r->conf.frequency : (unsigned)want;
		if (next <= r->freq_now)
			return;
	} else {
		return;
	}
	if (next == r->freq_now)
		return;
	if (sampler__set_frequency(r->s, next) < 0) {
		log__warn("cpu_budget: cannot change the sampling frequency to %u Hz", next);
		return;
	}
	log__notice("cpu_budget: the agent used %.2f%% of a CPU (budget %.2f%%): sampling at %u Hz "
		    "(configured %u Hz)", used_bp / 100.0, budget / 100.0, next, r->conf.frequency);
	r->freq_now = next;
}

/* Ends the window at end_ns: its dump goes to the spool, the next starts. */
static void rotate(struct run_state *r, uint64_t end_ns)
{
	struct profile *prof;
	struct agent_stats *st;
	char *json = NULL, name[128];
	void *gz = NULL;
	size_t jlen = 0, gzlen = 0;
	uint64_t files = 0, bytes = 0;
	int rc;

	sampler__poll(r->s, 0);
	prof = sampler__profile(r->s);
	sampler__finish_window(r->s);
	st = sampler__stats(r->s);
	st->spool_dropped = r->spool_dropped;
	fill_meta(r, prof, end_ns);

	rc = json_dump__to_buffer(prof, st, &json, &jlen);
	if (rc == 0)
		rc = gzip__compress(json, jlen, &gz, &gzlen);
	if (rc == 0) {
		spool__name(name, sizeof(name), r->window_start, r->uts.nodename);
		rc = spool__write(r->spool, name, gz, gzlen);
	}
	if (rc < 0) {
		log__error("window %s: cannot write its dump to %s: %s; the window is lost", r->window_id,
			   spool__path(r->spool), strerror(-rc));
	} else {
		r->spool_dropped = 0;
		log__debug("window %s: %llu samples, %zu bytes in %s", r->window_id,
			   (unsigned long long)profile__samples(prof), gzlen, name);
		if (r->up)
			uploader__kick(r->up);
	}
	spool__take_dropped(r->spool, &files, &bytes);
	if (files) {
		r->spool_dropped += files;
		log__warn("spool %s is full: dropped the %llu oldest dumps (%llu bytes) to stay within "
			  "spool_max_size/spool_max_age; is the collector reachable?",
			  spool__path(r->spool), (unsigned long long)files, (unsigned long long)bytes);
	}

	r->st_windows++;
	r->st_samples += profile__samples(prof);
	r->st_lost += st->lost;
	r->st_complete += st->unwind_complete;
	r->st_user += agent_stats__user_stacks(st);
	r->st_cpu_ns += st->agent_cpu_ns;
	apply_budget(r, st->agent_cpu_ns, end_ns > r->window_start ? end_ns - r->window_start : 0);

	free(json);
	free(gz);
	sampler__reset_window(r->s);
	rc = sampler__compact_names(r->s, r->conf.names_max_size);
	if (rc < 0)
		log__warn("names: cannot compact them (%s); trying again after the next window",
			  strerror(-rc));
	else if (rc > 0)
		log__info("names: compacted past names_max_size (%llu bytes) to %llu bytes",
			  (unsigned long long)r->conf.names_max_size,
			  (unsigned long long)sampler__names_bytes(r->s));
	r->window_start = end_ns;
	r->window_end = next_boundary(end_ns, r->conf.interval_ns);
}

static void stats_line(struct run_state *r, uint64_t now_mono)
{
	struct uploader_stats us;
	uint64_t files = 0, bytes = 0, wall = now_mono - r->st_since;

	memset(&us, 0, sizeof(us));
	if (r->up)
		uploader__stats(r->up, &us);
	spool__depth(r->spool, &files, &bytes);
	log__notice("stats: %llu windows, %llu samples, %llu lost, %.1f%% of user stacks complete, "
		    "agent CPU %.2f%%, RSS %.1f MiB, spool %llu dumps (%.1f KiB), delivered %llu, "
		    "retries %llu, rejected %llu",
		    (unsigned long long)r->st_windows, (unsigned long long)r->st_samples,
		    (unsigned long long)r->st_lost,
		    r->st_user ? 100.0 * (double)r->st_complete / (double)r->st_user : 100.0,
		    wall ? 100.0 * (double)r->st_cpu_ns / (double)wall : 0.0,
		    (double)selfusage__rss_bytes() / 1048576.0, (unsigned long long)files,
		    (double)bytes / 1024.0, (unsigned long long)us.delivered,
		    (unsigned long long)us.retries, (unsigned long long)us.rejected);
	r->st_windows = r->st_samples = r->st_lost = r->st_complete = r->st_user = r->st_cpu_ns = 0;
	r->st_since = now_mono;
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* SIGHUP: a new configuration replaces the old one only if all of it is good. */
static void reload(struct run_state *r)
{
	struct conf nc;
	struct sink *sink = NULL;
	char err[1024];

	notify__send("RELOADING=1");
	if (load_conf(r, &nc, err, sizeof(err)) < 0) {
		log__error("reload failed: %s; keeping the previous configuration", err);
		goto out;
	}
	if (make_sink(r, &nc, &sink) < 0) {
		log__error("reload failed: the export settings do not work; keeping the previous "
			   "configuration");
		conf__free(&nc);
		goto out;
	}
	if (nc.frequency != r->conf.frequency || nc.stack_size != r->conf.stack_size ||
	    nc.max_frames != r->conf.max_frames || nc.per_pid != r->conf.per_pid ||
	    !same_str(nc.event, r->conf.event))
		log__notice("reload: sampling settings (frequency, stack_size, max_frames, event, "
			    "per_pid) take effect at the next restart");
	if (!same_str(nc.spool_dir, r->conf.spool_dir))
		log__notice("reload: spool_dir takes effect at the next restart; still using %s",
			    spool__path(r->spool));
	if (!same_str(nc.cache_dir, r->conf.cache_dir) || nc.cache_max_size != r->conf.cache_max_size)
		log__notice("reload: cache_dir and cache_max_size take effect at the next restart");
	/* what needs restarting keeps its running value */
	nc.frequency = r->conf.frequency;
	nc.stack_size = r->conf.stack_size;
	nc.max_frames = r->conf.max_frames;
	nc.per_pid = r->conf.per_pid;
	{
		char *t = nc.event;

		nc.event = r->conf.event;
		r->conf.event = t;
		t = nc.spool_dir;
		nc.spool_dir = r->conf.spool_dir;
		r->conf.spool_dir = t;
		t = nc.cache_dir;
		nc.cache_dir = r->conf.cache_dir;
		r->conf.cache_dir = t;
		nc.cache_max_size = r->conf.cache_max_size;
	}
	spool__set_limits(r->spool, nc.spool_max_size, nc.spool_max_age_ns);
	uploader__set_sink(r->up, sink);
	apply_logging(&nc);
	conf__free(&r->conf);
	r->conf = nc;
	log__notice("configuration reloaded from %s", r->conf_path);
out:
	notify__send("READY=1");
}

/* Blocks the signals we handle while creating threads, so that only the
 * sampling thread ever runs the handlers. */
static void block_signals(int block, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	if (block)
		pthread_sigmask(SIG_BLOCK, &set, old);
	else
		pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int start(struct run_state *r)
{
	struct sampler_opts so;
	struct sampler_error serr;
	struct spool_opts spo;
	struct uploader_opts uo;
	struct sink *sink = NULL;
	sigset_t old;
	int rc;

	memset(&spo, 0, sizeof(spo));
	spo.dir = r->conf.spool_dir;
	spo.max_bytes = r->conf.spool_max_size;
	spo.max_age_ns = r->conf.spool_max_age_ns;
	rc = spool__open(&spo, &r->spool);
	if (rc < 0) {
		log__error("spool_dir %s: %s%s", r->conf.spool_dir, strerror(-rc),
			   rc == -EPERM ? " (it must be a directory of ours, not writable by others)" :
			   rc == -EBUSY ? " (another smolder run is using this spool)" : "");
		return rc;
	}

	r->cache = startup__open_cache(r->conf.cache_dir, r->conf.cache_max_size);

	memset(&so, 0, sizeof(so));
	so.cache = r->cache;
	so.freq_hz = r->conf.frequency;
	so.stack_size = r->conf.stack_size;
	so.event = r->conf.event;
	so.per_pid = r->conf.per_pid;
	so.max_frames = r->conf.max_frames;
	so.system_wide = 1;
	/* before start-up (the /proc scan, kallsyms) and the drop of CAP_SYS_NICE */
	rc = privileges__raise_priority(r->conf.nice);
	if (rc < 0)
		log__info("could not set nice %d: %s", r->conf.nice, strerror(-rc));
	rc = sampler__new(&so, &r->s, &serr);
	if (rc < 0) {
		startup__log_open_error(&serr, 1, r->conf.event);
		return rc;
	}

	/* The events are open: keep only what reading /proc, binaries and
	 * kallsyms needs, before any other thread exists (capabilities are per
	 * thread; the uploader inherits the reduced set). */
	rc = privileges__drop_except(privileges__daemon_keep());
	if (rc < 0)
		log__warn("could not drop capabilities: %s", strerror(-rc));

	memset(&uo, 0, sizeof(uo));
	uo.spool = r->spool;
	uo.backoff_min_ms = r->conf.backoff_min_ns / 1000000;
	uo.backoff_max_ms = r->conf.backoff_max_ns / 1000000;
	uo.log = uploader_log;
	block_signals(1, &old);
	rc = uploader__start(&uo, &r->up);
	block_signals(0, &old);
	if (rc < 0) {
		log__error("starting the uploader thread: %s", strerror(-rc));
		return rc;
	}
	rc = make_sink(r, &r->conf, &sink);
	if (rc < 0)
		return rc;
	uploader__set_sink(r->up, sink);
	return 0;
}

int run_cmd__main(int argc, char **argv)
{
	struct run_state r;
	const char *pidfile = NULL;
	char err[1024];
	int detach = 0, pidfd = -1, rc, status = 0;
	uint64_t files = 0, bytes = 0;

	memset(&r, 0, sizeof(r));
	r.conf_path = CONF_DEFAULT_PATH;
	rc = parse_args(argc, argv, &r, &detach, &pidfile);
	if (rc)
		return rc == 1 ? 0 : 2;
	if (load_conf(&r, &r.conf, err, sizeof(err)) < 0) {
		log__error("%s", err);
		return 2;
	}
	if (!r.conf_explicit && strcmp(r.conf_path, CONF_DEFAULT_PATH) == 0 && access(r.conf_path, F_OK) != 0)
		log__notice("no %s: using the defaults", CONF_DEFAULT_PATH);
	apply_logging(&r.conf);
	uname(&r.uts);
	install_handlers();

	if (detach) {
		rc = detach__start();
		if (rc < 0) {
			log__error("cannot detach: %s", strerror(-rc));
			conf__free(&r.conf);
			return 1;
		}
	}
	if (pidfile) {
		pidfd = pidfile__create(pidfile);
		if (pidfd < 0) {
			log__error("pidfile %s: %s%s", pidfile, strerror(-pidfd),
				   pidfd == -EWOULDBLOCK ? " (is another smolder running?)" : "");
			status = 1;
			goto out;
		}
	}
	if (start(&r) < 0) {
		status = 1;
		goto out;
	}

	sampler__enable(r.s);
	r.freq_now = r.conf.frequency;
	r.window_start = clock__real_ns();
	r.window_end = next_boundary(r.window_start, r.conf.interval_ns);
	r.st_since = clock__mono_ns();
	spool__depth(r.spool, &files, &bytes);
	log__notice("running: %s, %u Hz, windows of %.3gs, export %s%s%s, spool %s (%llu dumps waiting)",
		    sampler__mode(r.s), r.conf.frequency, (double)r.conf.interval_ns / 1e9,
		    r.conf.export == CONF_EXPORT_JSON ? "json" :
		    r.conf.export == CONF_EXPORT_PYROSCOPE ? "pyroscope" : "none",
		    r.conf.url ? " to " : "", r.conf.url ? r.conf.url : "", r.conf.spool_dir,
		    (unsigned long long)files);
	notify__send("READY=1");
	detach__done(1);
	if (r.up)
		uploader__kick(r.up); /* what an earlier run left in the spool */

	while (!sig_stop) {
		uint64_t now = clock__real_ns(), mono = clock__mono_ns();
		int timeout_ms;

		if (sig_hup) {
			sig_hup = 0;
			reload(&r);
		}
		if (sig_usr1) {
			sig_usr1 = 0;
			rotate(&r, now);
			continue;
		}
		if (now >= r.window_end) {
			rotate(&r, r.window_end);
			continue;
		}
		if (r.conf.stats_interval_ns && mono - r.st_since >= r.conf.stats_interval_ns)
			stats_line(&r, mono);
		timeout_ms = (int)((r.window_end - now) / 1000000) + 1;
		if (timeout_ms > PERF_DEFAULT_POLL_MS)
			timeout_ms = PERF_DEFAULT_POLL_MS;
		rc = sampler__poll(r.s, timeout_ms);
		if (rc < 0) {
			log__error("poll: %s", strerror(-rc));
			status = 1;
			break;
		}
	}
	notify__send("STOPPING=1");
	log__notice("stopping (%s): flushing the current window",
		    sig_stop == SIGINT ? "SIGINT" : sig_stop == SIGTERM ? "SIGTERM" : "error");
	sampler__disable(r.s);
	sampler__drain(r.s);
	rotate(&r, clock__real_ns());
out:
	if (r.up)
		uploader__stop(r.up, clock__mono_ns() + STOP_DELIVERY_NS);
	if (r.spool) {
		spool__depth(r.spool, &files, &bytes);
		if (files && status == 0)
			log__notice("%llu dumps stay in %s for the next start (or 'smolder upload')",
				    (unsigned long long)files, spool__path(r.spool));
	}
	sampler__delete(r.s);
	cachedir__delete(r.cache);
	spool__close(r.spool);
	detach__done(status == 0);
	pidfile__remove(pidfile, pidfd);
	conf__free(&r.conf);
	return status;
}
