/* The always-on service: start-up, the window loop, reload and stop. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "collector/perf_events.h"
#include "collector/sampler.h"
#include "common/cachedir.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/redact.h"
#include "daemon/cpu_budget.h"
#include "daemon/conf.h"
#include "daemon/detach.h"
#include "daemon/notify.h"
#include "daemon/pidfile.h"
#include "daemon/privileges.h"
#include "daemon/service.h"
#include "daemon/signals.h"
#include "daemon/sink_setup.h"
#include "daemon/startup.h"
#include "daemon/stats_line.h"
#include "daemon/window.h"
#include "export/sink.h"
#include "export/spool.h"
#include "export/uploader.h"
#include "profile/agent_stats.h"

/* TERM/INT: the current window is flushed and delivery tried this long, so
 * that the whole stop stays within systemd's and the init script's patience. */
#define STOP_DELIVERY_NS 3000000000ull

struct service {
	const struct service_opts *opts;
	struct conf conf;
	struct utsname uts;

	struct sampler *s;
	struct spool *spool;
	struct cachedir *cache; /* NULL: none */
	struct uploader *up;

	struct window window;
	struct cpu_budget budget;
	bool budget_switch_warned; /* said once: off-cpu's switches cost more */
	struct stats_line stats;
};

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
static int make_sink(struct service *sv, const struct conf *c, struct sink **out)
{
	*out = NULL;
	if (c->export == CONF_EXPORT_NONE)
		return 0;
	return sink_setup__new(c, abort_uploads, sv->up, out);
}

/* The switches a second off-cpu followed in the window (0 when it is not
 * recorded). */
static double off_cpu_switch_rate(struct service *sv, uint64_t wall_ns)
{
	size_t i;

	for (i = 0; wall_ns && i < sampler__nwindows(sv->s); i++)
		if (strcmp(sampler__window_event(sv->s, i), "off-cpu") == 0)
			return (double)sampler__window_stats(sv->s, i)->off_cpu_switches * 1e9 /
			       (double)wall_ns;
	return 0;
}

/* The budget's verdict on the window that ended, applied to the sampler. */
static void apply_budget(struct service *sv, uint64_t cpu_ns, uint64_t wall_ns)
{
	double used_bp = 0, switches;
	unsigned next = cpu_budget__next_hz(&sv->budget, cpu_ns, wall_ns, &used_bp);

	/* At 1 Hz and still over: off-cpu follows every switch of the host,
	 * which no sample rate lowers. Said once, not hidden. */
	if (next == 1 && sv->budget.hz == 1 && sv->conf.cpu_budget_bp &&
	    used_bp > (double)sv->conf.cpu_budget_bp && !sv->budget_switch_warned &&
	    (switches = off_cpu_switch_rate(sv, wall_ns)) > 0) {
		log__warn("cpu_budget: sampling at 1 Hz still costs %.2f%% of a CPU (budget %.2f%%): "
			  "off-cpu follows every one of the host's %.0f context switches a second, which "
			  "no sample rate lowers; raise cpu_budget or take off-cpu out of events",
			  used_bp / 100.0, (double)sv->conf.cpu_budget_bp / 100.0, switches);
		sv->budget_switch_warned = true;
	}
	if (next == sv->budget.hz)
		return;
	if (sampler__set_frequency(sv->s, next) < 0) {
		log__warn("cpu_budget: cannot change the sampling frequency to %u Hz", next);
		return;
	}
	log__notice("cpu_budget: sampling cost %.2f%% of a CPU (budget %.2f%%): sampling at %u Hz "
		    "(configured %u Hz)", used_bp / 100.0, (double)sv->conf.cpu_budget_bp / 100.0, next,
		    sv->conf.frequency);
	cpu_budget__applied(&sv->budget, next);
}

/* Between windows the interned names are bounded (names_max_size). */
static void compact_names(struct service *sv)
{
	int rc = sampler__compact_names(sv->s, sv->conf.names_max_size);

	if (rc < 0)
		log__warn("names: cannot compact them (%s); trying again after the next window",
			  strerror(-rc));
	else if (rc > 0)
		log__info("names: compacted past names_max_size (%llu bytes) to %llu bytes",
			  (unsigned long long)sv->conf.names_max_size,
			  (unsigned long long)sampler__names_bytes(sv->s));
}

/* Ends the window at end_ns: its dump goes to the spool, the next starts. */
static void rotate(struct service *sv, uint64_t end_ns)
{
	const struct agent_stats *st = sampler__stats(sv->s);
	uint64_t start = sv->window.start_ns;

	sampler__poll(sv->s, 0);
	if (window__spool(&sv->window, end_ns, sv->s, &sv->conf, sv->budget.hz, &sv->uts,
			  sv->spool) == 0 && sv->up)
		uploader__kick(sv->up);
	stats_line__add(&sv->stats, sampler__profile(sv->s), st);
	/* the steady cost: one-off loading must not starve the sampling */
	apply_budget(sv, st->agent_cpu_ns - st->agent_load_cpu_ns, end_ns > start ? end_ns - start : 0);
	sampler__reset_window(sv->s);
	compact_names(sv);
	window__start(&sv->window, end_ns, sv->conf.interval_ns);
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void swap_str(char **a, char **b)
{
	char *t = *a;

	*a = *b;
	*b = t;
}

/* What needs a restart keeps its running value in the new configuration,
 * and the operator is told. */
static void keep_restart_keys(struct service *sv, struct conf *nc)
{
	struct conf *c = &sv->conf;

	if (nc->frequency != c->frequency || nc->stack_size != c->stack_size ||
	    nc->max_frames != c->max_frames || nc->per_pid != c->per_pid ||
	    nc->group_by_thread != c->group_by_thread ||
	    nc->python_eval_frames != c->python_eval_frames || nc->python_lines != c->python_lines ||
	    !same_str(nc->event, c->event))
		log__notice("reload: sampling settings (frequency, stack_size, max_frames, event, "
			    "per_pid, group_by, python_eval_frames, lines) take effect at the next "
			    "restart");
	if (!same_str(nc->spool_dir, c->spool_dir))
		log__notice("reload: spool_dir takes effect at the next restart; still using %s",
			    spool__path(sv->spool));
	if (!same_str(nc->cache_dir, c->cache_dir) || nc->cache_max_size != c->cache_max_size)
		log__notice("reload: cache_dir and cache_max_size take effect at the next restart");
	if (nc->load_max_size != c->load_max_size || nc->load_cpu_budget_bp != c->load_cpu_budget_bp)
		log__notice("reload: load_max_size and load_cpu_budget take effect at the next restart");
	if (nc->names != c->names)
		log__notice("reload: names takes effect at the next restart");
	nc->frequency = c->frequency;
	nc->stack_size = c->stack_size;
	nc->max_frames = c->max_frames;
	nc->per_pid = c->per_pid;
	nc->group_by_thread = c->group_by_thread;
	nc->python_eval_frames = c->python_eval_frames;
	nc->python_lines = c->python_lines;
	nc->cache_max_size = c->cache_max_size;
	nc->load_max_size = c->load_max_size;
	nc->names = c->names;
	nc->load_cpu_budget_bp = c->load_cpu_budget_bp;
	swap_str(&nc->event, &c->event);
	swap_str(&nc->spool_dir, &c->spool_dir);
	swap_str(&nc->cache_dir, &c->cache_dir);
}

/* Said at every start and reload: tls_verify = no (the credentials and the
 * profiles go to whoever answers), and credentials in a file others read. */
static void warn_insecure(const struct service *sv, const struct conf *c)
{
	char url[512], msg[1024];

	if (conf_source__exposes_secret(&sv->opts->conf, c, msg, sizeof(msg)))
		log__warn("%s", msg);
	if (c->export == CONF_EXPORT_NONE || c->tls_verify)
		return;
	log__warn("tls_verify = no: the collector's certificate is not checked; the credentials "
		  "and the profiles go to whoever answers for %s",
		  redact__url(c->url, url, sizeof(url)));
}

/* SIGHUP: a new configuration replaces the old one only if all of it is good. */
static void reload(struct service *sv)
{
	struct conf nc;
	struct sink *sink = NULL;
	char err[1024];

	notify__send("RELOADING=1");
	if (conf_source__load(&sv->opts->conf, &nc, err, sizeof(err)) < 0) {
		log__error("reload failed: %s; keeping the previous configuration", err);
		goto out;
	}
	if (make_sink(sv, &nc, &sink) < 0) {
		log__error("reload failed: the export settings do not work; keeping the previous "
			   "configuration");
		conf__free(&nc);
		goto out;
	}
	keep_restart_keys(sv, &nc);
	spool__set_limits(sv->spool, nc.spool_max_size, nc.spool_max_age_ns);
	uploader__set_sink(sv->up, sink);
	apply_logging(&nc);
	conf__free(&sv->conf);
	sv->conf = nc;
	log__notice("configuration reloaded from %s", sv->opts->conf.path);
	warn_insecure(sv, &sv->conf);
out:
	notify__send("READY=1");
}

static int open_spool(struct service *sv)
{
	struct spool_opts spo;
	int rc;

	memset(&spo, 0, sizeof(spo));
	spo.dir = sv->conf.spool_dir;
	spo.max_bytes = sv->conf.spool_max_size;
	spo.max_age_ns = sv->conf.spool_max_age_ns;
	rc = spool__open(&spo, &sv->spool);
	if (rc < 0)
		log__error("spool_dir %s: %s%s", sv->conf.spool_dir, strerror(-rc),
			   rc == -EPERM ? " (it must be a directory of ours, not writable by others)" :
			   rc == -EBUSY ? " (another smolder run is using this spool)" : "");
	return rc;
}

static int open_sampler(struct service *sv)
{
	struct sampler_opts so;
	struct sampler_error serr;
	int rc;

	memset(&so, 0, sizeof(so));
	so.cache = sv->cache;
	so.freq_hz = sv->conf.frequency;
	so.stack_size = sv->conf.stack_size;
	so.event = sv->conf.event;
	so.per_pid = sv->conf.per_pid;
	so.group_by_thread = sv->conf.group_by_thread;
	so.keep_native = sv->conf.python_eval_frames != 0;
	so.lines = sv->conf.python_lines != 0;
	so.max_frames = sv->conf.max_frames;
	so.debug_max_bytes = sv->conf.load_max_size;
	so.debug_load_ppm = sv->conf.load_cpu_budget_bp * 100;
	so.names = sv->conf.names;
	so.system_wide = 1;
	/* before start-up (the /proc scan, kallsyms) and the drop of CAP_SYS_NICE */
	rc = privileges__raise_priority(sv->conf.nice);
	if (rc < 0)
		log__info("could not set nice %d: %s", sv->conf.nice, strerror(-rc));
	rc = sampler__new(&so, &sv->s, &serr);
	if (rc < 0)
		startup__log_open_error(&serr, 1, sv->conf.event);
	return rc;
}

static int start_uploader(struct service *sv)
{
	struct uploader_opts uo;
	struct sink *sink = NULL;
	sigset_t old;
	int rc;

	memset(&uo, 0, sizeof(uo));
	uo.spool = sv->spool;
	uo.backoff_min_ms = sv->conf.backoff_min_ns / 1000000;
	uo.backoff_max_ms = sv->conf.backoff_max_ns / 1000000;
	/* honouring a longer Retry-After would only age the dumps out */
	uo.retry_after_max_ms = sv->conf.spool_max_age_ns / 1000000;
	uo.log = uploader_log;
	/* only the sampling thread runs the signal handlers */
	signals__block(&old);
	rc = uploader__start(&uo, &sv->up);
	signals__restore(&old);
	if (rc < 0) {
		log__error("starting the uploader thread: %s", strerror(-rc));
		return rc;
	}
	rc = make_sink(sv, &sv->conf, &sink);
	if (rc < 0)
		return rc;
	uploader__set_sink(sv->up, sink);
	return 0;
}

static int start(struct service *sv)
{
	int rc;

	rc = open_spool(sv);
	if (rc < 0)
		return rc;
	sv->cache = startup__open_cache(sv->conf.cache_dir, sv->conf.cache_max_size);
	rc = open_sampler(sv);
	if (rc < 0)
		return rc;
	/* The events are open: keep only what reading /proc, binaries and
	 * kallsyms needs, before any other thread exists (capabilities are per
	 * thread; the uploader inherits the reduced set). */
	rc = privileges__drop_except(privileges__daemon_keep());
	if (rc < 0)
		log__warn("could not drop capabilities: %s", strerror(-rc));
	return start_uploader(sv);
}

static void log_running(const struct service *sv)
{
	const struct conf *c = &sv->conf;
	uint64_t files = 0, bytes = 0;
	char url[512];

	spool__depth(sv->spool, &files, &bytes);
	log__notice("running: %s, %s at %u Hz, windows of %.3gs, export %s%s%s, spool %s (%llu dumps "
		    "waiting)", sampler__mode(sv->s), c->event, c->frequency, (double)c->interval_ns / 1e9,
		    c->export == CONF_EXPORT_JSON ? "json" :
		    c->export == CONF_EXPORT_PYROSCOPE ? "pyroscope" : "none",
		    c->url ? " to " : "", c->url ? redact__url(c->url, url, sizeof(url)) : "",
		    c->spool_dir, (unsigned long long)files);
	warn_insecure(sv, c);
}

/* Samples until a stop signal; returns 0, or 1 when polling failed. */
static int loop(struct service *sv)
{
	while (!signals__stop_requested()) {
		uint64_t now = clock__real_ns(), mono = clock__mono_ns();
		int timeout_ms, rc;

		if (signals__take_reload())
			reload(sv);
		if (signals__take_flush()) {
			rotate(sv, now);
			continue;
		}
		if (now >= sv->window.end_ns) {
			rotate(sv, sv->window.end_ns);
			continue;
		}
		if (stats_line__due(&sv->stats, mono, sv->conf.stats_interval_ns))
			stats_line__log(&sv->stats, mono, sv->spool, sv->up,
					sv->conf.export != CONF_EXPORT_NONE && !sv->conf.tls_verify);
		timeout_ms = (int)((sv->window.end_ns - now) / 1000000) + 1;
		if (timeout_ms > PERF_DEFAULT_POLL_MS)
			timeout_ms = PERF_DEFAULT_POLL_MS;
		rc = sampler__poll(sv->s, timeout_ms);
		if (rc < 0) {
			log__error("poll: %s", strerror(-rc));
			return 1;
		}
	}
	return 0;
}

static int run_started(struct service *sv)
{
	int status, sig;

	sampler__enable(sv->s);
	cpu_budget__init(&sv->budget, sv->conf.frequency, sv->conf.cpu_budget_bp);
	window__start(&sv->window, clock__real_ns(), sv->conf.interval_ns);
	stats_line__init(&sv->stats, clock__mono_ns());
	log_running(sv);
	notify__send("READY=1");
	detach__done(1);
	if (sv->up)
		uploader__kick(sv->up); /* what an earlier run left in the spool */
	status = loop(sv);
	notify__send("STOPPING=1");
	sig = signals__stop_requested();
	log__notice("stopping (%s): flushing the current window",
		    sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "error");
	sampler__disable(sv->s);
	sampler__drain(sv->s);
	rotate(sv, clock__real_ns());
	return status;
}

static void stop(struct service *sv, int status)
{
	uint64_t files = 0, bytes = 0;

	if (sv->up)
		uploader__stop(sv->up, clock__mono_ns() + STOP_DELIVERY_NS);
	if (sv->spool) {
		spool__depth(sv->spool, &files, &bytes);
		if (files && status == 0)
			log__notice("%llu dumps stay in %s for the next start (or 'smolder upload')",
				    (unsigned long long)files, spool__path(sv->spool));
	}
	sampler__delete(sv->s);
	cachedir__delete(sv->cache);
	spool__close(sv->spool);
}

int service__run(const struct service_opts *o)
{
	struct service sv;
	char err[1024];
	int pidfd = -1, status = 1;

	memset(&sv, 0, sizeof(sv));
	sv.opts = o;
	if (conf_source__load(&o->conf, &sv.conf, err, sizeof(err)) < 0) {
		log__error("%s", err);
		return 2;
	}
	if (conf_source__uses_defaults(&o->conf))
		log__notice("no %s: using the defaults", o->conf.path);
	apply_logging(&sv.conf);
	uname(&sv.uts);
	signals__install();
	if (o->detach) {
		int rc = detach__start();

		if (rc < 0) {
			log__error("cannot detach: %s", strerror(-rc));
			goto out_conf;
		}
	}
	if (o->pidfile) {
		pidfd = pidfile__create(o->pidfile);
		if (pidfd < 0) {
			log__error("pidfile %s: %s%s", o->pidfile, strerror(-pidfd),
				   pidfd == -EWOULDBLOCK ? " (is another smolder running?)"
				   : pidfd == -EPERM ? " (not a regular file of ours with a single name: "
						       "another user may have put it there)"
				   : pidfd == -ELOOP ? " (a symbolic link, not followed)" : "");
			goto out_stop;
		}
	}
	if (start(&sv) == 0)
		status = run_started(&sv);
out_stop:
	stop(&sv, status);
	detach__done(status == 0);
	pidfile__remove(o->pidfile, pidfd);
out_conf:
	conf__free(&sv.conf);
	return status;
}
