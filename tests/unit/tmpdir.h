/* A private temporary directory per test, removed with its contents. For
 * the unit tests of modules that work on directories (spool, uploader,
 * dump paths). */
#ifndef SMOLDER_TESTS_UNIT_TMPDIR_H
#define SMOLDER_TESTS_UNIT_TMPDIR_H
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static inline int tmpdir_rm_one(const char *path, const struct stat *st, int flag,
				struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Creates /tmp/smolder-NAME-XXXXXX into buf. */
static inline void tmpdir_make(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "/tmp/smolder-%s-XXXXXX", name);
	cr_assert_not_null(mkdtemp(buf));
}

static inline void tmpdir_remove(const char *dir)
{
	nftw(dir, tmpdir_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
