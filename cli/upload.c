/* `smolder upload`: send dumps (files, directories, or the spool) to the
 * configured collector, oldest first; a file is removed only once delivered. */
#include "config.h"

#include <dirent.h>
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
#include "export/dump_read.h"
#include "export/sink.h"

/* Attempts per dump when the collector asks to retry, and the pause between. */
#define UPLOAD_ATTEMPTS 3
#define UPLOAD_PAUSE_MS 1000
#define UPLOAD_RETRY_AFTER_MAX_MS 60000u
#define MAX_FILES 1000000

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
		"Usage: smolder upload [-c FILE] [--url URL] [--export json|pyroscope] [FILE|DIR ...]\n"
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
		"  -q, --quiet         no progress line\n"
		"  -h, --help          this help\n");
}

static int add_item(struct item **items, size_t *n, size_t *cap, const char *path)
{
	if (*n == MAX_FILES)
		return -E2BIG;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct item *ni = realloc(*items, nc * sizeof(*ni));

		if (!ni)
			return -ENOMEM;
		*items = ni;
		*cap = nc;
	}
	memset(&(*items)[*n], 0, sizeof(**items));
	(*items)[*n].path = strdup(path);
	if (!(*items)[*n].path)
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int is_dump_name(const char *name)
{
	size_t len = strlen(name);

	if (name[0] == '.')
		return 0; /* temp files of atomic writes, hidden files */
	return (len > 5 && strcmp(name + len - 5, ".json") == 0) ||
	       (len > 8 && strcmp(name + len - 8, ".json.gz") == 0);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The dump files of a directory (not its rejected/), in name order. */
static int add_dir(struct item **items, size_t *n, size_t *cap, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, ncap = 0, i;
	int rc = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL && nn < MAX_FILES) {
		char path[4096];
		struct stat st;

		if (!is_dump_name(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (nn == ncap) {
			size_t nc = ncap ? ncap * 2 : 64;
			char **nm = realloc(names, nc * sizeof(*nm));

			if (!nm) {
				rc = -ENOMEM;
				break;
			}
			names = nm;
			ncap = nc;
		}
		names[nn] = strdup(path);
		if (!names[nn]) {
			rc = -ENOMEM;
			break;
		}
		nn++;
	}
	closedir(d);
	if (nn > 1)
		qsort(names, nn, sizeof(*names), cmp_names);
	for (i = 0; i < nn; i++) {
		if (rc == 0)
			rc = add_item(items, n, cap, names[i]);
		free(names[i]);
	}
	free(names);
	return rc;
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
static enum sink_result send_one(struct sink *sink, const struct item *it, char *msg, size_t msglen)
{
	enum sink_result res = SINK_RETRY;
	uint64_t wait_ms;
	int attempt;

	for (attempt = 1; attempt <= UPLOAD_ATTEMPTS && !interrupted; attempt++) {
		res = sink__send(sink, it->dump, it->gz, it->gzlen, msg, msglen);
		if (res != SINK_RETRY || attempt == UPLOAD_ATTEMPTS)
			break;
		wait_ms = (uint64_t)UPLOAD_PAUSE_MS * (uint64_t)attempt;
		if (sink__retry_after_s(sink) * 1000u > wait_ms)
			wait_ms = sink__retry_after_s(sink) * 1000u;
		pause_ms(wait_ms < UPLOAD_RETRY_AFTER_MAX_MS ? wait_ms : UPLOAD_RETRY_AFTER_MAX_MS);
	}
	return res;
}

int upload_cmd__main(int argc, char **argv)
{
	enum { OPT_URL = 256, OPT_EXPORT };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "url", required_argument, NULL, OPT_URL },
		{ "export", required_argument, NULL, OPT_EXPORT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = CONF_DEFAULT_PATH, *url = NULL, *export = NULL;
	struct conf conf;
	struct sink *sink = NULL;
	struct item *items = NULL;
	struct sigaction sa;
	struct stat st;
	size_t n = 0, cap = 0, i, sent = 0, failed = 0, done = 0;
	char err[1024];
	int c, explicit_conf = 0, quiet = 0, status = 0, show;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":c:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			conf_path = optarg;
			explicit_conf = 1;
			break;
		case OPT_URL:
			url = optarg;
			break;
		case OPT_EXPORT:
			export = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			log__error("option '%s' needs a value (see 'smolder upload --help')", argv[optind - 1]);
			return 2;
		default:
			log__error("unknown option '%s' (see 'smolder upload --help')", argv[optind - 1]);
			return 2;
		}
	}

	if (conf__init(&conf) < 0) {
		log__error("out of memory");
		return 1;
	}
	if ((explicit_conf || stat(conf_path, &st) == 0) &&
	    conf__load(&conf, conf_path, err, sizeof(err)) < 0)
		goto conf_error;
	if (url && conf__set(&conf, "url", url, err, sizeof(err)) < 0)
		goto conf_error;
	if (export && conf__set(&conf, "export", export, err, sizeof(err)) < 0)
		goto conf_error;
	if (url && !export && conf.export == CONF_EXPORT_NONE)
		conf.export = CONF_EXPORT_JSON;
	if (conf.export == CONF_EXPORT_NONE) {
		log__error("nothing to upload to: set export and url in %s, or pass --url URL", conf_path);
		status = 2;
		goto out;
	}
	if (conf__validate(&conf, err, sizeof(err)) < 0)
		goto conf_error;

	for (i = (size_t)optind; i < (size_t)argc; i++) {
		int rc;

		if (stat(argv[i], &st) < 0) {
			log__error("%s: %s", argv[i], strerror(errno));
			failed++;
			continue;
		}
		rc = S_ISDIR(st.st_mode) ? add_dir(&items, &n, &cap, argv[i]) : add_item(&items, &n, &cap, argv[i]);
		if (rc < 0) {
			log__error("%s: %s", argv[i], strerror(-rc));
			status = 1;
			goto out;
		}
	}
	if (optind == argc) {
		int rc = add_dir(&items, &n, &cap, conf.spool_dir);

		if (rc < 0) {
			log__error("spool_dir %s: %s", conf.spool_dir, strerror(-rc));
			status = 1;
			goto out;
		}
	}

	/* Validate everything first, so that the order is by window start. */
	for (i = 0; i < n; i++) {
		if (dump__read_file(items[i].path, &items[i].dump, &items[i].gz, &items[i].gzlen, err,
				    sizeof(err)) < 0) {
			log__error("%s: not a valid smolder dump: %s (left untouched)", items[i].path, err);
			items[i].dump = NULL;
			failed++;
		}
	}
	qsort(items, n, sizeof(*items), cmp_items);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (sink_setup__new(&conf, abort_on_interrupt, NULL, &sink) < 0) {
		status = 1;
		goto out;
	}
	show = !quiet && isatty(STDERR_FILENO);
	for (i = 0; i < n && !interrupted; i++) {
		char msg[1024] = "";
		enum sink_result res;

		if (!items[i].dump)
			continue;
		res = send_one(sink, &items[i], msg, sizeof(msg));
		done++;
		if (res == SINK_DELIVERED) {
			if (unlink(items[i].path) < 0 && errno != ENOENT)
				log__warn("%s: delivered, but cannot remove it: %s", items[i].path, strerror(errno));
			sent++;
			log__info("%s: delivered", items[i].path);
		} else if (res == SINK_REJECTED) {
			int rc = move_rejected(items[i].path, msg);

			failed++;
			log__error("%s: rejected by the collector: %s%s%s", items[i].path, msg,
				   rc < 0 ? "; could not move it to rejected/: " : " (moved to rejected/)",
				   rc < 0 ? strerror(-rc) : "");
		} else {
			failed++;
			log__error("%s: not delivered: %s (left in place; try again later)", items[i].path, msg);
		}
		progress(show, done, n, sent, failed);
	}
	if (show)
		fprintf(stderr, "\r\033[K");
	if (interrupted)
		log__error("interrupted: %zu of %zu dumps delivered", sent, n);
	else
		log__notice("%zu of %zu dumps delivered", sent, n);
	if (failed || interrupted || sent < n)
		status = 1;
	goto out;

conf_error:
	log__error("%s", err);
	status = 2;
out:
	sink__delete(sink);
	for (i = 0; i < n; i++) {
		dump__delete(items[i].dump);
		free(items[i].gz);
		free(items[i].path);
	}
	free(items);
	conf__free(&conf);
	return status;
}
