/* What a PHP process runs, from its command line: a PHP-FPM worker its
 * pool ("pool www", from the title FPM gives it: "php-fpm: pool www"),
 * FPM's master "master", a CLI process its script (runtimes/script_label.h:
 * index.php with its directory). Parses php's syntax:
 *
 *   php [options] [-f] SCRIPT [--] [args]
 *
 * where -c, -d, -z, -t and -S take a value (attached or the next
 * argument), and code given on the command line (-r, -R, -B, -E, -F, -a,
 * reading standard input) runs no script. Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_PHPCMD_H
#define SMOLDER_RUNTIMES_PHPCMD_H
#include <stddef.h>

/* cmdline: /proc/PID/cmdline's bytes. Writes the label into out and
 * returns its length; -ENOENT when nothing is recognisable (or the
 * command line is cut), -ENAMETOOLONG when it does not fit. */
int phpcmd__label(const char *cmdline, size_t len, char *out, size_t size);

#endif
