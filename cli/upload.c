/* `smolder upload`: send dumps (files, directories, or the spool) to the
 * configured collector, oldest first; a file is removed only once delivered. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "daemon/sink_setup.h"
#include "daemon/conf.h"
#include "common/log.h"
#include "common/clock.h"
#include "export/dump_paths.h"
#include "export/dump_read.h"
#include "export/sink.h"
#include "cli/upload_names.h"

/* Attempts per dump when the collector asks to retry, and the pause between. */
#define UPLOAD_ATTEMPTS 3
#define UPLOAD_PAUSE_MS 1000
#define UPLOAD_RETRY_AFTER_MAX_MS 60000u

struct item {
	char *path;
	struct dump *dump;
	void *gz;
	size_t gzlen;
};

static volatile sig_atomic_t interrupted;

static void on_int(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int abort_on_interrupt(void *ctx)
{
	(void)ctx;
	return interrupted != 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smolder upload [-c FILE] [--url URL] [--export json|pyroscope]\n"
		"                      [--debug-dir DIR ...] [--debuginfod URL] [FILE|DIR ...]\n"
		"\n"
		"Sends smolder dumps to the collector, oldest first. Without FILE or DIR, the\n"
		"spool directory of the configuration. A delivered file is removed; a file\n"
		"the collector rejects moves to rejected/ beside it, with the answer in\n"
		"NAME.reason; a file that is not a valid dump is reported and left alone.\n"
		"Exit status 0 only when everything was delivered.\n"
		"\n"
		"  -c, --config FILE   configuration file (default " CONF_DEFAULT_PATH ", if present)\n"
		"      --url URL       collector URL (key: url; implies export = json unless set)\n"
		"      --export KIND   json or pyroscope (key: export)\n"
		"      --debug-dir DIR name stripped functions (MODULE+0x...) before sending,\n"
		"                      from their debug files DIR/.build-id/xx/rest.debug\n"
		"                      (repeatable; /usr/lib/debug last; key:\n"
		"                      symbolize_on_upload = yes for /usr/lib/debug alone)\n"
		"      --debuginfod URL and from these debuginfod servers ('env':\n"
		"                      DEBUGINFOD_URLS)\n"
		"  -q, --quiet         no progress line\n"
		"  -h, --help          this help\n");
}

static int cmp_items(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->dump && y->dump && x->dump->start_ns != y->dump->start_ns)
		return x->dump->start_ns < y->dump->start_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Moves a rejected dump into rejected/ beside it, with the collector's answer. */
static int move_rejected(const char *path, const char *msg)
{
	char dir[4096], dst[4400], reason[4500];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int fd, rc = 0;
	size_t len;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s/rejected", (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), "rejected");
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	snprintf(dst, sizeof(dst), "%s/%s", dir, base);
	if (rename(path, dst) < 0)
		return -errno;
	snprintf(reason, sizeof(reason), "%s.reason", dst);
	fd = open(reason, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	len = strlen(msg);
	if (write(fd, msg, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		rc = -EIO;
	close(fd);
	return rc;
}

static void progress(int on, size_t done, size_t total, size_t sent, size_t failed)
{
	if (!on)
		return;
	fprintf(stderr, "\rupload: %zu/%zu  delivered %zu  failed %zu ", done, total, sent, failed);
	fflush(stderr);
}

/* Waits ms, in steps so that ^C ends the wait. */
static void pause_ms(uint64_t ms)
{
	while (ms && !interrupted) {
		uint64_t step = ms < 100 ? ms : 100;

		usleep((useconds_t)(step * 1000u));
		ms -= step;
	}
}

/* Sends one dump, retrying a few times when the collector asks to: after
 * 1 s, then 2 s, or after its Retry-After when longer (up to a minute: an
 * interactive upload says what failed rather than wait for hours). */
static enum sink_result send_one(struct sink *sink, struct upload_names *names, const struct item *it, char *msg,
				  size_t msglen)
{
	enum sink_result res = SINK_RETRY;
	uint64_t wait_ms;
	int attempt;

	const struct dump *doc;

	/* a file of several documents (a recording of two events) is sent a
	 * document at a time, each in its own gzip form */
	for (doc = it->dump; doc; doc = doc->next) {
		const void *body = doc->doc_gz ? doc->doc_gz : it->gz;
		size_t blen = doc->doc_gz ? doc->doc_gzlen : it->gzlen;
		struct dump *named = NULL;
		void *ngz = NULL;
		size_t nlen = 0;

		if (names && upload_names__document(names, doc, it->path, &named, &ngz, &nlen) < 0) {
			snprintf(msg, msglen, "its functions could not be named");
			return SINK_RETRY;
		}
		for (attempt = 1; attempt <= UPLOAD_ATTEMPTS && !interrupted; attempt++) {
			res = named ? sink__send(sink, named, ngz, nlen, msg, msglen)
				    : sink__send(sink, doc, body, blen, msg, msglen);
			if (res != SINK_RETRY || attempt == UPLOAD_ATTEMPTS)
				break;
			wait_ms = (uint64_t)UPLOAD_PAUSE_MS * (uint64_t)attempt;
			if (sink__retry_after_s(sink) * 1000u > wait_ms)
				wait_ms = sink__retry_after_s(sink) * 1000u;
			pause_ms(wait_ms < UPLOAD_RETRY_AFTER_MAX_MS ? wait_ms : UPLOAD_RETRY_AFTER_MAX_MS);
		}
		dump__delete(named);
		free(ngz);
		if (res != SINK_DELIVERED)
			break;
	}
	return res;
}

#define UPLOAD_MAX_DEBUG_DIRS 16

struct upload_args {
	const char *conf_path, *url, *export;
	int explicit_conf, quiet;
	const char *debug_dirs[UPLOAD_MAX_DEBUG_DIRS];
	size_t ndebug_dirs;
	const char *debuginfod;
};

/* What is being uploaded and how it went. */
struct upload {
	struct item *items;
	size_t n, sent, failed, done;
	struct upload_names *names; /* NULL: dumps are sent as they are */
};

/* 0 to go on; otherwise the exit status (0 after --help). */
static int parse_args(int argc, char **argv, struct upload_args *a)
{
	enum { OPT_URL = 256, OPT_EXPORT, OPT_DEBUG_DIR, OPT_DEBUGINFOD };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "url", required_argument, NULL, OPT_URL },
		{ "export", required_argument, NULL, OPT_EXPORT },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "debuginfod", required_argument, NULL, OPT_DEBUGINFOD },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->conf_path = CONF_DEFAULT_PATH;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":c:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			a->conf_path = optarg;
			a->explicit_conf = 1;
			break;
		case OPT_URL:
			a->url = optarg;
			break;
		case OPT_EXPORT:
			a->export = optarg;
			break;
		case OPT_DEBUG_DIR:
			if (!*optarg || a->ndebug_dirs == UPLOAD_MAX_DEBUG_DIRS) {
				log__error("--debug-dir '%s': empty, or more than %d", optarg, UPLOAD_MAX_DEBUG_DIRS);
				return 2;
			}
			a->debug_dirs[a->ndebug_dirs++] = optarg;
			break;
		case OPT_DEBUGINFOD:
			a->debuginfod = strcmp(optarg, "env") == 0 ? cli__env_debuginfod() : optarg;
			if (!a->debuginfod || !*a->debuginfod) {
				log__error("--debuginfod %s: no server (DEBUGINFOD_URLS is not set)", optarg);
				return 2;
			}
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			log__error("option '%s' needs a value (see 'smolder upload --help')", argv[optind - 1]);
			return 2;
		default:
			log__error("unknown option '%s' (see 'smolder upload --help')", argv[optind - 1]);
			return 2;
		}
	}
	return 0;
}

/* The configuration file (when present or named), then the options over
 * it. Returns 0, or the exit status after logging why. */
static int load_conf(const struct upload_args *a, struct conf *conf)
{
	struct stat st;
	char err[1024];

	if ((a->explicit_conf || stat(a->conf_path, &st) == 0) &&
	    conf__load(conf, a->conf_path, err, sizeof(err)) < 0)
		goto conf_error;
	if (a->url && conf__set(conf, "url", a->url, err, sizeof(err)) < 0)
		goto conf_error;
	if (a->export && conf__set(conf, "export", a->export, err, sizeof(err)) < 0)
		goto conf_error;
	if (a->url && !a->export && conf->export == CONF_EXPORT_NONE)
		conf->export = CONF_EXPORT_JSON;
	if (conf->export == CONF_EXPORT_NONE) {
		log__error("nothing to upload to: set export and url in %s, or pass --url URL",
			   a->conf_path);
		return 2;
	}
	if (conf__validate(conf, err, sizeof(err)) < 0)
		goto conf_error;
	return 0;

conf_error:
	log__error("%s", err);
	return 2;
}

/* The dumps named on the command line (or the spool's), read and checked
 * first, so that they go out by window start; a missing or invalid file is
 * counted and left alone. Returns 0, or -1 after logging (out of memory,
 * an unreadable directory). */
static int collect(struct upload *up, char **args, size_t nargs, const char *spool_dir)
{
	struct dump_paths paths = { NULL, 0, 0 };
	char err[1024];
	size_t i;
	int rc = 0;

	for (i = 0; i < nargs && rc == 0; i++) {
		struct stat st;

		if (stat(args[i], &st) < 0) {
			log__error("%s: %s", args[i], strerror(errno));
			up->failed++;
			continue;
		}
		rc = S_ISDIR(st.st_mode) ? dump_paths__add_dir(&paths, args[i])
					 : dump_paths__add(&paths, args[i]);
		if (rc < 0)
			log__error("%s: %s", args[i], strerror(-rc));
	}
	if (nargs == 0 && (rc = dump_paths__add_dir(&paths, spool_dir)) < 0)
		log__error("spool_dir %s: %s", spool_dir, strerror(-rc));
	if (rc == 0 && paths.n && !(up->items = calloc(paths.n, sizeof(*up->items)))) {
		log__error("out of memory");
		rc = -ENOMEM;
	}
	for (i = 0; rc == 0 && i < paths.n; i++, up->n++) {
		struct item *it = &up->items[i];

		it->path = paths.v[i];
		paths.v[i] = NULL; /* the item owns it now */
		if (dump__read_file(it->path, &it->dump, &it->gz, &it->gzlen, err, sizeof(err)) < 0) {
			log__error("%s: not a valid smolder dump: %s (left untouched)", it->path, err);
			it->dump = NULL;
			up->failed++;
		}
	}
	dump_paths__free(&paths);
	if (rc == 0)
		qsort(up->items, up->n, sizeof(*up->items), cmp_items);
	return rc < 0 ? -1 : 0;
}

/* Sends one item and acts on the answer. */
static void deliver(struct sink *sink, struct upload *up, struct item *it)
{
	char msg[1024] = "";
	enum sink_result res = send_one(sink, up->names, it, msg, sizeof(msg));
	int rc;

	up->done++;
	if (res == SINK_DELIVERED) {
		if (unlink(it->path) < 0 && errno != ENOENT)
			log__warn("%s: delivered, but cannot remove it: %s", it->path, strerror(errno));
		up->sent++;
		log__info("%s: delivered", it->path);
	} else if (res == SINK_REJECTED) {
		rc = move_rejected(it->path, msg);
		up->failed++;
		log__error("%s: rejected by the collector: %s%s%s", it->path, msg,
			   rc < 0 ? "; could not move it to rejected/: " : " (moved to rejected/)",
			   rc < 0 ? strerror(-rc) : "");
	} else {
		up->failed++;
		log__error("%s: not delivered: %s (left in place; try again later)", it->path, msg);
	}
}

/* Sends every valid dump, oldest first, until done or interrupted. Returns
 * the exit status. */
static int send_all(const struct conf *conf, struct upload *up, int quiet)
{
	struct sink *sink = NULL;
	struct sigaction sa;
	int show = !quiet && isatty(STDERR_FILENO);
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (sink_setup__new(conf, abort_on_interrupt, NULL, &sink) < 0)
		return 1;
	for (i = 0; i < up->n && !interrupted; i++) {
		if (!up->items[i].dump)
			continue;
		deliver(sink, up, &up->items[i]);
		progress(show, up->done, up->n, up->sent, up->failed);
	}
	sink__delete(sink);
	if (show)
		fprintf(stderr, "\r\033[K");
	if (interrupted)
		log__error("interrupted: %zu of %zu dumps delivered", up->sent, up->n);
	else
		log__notice("%zu of %zu dumps delivered", up->sent, up->n);
	return up->failed || interrupted || up->sent < up->n ? 1 : 0;
}

int upload_cmd__main(int argc, char **argv)
{
	struct upload_args a;
	struct upload up;
	struct conf conf;
	size_t i;
	int status = parse_args(argc, argv, &a);

	if (status)
		return status < 0 ? 0 : status;
	memset(&up, 0, sizeof(up));
	if (conf__init(&conf) < 0) {
		log__error("out of memory");
		return 1;
	}
	status = load_conf(&a, &conf);
	if (status == 0 && collect(&up, argv + optind, (size_t)(argc - optind), conf.spool_dir) < 0)
		status = 1;
	if (status == 0 && (a.ndebug_dirs || a.debuginfod || conf.symbolize_on_upload))
		status = upload_names__new(a.debug_dirs, a.ndebug_dirs, a.debuginfod, &up.names);
	if (status == 0)
		status = send_all(&conf, &up, a.quiet);
	if (up.names && status != 2)
		upload_names__report(up.names);
	upload_names__delete(up.names);
	for (i = 0; i < up.n; i++) {
		dump__delete(up.items[i].dump);
		free(up.items[i].gz);
		free(up.items[i].path);
	}
	free(up.items);
	conf__free(&conf);
	return status;
}
