/* What a Perl process runs, from its command line: its script
 * (runtimes/script_label.h: main.pl with its directory). Parses perl's
 * syntax (perlrun):
 *
 *   perl [switches] [--] [programfile] [arguments]
 *
 * where -e/-E give the program (no script), -I, -M, -m, -x, -i, -l, -0,
 * -C, -d, -D take their value attached (-Ilib), except -I, -e, -E, -M,
 * -m whose value may be the next argument. argv[0] must be perl's
 * ("perl", "perl5.36.0", a path to one): a process of another program
 * that the kernel names "*.pl" is not labelled. Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_PERLCMD_H
#define SMOLDER_RUNTIMES_PERLCMD_H
#include <stddef.h>

/* cmdline: /proc/PID/cmdline's bytes. Writes the label into out and
 * returns its length; -ENOENT when nothing is recognisable (or the
 * command line is cut), -ENAMETOOLONG when it does not fit. */
int perlcmd__label(const char *cmdline, size_t len, char *out, size_t size);

#endif
