/* `smolder symbolize`: the frames smolder gives addresses of an ELF file, as
 * addr2line -f -i does, through the same symbol index (and its cache) that
 * profiles use. For checking names against other tools, and for building a
 * monolith's inline index ahead of the first profile. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/cachedir.h"
#include "common/log.h"
#include "common/strtab.h"
#include "daemon/startup.h"
#include "symbolize/demangle.h"
#include "symbolize/symbolizer.h"
#include "symbolize/symindex.h"

#define SYMBOLIZE_MAX_FRAMES 32

struct symbolize_args {
	const char *file;
	char **addrs;         /* NULL: read from stdin */
	int naddrs;
	const char *cache_dir;
	enum name_detail names;
	int stats;
	int lines;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: smolder symbolize [OPTIONS] FILE [ADDRESS...]\n"
		"\n"
		"Prints, for each address of the ELF file FILE (hexadecimal, as in the\n"
		"file: a virtual address, which for a PIE or a library is the offset from\n"
		"its load address), the frames smolder names it with: the enclosing\n"
		"function and the functions inlined at that address, outermost first,\n"
		"separated by ';' as in collapsed stacks, inlined ones marked _[i]. One\n"
		"line per address: ADDRESS, a tab, the frames. Without ADDRESS arguments,\n"
		"addresses are read from standard input, one per line.\n"
		"\n"
		"  --names DETAIL   short (default) or full, as for record\n"
		"  --lines          each frame with its file and line, as record --lines:\n"
		"                   the address's own, and an inlined call's call site\n"
		"  --cache-dir DIR  the cache of inline indexes (default " CACHEDIR_DEFAULT_PATH "):\n"
		"                   a binary's index is read from there, or built from its\n"
		"                   DWARF and written there, so that profiles of it later\n"
		"                   start warm\n"
		"  --no-cache       neither read nor write a cache\n"
		"  --stats          print the index's counters to standard error at the end\n"
		"  -h, --help       this help\n"
		"\n"
		"Exit status: 0, 1 when FILE cannot be read, 2 usage error (a bad address\n"
		"is reported with its line and skipped, and makes the status 1).\n");
}

enum { OPT_NAMES = 256, OPT_CACHE, OPT_NOCACHE, OPT_STATS, OPT_LINES };

static int parse_args(int argc, char **argv, struct symbolize_args *a)
{
	static const struct option opts[] = {
		{ "names", required_argument, NULL, OPT_NAMES },
		{ "cache-dir", required_argument, NULL, OPT_CACHE },
		{ "no-cache", no_argument, NULL, OPT_NOCACHE },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->cache_dir = CACHEDIR_DEFAULT_PATH;
	a->names = NAME_DETAIL_DEFAULT;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_NAMES:
			if (name_detail__parse(optarg, &a->names) < 0) {
				log__error("--names: '%s' is not short or full", optarg);
				return 2;
			}
			break;
		case OPT_CACHE:
			if (optarg[0] != '/') {
				log__error("--cache-dir: '%s' must be an absolute path", optarg);
				return 2;
			}
			a->cache_dir = optarg;
			break;
		case OPT_NOCACHE:
			a->cache_dir = NULL;
			break;
		case OPT_STATS:
			a->stats = 1;
			break;
		case OPT_LINES:
			a->lines = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		log__error("symbolize: no FILE given (try 'smolder symbolize --help')");
		return 2;
	}
	a->file = argv[optind++];
	a->addrs = argc > optind ? argv + optind : NULL;
	a->naddrs = argc - optind;
	return -1;
}

/* One address: its line of output. Returns 0, or 1 for a bad address. */
static int print_one(struct symindex *s, struct strtab *names, const char *text, const char *where)
{
	uint32_t ids[SYMBOLIZE_MAX_FRAMES];
	size_t n = 0, i;
	uint64_t addr;
	char *end;

	while (*text == ' ' || *text == '\t')
		text++;
	errno = 0;
	addr = strtoull(text, &end, 16);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	if (errno || end == text || *end) {
		log__error("%s: '%s' is not a hexadecimal address", where, text);
		return 1;
	}
	if (symindex__lookup(s, addr, 0, ids, SYMBOLIZE_MAX_FRAMES, &n) < 0) {
		log__error("%s: out of memory", where);
		return 1;
	}
	printf("0x%" PRIx64 "\t", addr);
	for (i = n; i-- > 0;)
		printf("%s%s", strtab__str(names, ids[i]), i ? ";" : "\n");
	return 0;
}

static int run(const struct symbolize_args *a, struct symindex *s, struct strtab *names)
{
	char where[64], *line = NULL;
	size_t cap = 0;
	int i, bad = 0;
	unsigned long lineno = 0;

	for (i = 0; i < a->naddrs; i++) {
		snprintf(where, sizeof(where), "argument %d", i + 1);
		bad |= print_one(s, names, a->addrs[i], where);
	}
	if (!a->addrs) {
		while (getline(&line, &cap, stdin) > 0) {
			lineno++;
			if (line[strspn(line, " \t\r\n")] == '\0')
				continue;
			snprintf(where, sizeof(where), "stdin line %lu", lineno);
			bad |= print_one(s, names, line, where);
		}
		free(line);
	}
	return bad;
}

static void print_stats(const struct symindex *s)
{
	struct symindex_stats st;

	symindex__stats(s, &st);
	fprintf(stderr,
		"functions %" PRIu64 ", debug info %s; inline index: %" PRIu64
		" units, %" PRIu64 " trees built, %" PRIu64 " read from the cache, %" PRIu64
		" damaged, %" PRIu64 " bytes held, %" PRIu64 " bytes mapped, %.1f ms building\n",
		st.symbols, st.has_debuginfo ? "yes" : "no", st.inl.units, st.inl.builds,
		st.inl.loads, st.inl.rejected, st.inl.heap_bytes, st.inl.file_bytes,
		(double)st.inl.build_cpu_ns / 1e6);
}

int symbolize_cmd__main(int argc, char **argv)
{
	struct symbolize_args a;
	struct cachedir *cache = NULL;
	struct strtab *names;
	struct symindex *s = NULL;
	const char *base;
	int rc, err;

	rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	names = strtab__new();
	if (!names) {
		log__error("out of memory");
		return 1;
	}
	if (a.cache_dir)
		cache = startup__open_cache(a.cache_dir, CACHEDIR_DEFAULT_MAX_BYTES);
	symbolizer__set_lines(a.lines);
	base = strrchr(a.file, '/');
	base = base ? base + 1 : a.file;
	err = symindex__new_cached(a.file, base, names, cache, &s);
	if (err < 0) {
		log__error("%s: %s", a.file, strerror(-err));
		rc = 1;
		goto out;
	}
	symindex__set_name_detail(s, a.names);
	rc = run(&a, s, names);
	if (a.stats)
		print_stats(s);
	symindex__delete(s); /* writes the inline index it built */
out:
	cachedir__delete(cache);
	strtab__delete(names);
	return rc;
}
