/* The spool: a private directory of finished dumps waiting for delivery, one
 * gzip JSON file per window, named so that name order is window order. Every
 * file is written atomically under the directory's fd (temp file, fsync,
 * rename, fsync dir); files start with a '.' while being written and are
 * never listed. Bounded by total size and age: the oldest are dropped first,
 * and the drops are counted. Rejected dumps move to rejected/ with the
 * server's answer beside them; they count toward the same bounds, take at
 * most a quarter of spool_max_size, age out with spool_max_age, and are the
 * first to go when room is needed. Thread-safe: the sampling thread writes while
 * the uploader thread lists, reads and removes. */
#ifndef SMOLDER_EXPORT_SPOOL_H
#define SMOLDER_EXPORT_SPOOL_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct spool;

struct spool_opts {
	const char *dir;        /* created (mode 0700, parents too) if missing */
	uint64_t max_bytes;     /* 0: unbounded */
	uint64_t max_age_ns;    /* 0: unbounded; by the window start in the name */
};

/* Opens (creating) the directory and its rejected/ subdirectory, mode 0700,
 * refusing a directory that is a symlink (-ELOOP) or not owned by us or
 * writable by group/others (-EPERM). The directory is locked (flock) while
 * open: a second writer gets -EBUSY, so the temp files a crash left behind
 * (".NAME.tmp.*") are known to be stale and removed. Returns 0, or -errno
 * (the CLI says which path). */
int spool__open(const struct spool_opts *o, struct spool **out);
void spool__close(struct spool *s);
int spool__dirfd(const struct spool *s);
const char *spool__path(const struct spool *s);
/* Changes the bounds (config reload). */
void spool__set_limits(struct spool *s, uint64_t max_bytes, uint64_t max_age_ns);

/* The file name for a window: "<start_ns, 20 digits>-<host sanitized>.json.gz". */
void spool__name(char *buf, size_t size, uint64_t start_ns, const char *host);
/* The same for one event of a window recorded with several, other than
 * the first: "<start>-<host>.<event>.json.gz" (event NULL: spool__name). */
void spool__name_event(char *buf, size_t size, uint64_t start_ns, const char *host,
		       const char *event);

/* Writes buf as `name` (mode 0600, O_NOFOLLOW, atomically), then enforces the
 * bounds, never dropping the file just written unless it alone exceeds
 * max_bytes. Returns 0 or -errno (-ENOSPC: disk full; nothing is left;
 * -EFBIG: larger than max_bytes alone, not written and counted as dropped;
 * -EINVAL: name is not a spool__name). */
int spool__write(struct spool *s, const char *name, const void *buf, size_t len);
/* Enforces the bounds as if a dump `name` of len bytes were written now,
 * so that the writer can count what this drops in the dump itself (then
 * written with spool__write). Does nothing for a len over max_bytes. */
void spool__make_room(struct spool *s, const char *name, size_t len);

/* The names of the dumps in the spool, oldest first (malloc'd array of
 * malloc'd strings; free with spool__free_list). Skips dot files, rejected/
 * and anything that is not a regular file named like a dump. */
int spool__list(struct spool *s, char ***names, size_t *n);
void spool__free_list(char **names, size_t n);

/* Delivered: unlink. Missing files are not an error (dropped meanwhile).
 * Both return -EINVAL for a name that is not a spool__name. */
int spool__remove(struct spool *s, const char *name);
/* Rejected: move into rejected/ and write "<name>.reason" there with msg
 * and a newline (reason first, so a dump never sits there without one).
 * -ENOENT when the dump is gone. */
int spool__reject(struct spool *s, const char *name, const char *msg);

/* Files and bytes now in the spool (not counting rejected/). */
void spool__depth(struct spool *s, uint64_t *files, uint64_t *bytes);
/* Dumps dropped by the bounds since the last call (then reset to 0). */
void spool__take_dropped(struct spool *s, uint64_t *files, uint64_t *bytes);

#endif
