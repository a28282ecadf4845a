/* Creating and opening private directories without trusting the path. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/hash.h"
#include "common/privdir.h"
#include "common/clock.h"

int privdir__check(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

/* O_NOFOLLOW makes a planted link fail instead of redirecting our files. */
int privdir__open_at(int at, const char *path)
{
	int fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), err;
	struct stat st;

	if (fd < 0) {
		err = -errno;
		/* Depending on the kernel a symlink gives ELOOP or ENOTDIR. */
		if ((err == -ELOOP || err == -ENOTDIR) &&
		    fstatat(at, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			return -ELOOP;
		return err;
	}
	err = privdir__check(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int privdir__mkdirs(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path), i;

	if (len == 0)
		return -EINVAL;
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		if (buf[i - 1] == '/')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		if (i < len)
			buf[i] = '/';
	}
	return 0;
}

uint64_t privdir__tmp_seed(const void *owner)
{
	uint64_t seed = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &seed, sizeof(seed)) != (ssize_t)sizeof(seed))
			seed = 0;
		close(fd);
	}
	return hash__mix(hash__mix(seed, clock__real_ns()), (uint64_t)getpid() ^ (uintptr_t)owner);
}
