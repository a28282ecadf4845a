/* What a Ruby command line runs: its main script (what $0 starts as),
 * which tells two Ruby services on one host apart (both are "ruby" to the
 * kernel). Parses ruby's syntax:
 *
 *   ruby [options] [--] SCRIPT [args]
 *
 * where options that take their value as the next argument (-I, -r, -C,
 * -E, --encoding, ...) are skipped with it, and a command line that runs
 * code it was given (-e, -, none) runs no script. A process that set its
 * own title ($0 = "puma: cluster worker 0: 1234 [app]") shows that title
 * instead of its command line: it is named by the title's first word, and
 * puma's by the application in its brackets too, so a master and its
 * workers are one service. Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_RUBYCMD_H
#define SMOLDER_RUNTIMES_RUBYCMD_H
#include <stddef.h>

/* cmdline: /proc/PID/cmdline's bytes (NUL-separated arguments, argv[0]
 * first). Writes the label into out and returns its length, or -ENOENT
 * when the command line runs no script (or is cut), -ENAMETOOLONG when it
 * does not fit. */
int rubycmd__main(const char *cmdline, size_t len, char *out, size_t size);

#endif
