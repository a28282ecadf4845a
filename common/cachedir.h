/* A private directory of regenerable files: data derived from the host that
 * is slow to rebuild (the kernel's symbol table, decompressed debug
 * sections) kept across restarts. Everything in it may vanish at any time;
 * readers validate what they read as hostile input and fall back to
 * rebuilding. */
#ifndef SMOLDER_COMMON_CACHEDIR_H
#define SMOLDER_COMMON_CACHEDIR_H
#include <stddef.h>
#include <stdint.h>

/* Where the daemon and `record` keep it unless told otherwise. */
#define CACHEDIR_DEFAULT_PATH "/var/cache/smolder"
/* Bound on the files' total size; the least recently used go first. */
#define CACHEDIR_DEFAULT_MAX_BYTES (256ull << 20)
/* Longest file name accepted (names are [A-Za-z0-9._-], not starting '.'). */
#define CACHEDIR_NAME_MAX 200

struct cachedir;

/* Opens (creating it with mode 0700, parents too) the directory at path.
 * Refuses a symlink (-ELOOP), a directory not owned by the effective user
 * or writable by group or others (-EPERM). Stale temp files of crashed
 * writers are removed. Returns 0 or -errno; *out untouched on failure.
 * One cachedir per thread: not thread-safe. Several processes may share
 * a directory (last rename wins; readers see whole files only). */
int cachedir__open(const char *path, uint64_t max_bytes, struct cachedir **out);
void cachedir__delete(struct cachedir *c);
const char *cachedir__path(const struct cachedir *c);
/* The bound on the files' total size given at open. */
uint64_t cachedir__max_bytes(const struct cachedir *c);

/* Opens the file `name` for reading (O_RDONLY|O_CLOEXEC|O_NOFOLLOW) and
 * marks it used (its mtime, which the trim's LRU order follows). Returns the
 * fd (the caller closes it), -ENOENT when absent, -EPERM when it is not a
 * regular file owned by us with mode 0600 or stricter, -EINVAL for a bad
 * name. */
int cachedir__open_file(struct cachedir *c, const char *name);

/* Writing a file: create a temp file, fill it through the fd, then commit
 * (fsync, rename to name, trim) or abort (unlink). A reader never sees a
 * partial file under `name`. */
struct cachedir_tmp {
	int fd;
	char name[CACHEDIR_NAME_MAX + 32];
};
/* Returns 0 with t->fd open for writing (mode 0600), or -errno. */
int cachedir__create(struct cachedir *c, struct cachedir_tmp *t);
/* Closes t->fd. Returns 0 or -errno (the temp file is removed on failure). */
int cachedir__commit(struct cachedir *c, struct cachedir_tmp *t, const char *name);
/* Closes t->fd and removes the temp file. Accepts a never-created t. */
void cachedir__abort(struct cachedir *c, struct cachedir_tmp *t);

/* Convenience: the whole content at once. Returns 0 or -errno. */
int cachedir__write(struct cachedir *c, const char *name, const void *buf, size_t len);

/* Removes the least recently used files until the total size is within the
 * bound. Called by commit; returns the number of files removed, or -errno. */
int cachedir__trim(struct cachedir *c);

/* Whether name is acceptable to the functions above. */
int cachedir__name_ok(const char *name);

#endif
