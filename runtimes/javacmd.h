/* What a Java launcher command line runs: the main class, the jar, the
 * module or the source file, which is what tells two JVMs on one host
 * apart (both are "java" to the kernel). Parses the launcher's syntax:
 *
 *   java [options] MAINCLASS [args]
 *   java [options] -jar JARFILE [args]
 *   java [options] -m|--module MODULE[/MAINCLASS] [args]
 *   java [options] SOURCEFILE.java [args]
 *
 * where options that take a value as the next argument (-cp, --add-opens,
 * ...) are skipped with it, and @argfiles (which we do not open) are
 * skipped. Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_JAVACMD_H
#define SMOLDER_RUNTIMES_JAVACMD_H
#include <stddef.h>

/* cmdline: /proc/PID/cmdline's bytes (NUL-separated arguments, argv[0]
 * first). Writes what it runs into out (a jar as its file name without
 * directories, a module as written) and returns its length, or -ENOENT
 * when the command line runs nothing we recognise (java -version, a
 * truncated line), -ENAMETOOLONG when it does not fit. */
int javacmd__main(const char *cmdline, size_t len, char *out, size_t size);

#endif
