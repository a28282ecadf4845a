/* smolder: entry point and subcommand dispatch. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli/cli.h"
#include "common/log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smolder COMMAND [OPTIONS]\n"
		"\n"
		"Always-on CPU profiler: samples every CPU with perf_event_open, unwinds\n"
		"user stacks from DWARF CFI, symbolizes on the host, aggregates stacks.\n"
		"\n"
		"Commands:\n"
		"  record     profile the whole machine, some processes, or a command\n"
		"  run        the always-on service: windows of profiles to a collector or spool\n"
		"  upload     send dumps (or the spool) to the collector\n"
		"  report     merge dumps into a flame graph, pprof, collapsed stacks or a table\n"
		"  probe      show what this host supports and the mode smolder will use\n"
		"  symbolize  name addresses of an ELF file as profiles do (like addr2line -i)\n"
		"\n"
		"Run 'smolder COMMAND --help' for the options of a command,\n"
		"'man 8 smolder' for the whole manual.\n");
}

/* Every binary we open stays open while it is mapped somewhere; the default
 * soft limit of 1024 descriptors is too low for a busy host. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static char env_debuginfod[4096];

const char *cli__env_debuginfod(void)
{
	return env_debuginfod[0] ? env_debuginfod : NULL;
}

int main(int argc, char **argv)
{
	const char *cmd;

	log__init("smolder");
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("smolder %s\n", SMOLDER_VERSION);
		return 0;
	}
	/* Debug info must never be fetched over the network on the sampling
	 * path; report --debuginfod env asks for the servers given here. */
	if (getenv("DEBUGINFOD_URLS"))
		snprintf(env_debuginfod, sizeof(env_debuginfod), "%s", getenv("DEBUGINFOD_URLS"));
	unsetenv("DEBUGINFOD_URLS");
	raise_fd_limit();
	if (strcmp(cmd, "record") == 0)
		return record_cmd__main(argc - 1, argv + 1);
	if (strcmp(cmd, "run") == 0)
		return run_cmd__main(argc - 1, argv + 1);
	if (strcmp(cmd, "upload") == 0)
		return upload_cmd__main(argc - 1, argv + 1);
	if (strcmp(cmd, "report") == 0)
		return report_cmd__main(argc - 1, argv + 1);
	if (strcmp(cmd, "probe") == 0)
		return probe_cmd__main(argc - 1, argv + 1);
	if (strcmp(cmd, "symbolize") == 0)
		return symbolize_cmd__main(argc - 1, argv + 1);
	log__error("unknown command '%s' (try 'smolder --help')", cmd);
	return 2;
}
