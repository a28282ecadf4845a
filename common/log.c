/* Logging: stderr with journald priority prefixes, or syslog. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"

static const char *prog = "smolder";
static int max_level = LOG_NOTICE;
static int journal_prefix;
static int to_syslog;

/* JOURNAL_STREAM is "dev:ino" of the journal socket; prefixes only make sense
 * when our stderr is that very socket, not when the user redirected it. */
static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(2, &st) < 0)
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log__init(const char *progname)
{
	if (progname)
		prog = progname;
	journal_prefix = stderr_is_journal();
}

void log__set_level(int priority) { max_level = priority; }
int log__level(void) { return max_level; }

void log__use_syslog(int on)
{
	if (on && !to_syslog)
		openlog(prog, LOG_PID, LOG_DAEMON);
	to_syslog = on;
}

void log__msg(int priority, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	if (priority > max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (to_syslog) {
		syslog(priority, "%s", buf);
		return;
	}
	if (journal_prefix)
		fprintf(stderr, "<%d>%s\n", priority, buf);
	else
		fprintf(stderr, "%s: %s\n", prog, buf);
}
