/* A process label from the script an interpreter runs: its file name, or
 * with its directory when the name alone says little (index.js, main.py,
 * app.rb: the directory names the service). Every interpreter's command
 * line parser (nodecmd, pycmd) ends here, so scripts are labelled alike
 * whatever runs them. Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_SCRIPT_LABEL_H
#define SMOLDER_RUNTIMES_SCRIPT_LABEL_H
#include <stddef.h>

/* The label of script path[0..n) into out (size bytes, NUL-terminated),
 * generic[0..ngeneric) the file-name stems ("index.") that take their
 * directory along. Returns its length, -ENOENT for an empty name, or
 * -ENAMETOOLONG when it does not fit. */
int script_label__from_path(const char *path, size_t n, const char *const *generic, size_t ngeneric,
			    char *out, size_t size);

#endif
