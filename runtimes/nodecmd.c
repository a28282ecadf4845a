/* The main script of a node command line. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/cmdline_args.h"
#include "runtimes/nodecmd.h"
#include "runtimes/script_label.h"

/* Options whose value may be the next argument (node --help, 16 to 22,
 * and the V8 sizes people pass that way); any other argument starting
 * with '-' stands alone. */
static const char *const with_value[] = {
	"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions",
	"--inspect-port", "--debug-port", "--title", "--input-type", "--redirect-warnings",
	"--icu-data-dir", "--openssl-config", "--tls-cipher-list", "--tls-keylog", "--diagnostic-dir",
	"--report-dir", "--report-directory", "--report-filename", "--report-signal", "--cpu-prof-dir",
	"--cpu-prof-name", "--cpu-prof-interval", "--heap-prof-dir", "--heap-prof-name",
	"--heap-prof-interval", "--heapsnapshot-signal", "--heapsnapshot-near-heap-limit",
	"--max-http-header-size", "--policy-integrity", "--experimental-policy", "--secure-heap",
	"--secure-heap-min", "--unhandled-rejections", "--use-largepages", "--dns-result-order",
	"--disable-proto", "--es-module-specifier-resolution", "--experimental-specifier-resolution",
	"--trace-event-categories", "--trace-event-file-pattern", "--watch-path", "--env-file",
	"--test-reporter", "--test-reporter-destination", "--test-name-pattern", "--test-shard",
	"--test-concurrency", "--experimental-sea-config", "--snapshot-blob", "--localstorage-file",
	"--max-old-space-size", "--max-semi-space-size", "--stack-size", "--stack-trace-limit",
};

/* Code given on the command line: no script file runs. */
static const char *const inline_code[] = { "-e", "--eval", "-p", "--print", "-pe", "-" };

static int in(const char *arg, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(arg, list[i]) == 0)
			return 1;
	return 0;
}

/* File names that say little alone: their directory names the service. */
static const char *const generic_stems[] = { "index.", "main.", "server.", "app." };

static int put(const char *arg, size_t n, char *out, size_t size)
{
	return script_label__from_path(arg, n, generic_stems,
				       sizeof(generic_stems) / sizeof(generic_stems[0]), out, size);
}

int nodecmd__main(const char *cmdline, size_t len, char *out, size_t size)
{
	struct cmdline_args args;
	const char *arg;
	size_t n;
	int rc, skip = 0, script = 0;

	if (!size)
		return -EINVAL;
	cmdline_args__init(&args, cmdline, len);
	if (cmdline_args__next(&args, &arg, &n) != 1) /* argv[0], node itself */
		return -ENOENT;
	while ((rc = cmdline_args__next(&args, &arg, &n)) == 1) {
		if (skip) {
			skip = 0;
			continue;
		}
		if (script || arg[0] != '-')
			return put(arg, n, out, size);
		if (strcmp(arg, "--") == 0)
			script = 1;
		else if (in(arg, inline_code, sizeof(inline_code) / sizeof(inline_code[0])))
			return -ENOENT;
		else if (in(arg, with_value, sizeof(with_value) / sizeof(with_value[0])))
			skip = 1;
	}
	return -ENOENT;
}
