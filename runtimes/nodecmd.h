/* What a node command line runs: its main script, which tells two node
 * services on one host apart (both are "node" to the kernel), as a JVM's
 * main class does. Parses node's syntax:
 *
 *   node [options] [--] SCRIPT [args]
 *
 * where options that take their value as the next argument (-r, --import,
 * --loader, -C, --title, ... and V8's sizes) are skipped with it, and a
 * command line that runs code it was given (-e, -p, -, none) runs no
 * script. Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_NODECMD_H
#define SMOLDER_RUNTIMES_NODECMD_H
#include <stddef.h>

/* cmdline: /proc/PID/cmdline's bytes (NUL-separated arguments, argv[0]
 * first). Writes the script into out -- its file name, with its directory
 * when the name alone says little (index.js, main.js, server.js, app.js)
 * -- and returns its length, or -ENOENT when the command line runs no
 * script (or is cut), -ENAMETOOLONG when it does not fit. */
int nodecmd__main(const char *cmdline, size_t len, char *out, size_t size);

#endif
