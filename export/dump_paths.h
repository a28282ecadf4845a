/* The dump files a command works on (report, upload): paths given as they
 * are, and for a directory (the spool, a copy of it) the dump files
 * directly in it, in name order, which for the spool is time order. One
 * definition of what a dump file is named, shared by every reader of
 * directories. Not thread-safe. */
#ifndef SMOLDER_EXPORT_DUMP_PATHS_H
#define SMOLDER_EXPORT_DUMP_PATHS_H
#include <stddef.h>

/* More paths than any spool holds: past it, -E2BIG rather than memory
 * without bound. */
#define DUMP_PATHS_MAX 1000000

struct dump_paths {
	char **v; /* owned */
	size_t n, cap;
};

/* Whether a directory entry's name is a dump: *.json or *.json.gz, not
 * hidden (the temporary files of atomic writes start with '.'). */
int dump_paths__is_dump_name(const char *name);

/* Appends a copy of path. Returns 0, -E2BIG (DUMP_PATHS_MAX reached) or
 * -ENOMEM. */
int dump_paths__add(struct dump_paths *p, const char *path);
/* Appends the regular dump files directly in dir (not in rejected/ or any
 * other subdirectory; symlinks are skipped), sorted by name. Returns 0 or
 * -errno (what was appended before the error stays). */
int dump_paths__add_dir(struct dump_paths *p, const char *dir);
/* A command-line argument: a directory's dumps, or the path itself. -errno
 * from stat() or the above. */
int dump_paths__add_arg(struct dump_paths *p, const char *arg);
/* Frees the paths; p is empty and reusable after. */
void dump_paths__free(struct dump_paths *p);

#endif
