/* `smolder report`: merge dumps (files, spool directories) with time, label
 * and pid filters into a flame graph, pprof, collapsed stacks, a merged dump
 * or a top table; optionally differential against a base set of dumps. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "profile/profile.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/strtab.h"
#include "common/clock.h"
#include "common/units.h"
#include "export/dump_merge.h"
#include "export/dump_paths.h"
#include "export/dump_read.h"
#include "export/encode.h"
#include "export/out_path.h"
#include "symbolize/debuginfod_fetch.h"
#include "symbolize/late_names.h"

#define MAX_LABELS 64
/* --debug-dir given at most, and the default after them. */
#define MAX_DEBUG_DIRS 16
#define DEFAULT_TOP 20
/* Hosts named in a title before "and N more". */
#define TITLE_HOSTS 3

struct report {
	enum encode_format format;
	const char *output, *title;
	const char *from_arg, *until_arg; /* as given, for messages */
	int icicle;
	int by_thread;                    /* --group-by thread */
	size_t top;
	struct dump_merge_filter filter;
	struct dump_merge_label labels[MAX_LABELS];
	struct dump_paths inputs, bases;
	const struct profile *now, *base;
	const struct dump_merge_info *info, *base_info;
	struct pprof_opts pprof;
	const char *debug_dirs[MAX_DEBUG_DIRS + 1];
	size_t ndebug_dirs;
	const char *debuginfod;           /* --debuginfod URLS; NULL: none */
	const char *env_debuginfod;       /* DEBUGINFOD_URLS as smolder started */
	struct debuginfod_fetch *fetch;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smolder report FILE|DIR ... [--format top|svg|pprof|collapsed|json] [-o FILE]\n"
		"                      [--from T] [--until T] [--label NAME=VALUE ...] [--pid PID]\n"
		"                      [--group-by thread] [--diff BASE ...] [--icicle] [--top N]\n"
		"                      [--title TEXT] [--debug-dir DIR ...] [--debuginfod URL]\n"
		"\n"
		"Merges smolder dumps (files, or every *.json / *.json.gz of a directory such as\n"
		"the spool) into one report.\n"
		"\n"
		"  -f, --format FMT      top (default: self/total table), svg (flame graph),\n"
		"                        pprof (gzip'd profile.proto), collapsed (flamegraph.pl,\n"
		"                        speedscope), json (the merged smolder.profile/v1 dump)\n"
		"  -o, --output FILE     write FILE instead of standard output (- or\n"
		"                        /dev/stdout): replaced atomically (mode 0600), never\n"
		"                        through a symlink; a FIFO or character device only if\n"
		"                        it is yours or root's\n"
		"      --from T          only windows overlapping [FROM, UNTIL); T is RFC 3339\n"
		"      --until T         (2026-11-22T10:00:00Z, ...+01:00), 'now', or relative\n"
		"                        to now: -90s, -30m, -1h, -2d, -1w, -1h30m\n"
		"  -l, --label N=V       only profiles whose label N (service_name, exe, comm,\n"
		"                        pid, thread, or a global label) is V; repeat to\n"
		"                        require more labels, or to accept several values of\n"
		"                        one label\n"
		"  -p, --pid PID         only the profiles of PID (dumps grouped per pid)\n"
		"      --event NAME      only the dumps of that event (cpu-clock, cycles,\n"
		"                        off-cpu): the dumps merged must be of one unit;\n"
		"                        wall: cpu-clock samples (times their period) and\n"
		"                        off-cpu waits as one time, where threads' time went\n"
		"      --group-by thread one profile per thread name (dumps recorded with\n"
		"                        --group-by thread): a top table per thread, a thread\n"
		"                        frame under each process in svg and collapsed, the\n"
		"                        thread label in json and pprof (default: process,\n"
		"                        the threads of a process merged)\n"
		"      --diff BASE       differential against the dumps BASE (file or directory;\n"
		"                        repeatable): with --format svg a differential flame\n"
		"                        graph, with --format top the change of self shares\n"
		"      --icicle          flame graph with the root at the top\n"
		"      --top N           rows of the top tables (default %d, 0: all)\n"
		"      --title TEXT      flame graph title\n"
		"      --debug-dir DIR   name the functions of stripped binaries (MODULE+0x...)\n"
		"                        from their debug files, DIR/.build-id/xx/rest.debug,\n"
		"                        by the build IDs the dumps keep (repeatable; "
		LATE_NAMES_DEFAULT_DIR " is\n"
		"                        searched last)\n"
		"      --debuginfod URL  and then from these debuginfod servers (space-separated,\n"
		"                        as DEBUGINFOD_URLS; 'env' takes DEBUGINFOD_URLS):\n"
		"                        off by default; needs libdebuginfod.so.1\n"
		"  -h, --help            this help\n",
		DEFAULT_TOP);
}

static int add_input(struct dump_paths *out, const char *arg)
{
	int rc = dump_paths__add_arg(out, arg);

	if (rc < 0) {
		log__error("%s: %s", arg, strerror(-rc));
		return -1;
	}
	return 0;
}

/* The events a report can pick, by their canonical names (the dump's own
 * string goes with the dump). */
static const char *known_event(const char *name)
{
	static const char *const known[] = { "cpu-clock", "cycles", "off-cpu" };
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(name, known[i]) == 0)
			return known[i];
	return NULL;
}

/* Without --event, a first input holding events of several units (a
 * `record --event cpu-clock,off-cpu`) is reported by its first event,
 * saying so: samples and nanoseconds do not add up. */
static void default_event(struct report *r)
{
	struct dump *d = NULL, *doc;
	char err[256];

	if (r->filter.event || !r->inputs.n ||
	    dump__read_file(r->inputs.v[0], &d, NULL, NULL, err, sizeof(err)) < 0)
		return; /* a bad file is reported by the merge */
	for (doc = d->next; doc; doc = doc->next)
		if (strcmp(profile_meta__unit_of(doc->event_name), profile_meta__unit_of(d->event_name)))
			break;
	if (doc && known_event(d->event_name)) {
		r->filter.event = known_event(d->event_name);
		log__notice("%s holds %s and %s: reporting %s (--event NAME picks one, --event wall "
			    "both as time)", r->inputs.v[0], d->event_name, doc->event_name,
			    r->filter.event);
	}
	dump__delete(d);
}

/* Reads every file into m. Any bad dump is an error: a report silently
 * missing a window would be wrong without anyone knowing. */
static int merge_files(struct dump_merge *m, const struct dump_paths *files)
{
	char err[1024];
	size_t i;

	for (i = 0; i < files->n; i++) {
		struct dump *d = NULL, *doc;
		int rc = dump__read_file(files->v[i], &d, NULL, NULL, err, sizeof(err));

		if (rc == -EINVAL || rc == -EFBIG) {
			log__error("%s: not a valid smolder dump: %s", files->v[i], err);
			return -1;
		}
		if (rc < 0) {
			log__error("%s: %s", files->v[i], strerror(-rc));
			return -1;
		}
		/* a recording of several events: a document each */
		for (doc = d; doc && rc >= 0; doc = doc->next)
			rc = dump_merge__add(m, doc);
		dump__delete(d);
		if (rc == -ENOSPC) {
			log__error("%s: too many distinct stacks to merge", files->v[i]);
			return -1;
		}
		if (rc == -EDOM) {
			log__error("%s: its event's values are not in the unit of the dumps before it "
				   "(CPU samples and off-cpu nanoseconds do not add up): pick one event "
				   "with --event cpu-clock or --event off-cpu", files->v[i]);
			return -1;
		}
		if (rc < 0) {
			log__error("merging %s: %s", files->v[i], strerror(-rc));
			return -1;
		}
	}
	return 0;
}

static void describe_filters(const struct report *r, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < r->filter.nlabels && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s=%s", i ? ", " : "",
				 r->labels[i].name, r->labels[i].value);

		if (n < 0)
			break;
		len += (size_t)n;
	}
}

/* Says which condition left nothing. what is "" or " in the base dumps". */
static void explain_empty(const struct report *r, const struct dump_merge_info *in, const char *what)
{
	char from[40], until[40], a[40], b[40], labels[512];

	if (!in->dumps) {
		log__error("no samples match%s: no dump files found", what);
		return;
	}
	if (!in->dumps_in_range && in->dumps_other_event) {
		log__error("no samples match%s: %zu dumps read, none of event %s", what, in->dumps,
			   r->filter.event);
		return;
	}
	if (!in->dumps_in_range) {
		units__format_time(r->filter.from_ns, from, sizeof(from));
		units__format_time(r->filter.until_ns, until, sizeof(until));
		units__format_time(in->read_start_ns, a, sizeof(a));
		units__format_time(in->read_end_ns, b, sizeof(b));
		log__error("no samples match%s: %zu dumps read, none overlaps %s to %s (they cover %s to %s)",
			   what, in->dumps, r->filter.from_ns ? from : "the beginning",
			   r->filter.until_ns != UINT64_MAX ? until : "the end", a, b);
		return;
	}
	if (!in->profiles_in_range) {
		log__error("no samples match%s: %zu dumps read, the %zu in the time range are idle (no profiles)",
			   what, in->dumps, in->dumps_in_range);
		return;
	}
	if (!in->profiles_label_ok) {
		describe_filters(r, labels, sizeof(labels));
		log__error("no samples match%s: %zu dumps read, %zu in the time range, no profile has %s",
			   what, in->dumps, in->dumps_in_range, labels);
		return;
	}
	log__error("no samples match%s: %zu dumps read, %zu profiles pass the other filters, none has pid %lld"
		   " (dumps carry pids only with per_pid = yes)",
		   what, in->dumps, in->profiles_label_ok, (long long)r->filter.pid);
}

static int parse_label(struct report *r, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg) {
		log__error("--label '%s': expected NAME=VALUE", arg);
		return -1;
	}
	if (r->filter.nlabels == MAX_LABELS) {
		log__error("--label: at most %d conditions", MAX_LABELS);
		return -1;
	}
	/* The name is cut out of argv in place: argv strings are writable. */
	*(char *)eq = '\0';
	r->labels[r->filter.nlabels].name = arg;
	r->labels[r->filter.nlabels].value = eq + 1;
	r->filter.nlabels++;
	return 0;
}

static int parse_time_opt(const char *opt, const char *arg, uint64_t now, uint64_t *out)
{
	int rc = units__parse_time(arg, now, out);

	if (rc == -ERANGE)
		log__error("%s '%s': out of range (before 1970 or too far ahead)", opt, arg);
	else if (rc < 0)
		log__error("%s '%s': not a time " UNITS_TIME_HINT, opt, arg);
	return rc;
}

static void build_title(const struct report *r, char *buf, size_t size)
{
	const struct dump_merge_info *in = r->info;
	char from[40], until[40], hosts[256];
	const char *h = in->hosts ? in->hosts : "";
	size_t i, commas = 0;

	/* Many hosts: name the first few. */
	for (i = 0; h[i] && commas < TITLE_HOSTS; i++)
		commas += h[i] == ',';
	if (in->nhosts > TITLE_HOSTS)
		snprintf(hosts, sizeof(hosts), "%.*s and %zu more", (int)(i ? i - 1 : 0), h,
			 in->nhosts - TITLE_HOSTS);
	else
		snprintf(hosts, sizeof(hosts), "%s", *h ? h : "unknown host");
	units__format_time(in->start_ns, from, sizeof(from));
	units__format_time(in->end_ns, until, sizeof(until));
	if (strcmp(profile__meta_const(r->now)->event_unit, "nanoseconds") == 0) {
		char t[32];

		units__format_elapsed(in->samples, t, sizeof(t));
		snprintf(buf, size, "Off-CPU: %s \xe2\x80\x94 %s to %s, %s waited", hosts, from, until, t);
		return;
	}
	snprintf(buf, size, "CPU: %s \xe2\x80\x94 %s to %s, %llu samples", hosts, from, until,
		 (unsigned long long)in->samples);
}

static int write_report(void *ctx, FILE *out)
{
	const struct report *r = ctx;
	struct encode_opts o;
	char title[512], subtitle[256], rates[128];

	encode__opts_init(&o, r->format);
	o.base = r->base;
	/* The counters of the dumps read, for the top header and a merged
	 * dump. They count every process of their windows: a header of a part
	 * of the profiles (--label, --pid) says what its stacks say instead. */
	o.agent = &r->info->stats;
	if (r->info->profiles_left_out && r->format == ENCODE_TOP)
		o.agent = NULL;
	o.top_rows = r->top;
	o.pprof = r->pprof;
	o.icicle = r->icicle;
	if (r->format == ENCODE_SVG) {
		build_title(r, title, sizeof(title));
		o.title = r->title ? r->title : title;
		if (!r->base) {
			const struct profile_meta *m = profile__meta_const(r->now);

			rates[0] = '\0';
			/* off-cpu's frequency is a cap on stacks, not a rate */
			if (strcmp(m->event_unit, "samples") == 0)
				dump_merge__describe_rates(r->info, rates, sizeof(rates));
			snprintf(subtitle, sizeof(subtitle), "%zu dumps, %s%s%s", r->info->dumps_used,
				 m->event_name && *m->event_name ? m->event_name : "cpu",
				 *rates ? ", " : "", rates);
			o.subtitle = subtitle;
		}
	}
	return encode__write(r->now, &o, out);
}

/* pprof values are count * period: one period for the whole profile. */
static void pprof_period(struct report *r)
{
	const struct dump_merge_info *in = r->info;

	if (in->min_hz == in->max_hz) {
		r->pprof.period_ns = in->max_hz ? (1000000000ull + in->max_hz / 2) / in->max_hz : 0;
		if (!in->max_hz && r->format == ENCODE_PPROF)
			log__warn("the dumps do not give a sampling frequency: cpu values are 0");
	} else {
		r->pprof.period_ns = in->samples ? (in->cpu_ns + in->samples / 2) / in->samples : 0;
		if (r->format == ENCODE_PPROF)
			log__warn("the dumps were sampled at %u to %u Hz: pprof cpu values use the average "
			  "period, %llu ns per sample (totals match to within rounding, single stacks are approximate)",
			  in->min_hz, in->max_hz, (unsigned long long)r->pprof.period_ns);
	}
	r->pprof.time_ns = in->start_ns;
	r->pprof.duration_ns = in->end_ns - in->start_ns;
}

enum { OPT_FROM = 256, OPT_UNTIL, OPT_DIFF, OPT_ICICLE, OPT_TOP, OPT_TITLE, OPT_GROUP_BY, OPT_EVENT, OPT_DEBUG_DIR,
       OPT_DEBUGINFOD };

/* One option with a value. Returns 0, 2 on a usage error, 1 on another
 * failure (both logged). */
static int parse_option(struct report *r, int c, const char *arg, uint64_t now_ns)
{
	long v;

	switch (c) {
	case 'f':
		if (encode__parse_format(arg, &r->format) < 0) {
			log__error("--format: unknown format '%s' (" ENCODE_FORMAT_NAMES ")", arg);
			return 2;
		}
		return 0;
	case 'o':
		if (!*arg) {
			log__error("-o: empty file name");
			return 2;
		}
		r->output = out_path__is_stdout(arg) ? NULL : arg;
		return 0;
	case OPT_FROM:
		r->from_arg = arg;
		return parse_time_opt("--from", arg, now_ns, &r->filter.from_ns) < 0 ? 2 : 0;
	case OPT_UNTIL:
		r->until_arg = arg;
		return parse_time_opt("--until", arg, now_ns, &r->filter.until_ns) < 0 ? 2 : 0;
	case 'l':
		return parse_label(r, arg) < 0 ? 2 : 0;
	case 'p':
		if (parse__int(arg, 1, INT32_MAX, &v) < 0) {
			log__error("--pid '%s': not a process id", arg);
			return 2;
		}
		r->filter.pid = v;
		return 0;
	case OPT_DIFF:
		return add_input(&r->bases, arg) < 0 ? 1 : 0;
	case OPT_TOP:
		if (parse__int(arg, 0, 1000000, &v) < 0) {
			log__error("--top '%s': expected a number of rows (0: all)", arg);
			return 2;
		}
		r->top = (size_t)v;
		return 0;
	case OPT_TITLE:
		r->title = arg;
		return 0;
	case OPT_EVENT:
		if (!*arg) {
			log__error("--event: empty event name");
			return 2;
		}
		r->filter.event = arg;
		return 0;
	case OPT_DEBUG_DIR:
		if (!*arg) {
			log__error("--debug-dir: empty directory name");
			return 2;
		}
		if (r->ndebug_dirs == MAX_DEBUG_DIRS) {
			log__error("--debug-dir %s: at most %d directories", arg, MAX_DEBUG_DIRS);
			return 2;
		}
		r->debug_dirs[r->ndebug_dirs++] = arg;
		return 0;
	case OPT_DEBUGINFOD:
		r->debuginfod = arg;
		return 0;
	case OPT_GROUP_BY:
		if (strcmp(arg, "thread") != 0 && strcmp(arg, "process") != 0) {
			log__error("--group-by: '%s' is not thread or process", arg);
			return 2;
		}
		r->by_thread = strcmp(arg, "thread") == 0;
		return 0;
	}
	return 2;
}

/* What the options mean together. Returns 0 or 2 after logging. */
static int check_args(const struct report *r, int nfiles)
{
	if (nfiles == 0) {
		log__error("no dumps given: smolder report FILE|DIR ... (see 'smolder report --help')");
		return 2;
	}
	if (r->filter.from_ns >= r->filter.until_ns) {
		log__error("the time range is empty: --from %s is not before --until %s",
			   r->from_arg ? r->from_arg : "(beginning)", r->until_arg ? r->until_arg : "(end)");
		return 2;
	}
	if (r->bases.n && r->format != ENCODE_SVG && r->format != ENCODE_TOP) {
		log__error("--diff needs --format svg or top");
		return 2;
	}
	if (r->icicle && r->format != ENCODE_SVG)
		log__warn("--icicle only applies to --format svg");
	if (encode__is_binary(r->format) && !r->output && isatty(STDOUT_FILENO)) {
		log__error("pprof output is binary: use -o FILE or redirect standard output");
		return 2;
	}
	return 0;
}

/* Returns 0 to go on; otherwise the exit status (-1: --help, exit 0). */
static int parse_args(int argc, char **argv, struct report *r)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "label", required_argument, NULL, 'l' },
		{ "pid", required_argument, NULL, 'p' },
		{ "diff", required_argument, NULL, OPT_DIFF },
		{ "icicle", no_argument, NULL, OPT_ICICLE },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "group-by", required_argument, NULL, OPT_GROUP_BY },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "debuginfod", required_argument, NULL, OPT_DEBUGINFOD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t now_ns = clock__real_ns();
	int c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":f:o:l:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ICICLE:
			r->icicle = 1;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			log__error("option '%s' needs a value (see 'smolder report --help')", argv[optind - 1]);
			return 2;
		case '?':
			log__error("unknown option '%s' (see 'smolder report --help')", argv[optind - 1]);
			return 2;
		default:
			rc = parse_option(r, c, optarg, now_ns);
			if (rc)
				return rc;
			break;
		}
	}
	return check_args(r, argc - optind);
}

/* --group-by thread needs dumps that were grouped per thread. Returns 0,
 * or -1 after logging. */
static int check_threads(const struct dump_merge_info *in)
{
	if (!in->profiles_threaded) {
		log__error("--group-by thread: none of the %zu profiles kept has a thread label: they "
			   "were recorded per process (record with --group-by thread, or set "
			   "group_by = thread in the daemon's configuration)", in->profiles_used);
		return -1;
	}
	if (in->profiles_threaded < in->profiles_used)
		log__warn("--group-by thread: %zu of the %zu profiles kept have no thread label "
			  "(recorded per process): their stacks are shown under no thread",
			  in->profiles_used - in->profiles_threaded, in->profiles_used);
	return 0;
}

/* The merges of the inputs and of the base, both into names. Returns 0, or
 * 1 after logging why. */
static int merge_all(struct report *r, struct strtab *names, struct dump_merge **now,
		     struct dump_merge **base)
{
	struct dump_merge_filter base_filter = r->filter;
	const char *unknown;

	/* The base is chosen by its files: the label and pid filters apply,
	 * the time range does not (the base is usually another period). */
	default_event(r);
	base_filter = r->filter;
	base_filter.from_ns = 0;
	base_filter.until_ns = UINT64_MAX;
	*now = dump_merge__new(names, &r->filter);
	*base = r->bases.n ? dump_merge__new(names, &base_filter) : NULL;
	if (!*now || (r->bases.n && !*base)) {
		log__error("out of memory");
		return 1;
	}
	dump_merge__set_group_by_thread(*now, r->by_thread);
	if (*base)
		dump_merge__set_group_by_thread(*base, r->by_thread);
	if (merge_files(*now, &r->inputs) < 0 || (*base && merge_files(*base, &r->bases) < 0))
		return 1;
	if (dump_merge__check_labels(*now, &unknown) < 0) {
		log__error("--label %s: no dump has a label '%s' (profiles have service_name, exe, comm "
			   "and, with per_pid, pid, with group_by = thread, thread; global labels come "
			   "from label.NAME in the config)", unknown, unknown);
		return 1;
	}
	r->now = dump_merge__profile(*now);
	r->info = dump_merge__info(*now);
	if (!r->info->samples) {
		explain_empty(r, r->info, "");
		return 1;
	}
	if (r->by_thread && check_threads(r->info) < 0)
		return 1;
	if (*base) {
		r->base = dump_merge__profile(*base);
		r->base_info = dump_merge__info(*base);
		if (!r->base_info->samples) {
			explain_empty(r, r->base_info, " in the base dumps");
			return 1;
		}
	}
	return 0;
}

/* Appends "; left: N what" (then ", N what") to buf when n is not 0. */
static void left_part(char *buf, size_t size, int *len, const char **sep, size_t count, const char *what)
{
	int k;

	if (!count || *len < 0 || (size_t)*len >= size)
		return;
	k = snprintf(buf + *len, size - (size_t)*len, "%s%zu %s", *sep, count, what);
	*len += k > 0 ? k : 0;
	*sep = ", ";
}

/* The debuginfod client of --debuginfod. Returns 0, or 1 after logging. */
static int open_debuginfod(struct report *r)
{
	const char *urls = r->debuginfod;
	char msg[256];
	int rc;

	if (!urls)
		return 0;
	if (strcmp(urls, "env") == 0)
		urls = r->env_debuginfod;
	if (!urls || !*urls) {
		log__error("--debuginfod env: DEBUGINFOD_URLS is not set");
		return 1;
	}
	rc = debuginfod_fetch__open(urls, &r->fetch, msg, sizeof(msg));
	if (rc < 0) {
		log__error("--debuginfod: %s%s", msg,
			   rc == -ENOENT ? " (Debian: libdebuginfod1; RHEL: elfutils-debuginfod-client)" : "");
		return 1;
	}
	return 0;
}

/* The stripped functions of a merge named from debug files (--debug-dir,
 * then the default directory). Returns 0, or 1 after logging. */
static int name_late(struct report *r, struct dump_merge *m, struct strtab *names, const char *what)
{
	struct profile *p = dump_merge__profile(m);
	struct late_names_stats st;
	char why[512];
	const char *sep = "; left: ";
	size_t left;
	int rc, n;

	r->debug_dirs[r->ndebug_dirs] = LATE_NAMES_DEFAULT_DIR;
	rc = late_names__apply(p, names, profile__meta_const(p)->mappings, r->debug_dirs, r->ndebug_dirs + 1,
			       r->fetch, &st);
	if (rc < 0) {
		log__error("naming the stripped functions%s: %s", what, strerror(-rc));
		return 1;
	}
	left = st.no_build_id + st.ambiguous + st.no_file + st.no_symbol;
	if (!st.named && !(left && (r->ndebug_dirs || r->fetch)))
		return 0;
	n = snprintf(why, sizeof(why), "named %zu of %zu stripped functions%s from %zu debug file%s",
		     st.named, st.named + left, what, st.files, st.files == 1 ? "" : "s");
	if (st.fetched && n > 0 && (size_t)n < sizeof(why))
		n += snprintf(why + n, sizeof(why) - (size_t)n, " (%zu from debuginfod)", st.fetched);
	left_part(why, sizeof(why), &n, &sep, st.no_file, "with no debug file found");
	left_part(why, sizeof(why), &n, &sep, st.no_symbol, "that it names no function at");
	left_part(why, sizeof(why), &n, &sep, st.no_build_id, "whose binary the dumps give no build ID of");
	left_part(why, sizeof(why), &n, &sep, st.ambiguous, "of a module name two binaries share");
	log__notice("%s", why);
	if (st.wrong_files)
		log__warn("%zu debug files found under a build ID were another binary's: not used", st.wrong_files);
	return 0;
}

/* To -o (export/out_path.h: atomically, or in place to the caller's FIFO
 * or device) or standard output. Returns 0 or 1 after logging. */
static int write_result(struct report *r)
{
	enum out_path_refusal why;
	int rc;

	if (r->output) {
		rc = out_path__write_with(r->output, 0600, write_report, r, 0, &why);
		if (rc < 0)
			log__error("-o %s: %s", r->output, out_path__strerror(rc, why));
		return rc < 0;
	}
	rc = write_report(r, stdout);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		rc = -EIO;
	if (rc < 0)
		log__error("writing the report to standard output: %s", strerror(-rc));
	return rc < 0;
}

int report_cmd__main(int argc, char **argv)
{
	struct report r;
	struct strtab *names = NULL;
	struct dump_merge *now = NULL, *base = NULL;
	int status, i;

	memset(&r, 0, sizeof(r));
	r.format = ENCODE_TOP;
	r.top = DEFAULT_TOP;
	r.filter.until_ns = UINT64_MAX;
	r.filter.pid = -1;
	r.filter.labels = r.labels;
	r.env_debuginfod = cli__env_debuginfod();
	status = parse_args(argc, argv, &r);
	for (i = optind; status == 0 && i < argc; i++)
		if (add_input(&r.inputs, argv[i]) < 0)
			status = 1;
	if (status == 0 && !(names = strtab__new())) {
		log__error("out of memory");
		status = 1;
	}
	if (status == 0)
		status = merge_all(&r, names, &now, &base);
	if (status == 0)
		status = open_debuginfod(&r);
	if (status == 0)
		status = name_late(&r, now, names, "");
	if (status == 0 && base)
		status = name_late(&r, base, names, " of the base");
	if (status == 0) {
		pprof_period(&r);
		status = write_result(&r);
	}
	debuginfod_fetch__close(r.fetch);
	dump_merge__delete(base);
	dump_merge__delete(now);
	strtab__delete(names);
	dump_paths__free(&r.inputs);
	dump_paths__free(&r.bases);
	return status < 0 ? 0 : status;
}
