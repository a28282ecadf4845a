/* `smolder record`: profile the machine, some processes or a command once,
 * and write the result in any format of export/encode.h (a top table by
 * default). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/record_output.h"
#include "daemon/startup.h"
#include "daemon/conf.h"
#include "collector/perf_events.h"
#include "daemon/privileges.h"
#include "profile/agent_stats.h"
#include "profile/event_list.h"
#include "profile/profile.h"
#include "collector/sampler.h"
#include "common/cachedir.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/clock.h"
#include "common/units.h"
#include "export/encode.h"
#include "export/out_path.h"

#define MAX_PIDS 1024

struct record_args {
	struct sampler_opts so;
	int pids[MAX_PIDS];
	uint64_t duration_ns; /* 0 = until stopped */
	const char *output;   /* NULL: standard output */
	int output_given;     /* -o, - and /dev/stdout included */
	struct event_list events; /* --event, one window and dump document each */
	char events_spec[64];     /* ... as the sampler takes it */
	enum encode_format format;
	int format_given;     /* else json with -o, top without */
	int quiet;
	const char *cache_dir; /* NULL: none */
	char **cmd; /* after "--" */
};

/* Switch-outs sampled a second per CPU by default for --event off-cpu of
 * some processes (-p, a command); -a takes the CPU default. */
#define OFFCPU_DEFAULT_HZ 999

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig) { stop_requested = sig; }

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smolder record [-a | -p PID[,PID...] | -- COMMAND [ARGS...]] [OPTIONS]\n"
		"\n"
		"Samples user and kernel stacks, unwinds them from DWARF CFI and aggregates\n"
		"them. Without -o, prints the top 20 functions by self and total share.\n"
		"\n"
		"Targets (default: -a):\n"
		"  -a, --all-cpus          every process on every CPU\n"
		"  -p, --pid PID[,PID...]  these processes with all their threads and every\n"
		"                          process that descends from them, those started\n"
		"                          during the recording included\n"
		"  -- COMMAND [ARGS...]    run COMMAND and profile it, its threads and the\n"
		"                          processes it starts, until it exits\n"
		"\n"
		"Options:\n"
		"  -F, --freq HZ           samples per second per CPU (default 99; off-cpu of\n"
		"                          -p or a command 999)\n"
		"  -d, --duration DURATION stop after DURATION: seconds, or 500ms, 5m, 1h30m\n"
		"                          (default: until Ctrl-C, or until the command\n"
		"                          exits, or every process of the -p trees)\n"
		"  -o, --output FILE       write the result to FILE, replaced atomically (mode\n"
		"                          0600), never through a symlink; - or /dev/stdout:\n"
		"                          standard output; a FIFO or character device only\n"
		"                          if it is yours or root's. -d bounds the write too\n"
		"      --format FMT        json (the smolder.profile/v1 dump; default with -o),\n"
		"                          top (self/total table; default without -o),\n"
		"                          collapsed (\"comm;root;...;leaf count\" lines for\n"
		"                          flamegraph.pl / speedscope), pprof (gzip'd\n"
		"                          profile.proto, for go tool pprof; needs -o or a\n"
		"                          pipe), svg (an interactive flame graph)\n"
		"      --stack-size BYTES  user stack bytes copied per sample, a multiple of 8\n"
		"                          up to 65528 (default 32768)\n"
		"      --max-frames N      user frames kept per stack (default 512)\n"
		"      --event EVENTS      cpu-clock (default, works without a PMU), cycles,\n"
		"                          or off-cpu: where threads wait (sleep, I/O, locks),\n"
		"                          weighted by the nanoseconds until they run again;\n"
		"                          -F is then the waits sampled a second per CPU\n"
		"                          (before Linux 4.3: by the sched_switch tracepoint,\n"
		"                          events on every CPU). Both: cpu-clock,off-cpu, a\n"
		"                          JSON document (or a top table) each, -F each one's\n"
		"                          rate\n"
		"      --per-pid           one profile per process id instead of per executable\n"
		"      --group-by thread   one profile per thread name as well (a thread label;\n"
		"                          a top table per thread, a thread frame under each\n"
		"                          process in svg and collapsed)\n"
		"      --python-eval-frames  keep CPython's native eval-loop frames beside the\n"
		"                          Python frames they ran (default: replaced by them)\n"
		"      --lines, --python-lines  frames carry their file and line: native\n"
		"                          code's from its DWARF line tables (\"hot (x.c:12)\",\n"
		"                          a caller at its call, an inlined frame's caller at\n"
		"                          the inlined call), Go's from its pc-line table,\n"
		"                          Java's and interpreters' (\"app.Main.run\n"
		"                          (Main.java:7)\", \"handler (app.py:42)\")\n"
		"      --names DETAIL      short (default): C++, Rust and D functions without\n"
		"                          parameters or template arguments, so instantiations\n"
		"                          merge; full: the whole demangled name\n"
		"      --cache-dir DIR     keep kernel symbols, decompressed debug sections and\n"
		"                          binaries' inline indexes there for the next start\n"
		"                          (default " CACHEDIR_DEFAULT_PATH ",\n"
		"                          the daemon's; used only if it is ours and private)\n"
		"      --no-cache          neither read nor write a cache\n"
		"  -q, --quiet             no progress line\n"
		"  -h, --help              this help\n");
}

static int parse_pids(const char *arg, struct record_args *a)
{
	char buf[4096];
	char *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf)) {
		log__error("-p: list too long");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;

		if (parse__int(tok, 1, 0x3fffffff, &v) < 0) {
			log__error("-p: '%s' is not a process id", tok);
			return -1;
		}
		if (a->so.npids >= MAX_PIDS) {
			log__error("-p: at most %d processes", MAX_PIDS);
			return -1;
		}
		a->pids[a->so.npids++] = (int)v;
	}
	if (a->so.npids == 0) {
		log__error("-p: no process id given");
		return -1;
	}
	return 0;
}

enum { OPT_FORMAT = 256, OPT_STACK, OPT_FRAMES, OPT_EVENT, OPT_PERPID, OPT_PYEVAL, OPT_PYLINES, OPT_CACHE, OPT_NOCACHE,
       OPT_NAMES, OPT_GROUP_BY };

/* One option that takes a value, or a flag of the sampler. Returns 0, or 2
 * after logging a usage error. */
static int parse_option(int c, const char *arg, struct record_args *a)
{
	long v;

	switch (c) {
	case 'p':
		return parse_pids(arg, a) < 0 ? 2 : 0;
	case 'F':
		if (parse__int(arg, 1, 100000, &v) < 0) {
			log__error("-F: '%s' is not a frequency in Hz (1 to 100000)", arg);
			return 2;
		}
		a->so.freq_hz = (unsigned)v;
		return 0;
	case 'd':
		if (units__parse_duration(arg, &a->duration_ns) < 0 || a->duration_ns == 0) {
			log__error("-d: '%s' is not a duration " UNITS_DURATION_HINT, arg);
			return 2;
		}
		return 0;
	case 'o':
		if (!*arg) {
			log__error("-o: empty file name");
			return 2;
		}
		a->output = out_path__is_stdout(arg) ? NULL : arg;
		a->output_given = 1;
		return 0;
	case OPT_FORMAT:
		if (encode__parse_format(arg, &a->format) < 0) {
			log__error("--format: unknown format '%s' (" ENCODE_FORMAT_NAMES ")", arg);
			return 2;
		}
		a->format_given = 1;
		return 0;
	case OPT_STACK:
		if (parse__int(arg, 8, 65528, &v) < 0 || v % 8) {
			log__error("--stack-size: '%s' must be a multiple of 8 from 8 to 65528", arg);
			return 2;
		}
		a->so.stack_size = (uint32_t)v;
		return 0;
	case OPT_FRAMES:
		if (parse__int(arg, 1, 1024, &v) < 0) {
			log__error("--max-frames: '%s' must be from 1 to 1024", arg);
			return 2;
		}
		a->so.max_frames = (size_t)v;
		return 0;
	case OPT_EVENT: {
		char err[160];

		if (event_list__parse(arg, &a->events, err, sizeof(err)) < 0) {
			log__error("--event: %s", err);
			return 2;
		}
		event_list__format(&a->events, a->events_spec, sizeof(a->events_spec));
		a->so.event = a->events_spec;
		return 0;
	}
	case OPT_GROUP_BY:
		if (strcmp(arg, "thread") != 0 && strcmp(arg, "process") != 0) {
			log__error("--group-by: '%s' is not thread or process", arg);
			return 2;
		}
		a->so.group_by_thread = strcmp(arg, "thread") == 0;
		return 0;
	case OPT_NAMES:
		if (name_detail__parse(arg, &a->so.names) < 0) {
			log__error("--names: '%s' is not short or full", arg);
			return 2;
		}
		return 0;
	case OPT_CACHE:
		if (arg[0] != '/') {
			log__error("--cache-dir: '%s' must be an absolute path", arg);
			return 2;
		}
		a->cache_dir = arg;
		return 0;
	}
	return 2;
}

/* The target (-a, -p or a command after "--") and what follows from it. */
static int check_target(int argc, char **argv, int all, struct record_args *a)
{
	if (optind < argc) {
		a->cmd = argv + optind;
		if (optind > 0 && strcmp(argv[optind - 1], "--") != 0) {
			log__error("unexpected argument '%s': put a command to profile after '--'", argv[optind]);
			return 2;
		}
	}
	if ((all != 0) + (a->so.npids != 0) + (a->cmd != NULL) > 1) {
		log__error("choose one target: -a, -p PID or -- COMMAND");
		return 2;
	}
	if (!a->format_given)
		a->format = a->output_given ? ENCODE_JSON : ENCODE_TOP;
	/* Two events are two documents: json holds them one after the
	 * other and top prints a table each; the other formats hold one
	 * profile, which `smolder report --event` makes from the dump. */
	if (a->events.n > 1 && a->format != ENCODE_JSON && a->format != ENCODE_TOP) {
		log__error("--format %s holds one event, --event %s gives two: record json (-o FILE) "
			   "and make each with smolder report --event NAME", encode__format_name(a->format),
			   a->events_spec);
		return 2;
	}
	if (encode__is_binary(a->format) && !a->output && isatty(STDOUT_FILENO)) {
		log__error("--format pprof is binary: give -o FILE or redirect standard output");
		return 2;
	}
	a->so.pids = a->pids;
	a->so.system_wide = !a->so.npids && !a->cmd;
	return 0;
}

static void set_defaults(struct record_args *a)
{
	a->so.freq_hz = 0; /* the events' defaults, set_rates */
	a->events.n = 1;
	a->events.name[0] = "cpu-clock";
	a->so.stack_size = PERF_DEFAULT_STACK;
	a->so.event = "cpu-clock";
	a->so.max_frames = 512;
	a->cache_dir = CACHEDIR_DEFAULT_PATH;
}

/* -F is each event's rate; else each has its own default. off-cpu: a
 * switch-out is sampled by count of every switch of its CPU, other
 * processes' included, so where the recording is of some processes their
 * waits have a share of the budget only: 99 a second left a program's
 * three threads 2 stacks in 3 s on a busy host. */
static void set_rates(struct record_args *a)
{
	unsigned off_hz = a->so.system_wide ? 99 : OFFCPU_DEFAULT_HZ;

	if (!event_list__cpu(&a->events)) {
		if (!a->so.freq_hz)
			a->so.freq_hz = off_hz;
	} else if (event_list__has(&a->events, "off-cpu")) {
		a->so.off_cpu_freq_hz = a->so.freq_hz ? a->so.freq_hz : off_hz;
	}
	if (!a->so.freq_hz)
		a->so.freq_hz = 99;
}

/* Returns 0 to go on, 1 when --help was shown, 2 on a usage error. */
static int parse_args(int argc, char **argv, struct record_args *a)
{
	static const struct option longopts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "freq", required_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "stack-size", required_argument, NULL, OPT_STACK },
		{ "max-frames", required_argument, NULL, OPT_FRAMES },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "per-pid", no_argument, NULL, OPT_PERPID },
		{ "group-by", required_argument, NULL, OPT_GROUP_BY },
		{ "python-eval-frames", no_argument, NULL, OPT_PYEVAL },
		{ "python-lines", no_argument, NULL, OPT_PYLINES },
		{ "lines", no_argument, NULL, OPT_PYLINES },
		{ "names", required_argument, NULL, OPT_NAMES },
		{ "cache-dir", required_argument, NULL, OPT_CACHE },
		{ "no-cache", no_argument, NULL, OPT_NOCACHE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, all = 0;

	set_defaults(a);
	opterr = 0;
	optind = 1;
	/* '+': stop at the first non-option, so the command's own flags stay its own */
	while ((c = getopt_long(argc, argv, "+ap:F:d:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = 1;
			break;
		case OPT_PERPID:
			a->so.per_pid = 1;
			break;
		case OPT_PYEVAL:
			a->so.keep_native = true;
			break;
		case OPT_PYLINES:
			a->so.lines = true;
			break;
		case OPT_NOCACHE:
			a->cache_dir = NULL;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			log__error("option '%s' needs a value (see 'smolder record --help')", argv[optind - 1]);
			return 2;
		case '?':
			if (optopt)
				log__error("unknown option '-%c' (see 'smolder record --help')", optopt);
			else
				log__error("unknown option '%s' (see 'smolder record --help')", argv[optind - 1]);
			return 2;
		default:
			if (parse_option(c, optarg, a))
				return 2;
			break;
		}
	}
	if (check_target(argc, argv, all, a))
		return 2;
	set_rates(a);
	return 0;
}

/* Forks the command stopped before exec: it waits on go[0] so the events
 * can be opened on its pid first. Exec failures come back on err_pipe. */
static pid_t spawn_stopped(char **cmd, int *go_fd, int *err_fd)
{
	int go[2], ep[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		int err = errno;

		close(go[0]);
		close(go[1]);
		return -err;
	}
	pid = fork();
	if (pid < 0) {
		int err = errno;

		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		return -err;
	}
	if (pid == 0) {
		char c;
		int err;

		close(go[1]);
		close(ep[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		err = errno;
		if (write(ep[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	*go_fd = go[1];
	*err_fd = ep[0];
	return pid;
}

static void progress(int on, double elapsed, const struct profile *prof,
		     const struct agent_stats *st)
{
	if (!on)
		return;
	fprintf(stderr, "\rsmolder: %6.1fs  %8llu samples  %6llu lost ", elapsed,
		(unsigned long long)profile__samples(prof), (unsigned long long)st->lost);
	fflush(stderr);
}

static int check_pids(const struct record_args *a)
{
	size_t i;

	for (i = 0; i < a->so.npids; i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d", a->pids[i]);
		if (stat(path, &st) < 0) {
			log__error("-p: no process with pid %d", a->pids[i]);
			return -1;
		}
	}
	return 0;
}

/* Fails before sampling, not after, when the output cannot be written. */
static int check_output(const char *path)
{
	enum out_path_refusal why;
	int rc = out_path__check(path, &why);

	if (rc < 0)
		log__error("-o %s: %s", path, out_path__strerror(rc, why));
	return rc;
}

/* A poll interval, shortened to end a -d run on time. */
static int poll_timeout_ms(const struct record_args *a, double elapsed)
{
	double left_ms = ((double)a->duration_ns / 1e9 - elapsed) * 1000.0 + 1.0;

	if (!a->duration_ns || left_ms >= PERF_DEFAULT_POLL_MS)
		return PERF_DEFAULT_POLL_MS;
	return left_ms < 1.0 ? 1 : (int)left_ms;
}

/* How long after a -d recording's end its backlog may still be unwound: a
 * tenth of the duration, within 250 ms..5 s (an unstarved agent needs a few
 * milliseconds). Past it, the recording ends anyway, counting what was left
 * as dropped. */
static uint64_t processing_grace_ns(uint64_t duration_ns)
{
	uint64_t g = duration_ns / 10;

	if (g < 250000000ull)
		g = 250000000ull;
	return g < 5000000000ull ? g : 5000000000ull;
}

/* How long a -d recording's result may wait for its reader (a FIFO or a
 * pipe that is not read): the processing grace, at least a second. Past
 * it the command ends with an error instead of outliving its -d. */
static uint64_t write_grace_ns(uint64_t duration_ns)
{
	uint64_t g = processing_grace_ns(duration_ns);

	return g > NS_PER_S ? g : NS_PER_S;
}

/* One recording, from the options to the written result. */
struct recording {
	struct record_args a;
	struct sampler *s;
	struct cachedir *cache;
	struct utsname u;
	pid_t child;          /* the command, -1 when none (or reaped) */
	int go_fd, exec_err_fd;
	uint64_t start_mono, start_real;
	uint64_t alive_checked;  /* when -p targets were last looked for */
};

/* Targets followed by their threads' events miss what they started before
 * the recording and hardly ever sample threads shorter than a sampling
 * period: say so, and what would follow the whole trees. */
static void note_targets(const struct recording *r)
{
	const struct perf_features *f = sampler__features(r->s);
	const char *what = r->a.cmd ? "the command through events on its threads"
				    : "the -p processes through events on their threads";
	const char *missed = r->a.cmd ? "threads and processes that live less than a sampling "
					"period are hardly ever sampled"
				      : "processes they started before the recording are missed, and "
					"threads and processes that live less than a sampling period "
					"are hardly ever sampled";
	int why;

	if (sampler__follows_trees(r->s, &why) != 0)
		return;
	if (why == EOPNOTSUPP) {
		log__notice("following %s: this kernel's side-band records carry no time (before "
			    "Linux 2.6.38); %s", what, missed);
		return;
	}
	log__notice("following %s: events on every CPU are not permitted (%s, perf_event_paranoid "
		    "%d); %s. To follow the whole process trees, run as root, grant CAP_PERFMON "
		    "(Linux 5.8+) or CAP_SYS_ADMIN, or set perf_event_paranoid to 0", what,
		    strerror(why), f->paranoid_known ? f->paranoid : -1, missed);
}

/* Everything before sampling starts: the command forked (stopped), the
 * priority, the cache, the events opened. Returns 0 or 1 after logging. */
static int prepare(struct recording *r)
{
	struct sampler_error err;
	struct sigaction sa;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (r->a.cmd) {
		r->child = spawn_stopped(r->a.cmd, &r->go_fd, &r->exec_err_fd);
		if (r->child < 0) {
			log__error("fork: %s", strerror((int)-r->child));
			r->child = -1;
			return 1;
		}
		r->a.pids[0] = r->child;
		r->a.so.npids = 1;
		r->a.so.pids = r->a.pids;
	}
	/* after the child is forked: the command keeps its own priority */
	rc = privileges__raise_priority(CONF_DEFAULT_NICE);
	if (rc < 0)
		log__debug("could not set nice %d: %s", CONF_DEFAULT_NICE, strerror(-rc));
	r->cache = startup__open_cache(r->a.cache_dir, CACHEDIR_DEFAULT_MAX_BYTES);
	r->a.so.cache = r->cache;
	rc = sampler__new(&r->a.so, &r->s, &err);
	if (rc < 0) {
		startup__log_open_error(&err, r->a.so.system_wide, r->a.so.event);
		return 1;
	}
	note_targets(r);
	return 0;
}

/* Starts sampling, then lets the command exec. Returns 0 or 1 after
 * logging (the command could not be started). */
static int start(struct recording *r)
{
	const struct record_args *a = &r->a;
	int eno = 0;
	ssize_t n;

	r->start_mono = clock__mono_ns();
	r->start_real = clock__real_ns();
	if (a->duration_ns)
		sampler__set_deadline(r->s, r->start_mono + a->duration_ns,
				      r->start_mono + a->duration_ns + processing_grace_ns(a->duration_ns));
	sampler__enable(r->s);
	if (!a->cmd)
		return 0;
	if (write(r->go_fd, "g", 1) != 1) {
		log__error("starting %s: %s", a->cmd[0], strerror(errno));
		return 1;
	}
	close(r->go_fd);
	r->go_fd = -1;
	/* EOF means exec succeeded (the pipe is close-on-exec) */
	do
		n = read(r->exec_err_fd, &eno, sizeof(eno));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(eno)) {
		log__error("cannot execute '%s': %s%s", a->cmd[0], strerror(eno),
			   eno == ENOENT ? " (check the command name and PATH)" : "");
		waitpid(r->child, NULL, 0);
		r->child = -1;
		return 1;
	}
	return 0;
}

/* Whether the recording's target is gone: the command exited (reaped
 * here, its status said), or every -p process. The -p processes are
 * looked for at most once a poll interval: the look lists each one's
 * threads in /proc, and while runtimes are read the loop turns at every
 * sample (a tenth of the agent's time on a Perl process at 999 Hz). */
static int target_gone(struct recording *r, uint64_t now)
{
	int wst;

	if (r->child > 0) {
		if (waitpid(r->child, &wst, WNOHANG) != r->child)
			return 0;
		r->child = -1;
		if (WIFEXITED(wst) && WEXITSTATUS(wst) != 0)
			log__notice("%s exited with status %d", r->a.cmd[0], WEXITSTATUS(wst));
		else if (WIFSIGNALED(wst))
			log__notice("%s was killed by signal %d", r->a.cmd[0], WTERMSIG(wst));
		return 1;
	}
	if (!r->a.so.npids || r->a.cmd || now - r->alive_checked < PERF_DEFAULT_POLL_MS * 1000000ull)
		return 0;
	r->alive_checked = now;
	return !sampler__targets_alive(r->s);
}

/* Samples until the duration, a signal or the target's end. Returns 0, or
 * 1 after logging a failure of poll. */
static int sample(struct recording *r)
{
	const struct record_args *a = &r->a;
	int show = !a->quiet && isatty(STDERR_FILENO), rc, status = 0;
	uint64_t last_progress = 0;

	while (!stop_requested) {
		uint64_t now = clock__mono_ns();
		double elapsed = (double)(now - r->start_mono) / 1e9;

		if ((a->duration_ns && elapsed >= (double)a->duration_ns / 1e9) || target_gone(r, now))
			break;
		rc = sampler__poll(r->s, poll_timeout_ms(a, elapsed));
		if (rc < 0) {
			log__error("poll: %s", strerror(-rc));
			status = 1;
			break;
		}
		if (show && now - last_progress > 250000000ull) {
			progress(1, elapsed, sampler__profile(r->s), sampler__stats(r->s));
			last_progress = now;
		}
	}
	sampler__disable(r->s);
	sampler__drain(r->s);
	if (show)
		fprintf(stderr, "\r\033[K");
	return status;
}

/* Writes the result. Returns 0 or 1 after logging. */
static int finish(struct recording *r)
{
	struct record_output o = {
		.format = r->a.format,
		.output = r->a.output,
		.freq_hz = r->a.so.freq_hz,
		.start_ns = r->start_real,
		.end_ns = clock__real_ns(),
		.uts = &r->u,
	};

	sampler__finish_window(r->s);
	if (r->a.duration_ns)
		o.deadline_ns = clock__mono_ns() + write_grace_ns(r->a.duration_ns);
	/* A reader that goes away is an error to report, not a death that
	 * would leave the command of -- CMD running (it has exec'd by now: its
	 * own SIGPIPE stays as it was). */
	signal(SIGPIPE, SIG_IGN);
	return record_output__write(r->s, &o) < 0 ? 1 : 0;
}

static void cleanup(struct recording *r)
{
	sampler__delete(r->s);
	if (r->go_fd >= 0)
		close(r->go_fd);
	if (r->exec_err_fd >= 0)
		close(r->exec_err_fd);
	if (r->child > 0) {
		/* recording stopped (duration or signal) before the command ended */
		kill(r->child, SIGTERM);
		waitpid(r->child, NULL, 0);
	}
	cachedir__delete(r->cache);
}

int record_cmd__main(int argc, char **argv)
{
	struct recording r;
	int status;

	memset(&r, 0, sizeof(r));
	r.child = -1;
	r.go_fd = r.exec_err_fd = -1;
	status = parse_args(argc, argv, &r.a);
	if (status)
		return status == 1 ? 0 : 2;
	if (r.a.so.npids && check_pids(&r.a) < 0)
		return 1;
	if (r.a.output && check_output(r.a.output) < 0)
		return 1;
	uname(&r.u);
	status = prepare(&r);
	if (status == 0)
		status = start(&r);
	if (status == 0)
		status = sample(&r);
	if (status == 0)
		status = finish(&r);
	cleanup(&r);
	return status;
}
