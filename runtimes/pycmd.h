/* What a Python command line runs: its main script or module, which tells
 * two Python services on one host apart (both are "python3" to the
 * kernel), as a JVM's main class does. Parses CPython's syntax (2.7 to
 * 3.13):
 *
 *   python [options] (-c CMD | -m MODULE | SCRIPT | -) [args]
 *
 * where single-letter options combine (-uB), -W, -X and 2.7's -Q take a
 * value attached or as the next argument, -c and -m end the options, and
 * --check-hash-based-pycs takes the next argument. Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_PYCMD_H
#define SMOLDER_RUNTIMES_PYCMD_H
#include <stddef.h>

/* cmdline: /proc/PID/cmdline's bytes (NUL-separated arguments, argv[0]
 * first). Writes the module (-m), or the script (script_label.h: its file
 * name, with its directory when the name says little: __main__.py,
 * main.py, app.py...) into out and returns its length; -ENOENT when the
 * command line runs code it was given (-c, -, none) or is cut;
 * -ENAMETOOLONG when it does not fit. */
int pycmd__main(const char *cmdline, size_t len, char *out, size_t size);

#endif
