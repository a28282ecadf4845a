/* upload --debug-dir / --debuginfod (and symbolize_on_upload = yes): each
 * document named again before it leaves, its stripped functions named from
 * the debug files this machine has (symbolize/late_names.h), the rest of
 * it as it was (export/dump_rename.h). */
#ifndef SMOLDER_CLI_UPLOAD_NAMES_H
#define SMOLDER_CLI_UPLOAD_NAMES_H
#include <stddef.h>

struct dump;
struct upload_names;

/* dirs[0..ndirs) (borrowed; /usr/lib/debug is searched after them) and
 * the debuginfod servers urls (NULL: none). 0, or 1 after logging. */
int upload_names__new(const char *const *dirs, size_t ndirs, const char *urls, struct upload_names **out);
void upload_names__delete(struct upload_names *u);

/* doc with its stripped functions named: *out a new document of its own
 * and *gz its gzip form (both the caller's, dump__delete and free), or
 * *out NULL when nothing was renamed (send doc as it is). 0, or -errno
 * after logging (name names the file). */
int upload_names__document(struct upload_names *u, const struct dump *doc, const char *name, struct dump **out,
			   void **gz, size_t *gzlen);

/* Logs what was named over the whole upload. */
void upload_names__report(const struct upload_names *u);

#endif
