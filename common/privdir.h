/* Private directories the agent creates and trusts: ours, not writable by
 * anyone else, never reached through a symlink. Shared by the spool and the
 * cache, which both hold files of other users' data. */
#ifndef SMOLDER_COMMON_PRIVDIR_H
#define SMOLDER_COMMON_PRIVDIR_H
#include <stdint.h>

/* mkdir -p; what is created gets mode 0700. Returns 0 or -errno. */
int privdir__mkdirs(const char *path);
/* Opens a directory (O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC, relative to `at` as
 * in openat) and checks it with privdir__check. Returns the fd, -ELOOP for
 * a symlink, or another -errno. */
int privdir__open_at(int at, const char *path);
/* 0 when the open fd is a directory owned by the effective user and not
 * writable by group or others; -ENOTDIR, -EPERM or -errno otherwise. */
int privdir__check(int fd);

/* A seed for temp-file names in such directories, different for each
 * process and owner object: names need uniqueness, not secrecy (O_EXCL
 * guards them); /dev/urandom just makes collisions between processes
 * unlikely. */
uint64_t privdir__tmp_seed(const void *owner);

#endif
