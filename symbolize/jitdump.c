/* jitdump files: perf's binary JIT symbol format. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/strtab.h"
#include "profile/frame_name.h"
#include "symbolize/jitdump.h"
#include "symbolize/perfmap.h"

/* tools/perf/Documentation/jitdump-specification.txt */
#define JITDUMP_MAGIC 0x4A695444u       /* "JiTD" in the writer's byte order */
#define JITDUMP_MAGIC_SWAPPED 0x4454694Au
#define FILE_HEADER_MIN 40               /* magic .. flags */
#define RECORD_HEADER 16                 /* id, total_size, timestamp */
#define REC_CODE_LOAD 0
#define REC_CODE_MOVE 1
/* the fixed part of the record bodies */
#define CODE_LOAD_FIXED 40               /* pid, tid, vma, code_addr, code_size, code_index */
#define CODE_MOVE_FIXED 48               /* pid, tid, vma, old, new, code_size, code_index */
/* longer names are cut (the frame-name rules cap them again) */
#define NAME_MAX_BYTES 4096

static uint32_t u32(const unsigned char *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t u64(const unsigned char *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

int jitdump__is_dump_path(const char *path, size_t len)
{
	const char *base = path, *p;
	size_t i, n;

	for (p = path; p < path + len; p++)
		if (*p == '/')
			base = p + 1;
	n = len - (size_t)(base - path);
	if (n < sizeof("jit-0.dump") - 1 || memcmp(base, "jit-", 4) != 0 ||
	    memcmp(base + n - 5, ".dump", 5) != 0)
		return 0;
	for (i = 4; i < n - 5; i++)
		if (base[i] < '0' || base[i] > '9')
			return 0;
	return 1;
}

/* A JIT_CODE_LOAD body: the range and its NUL-terminated name. */
static int code_load(const unsigned char *b, size_t len, int swap, struct strtab *names,
		     struct perfmap *m)
{
	char name[NAME_MAX_BYTES];
	const unsigned char *nul;
	uint64_t addr, size;
	size_t nlen, count;
	uint32_t id;
	int err;

	if (len < CODE_LOAD_FIXED + 1)
		return -EINVAL;
	addr = u64(b + 16, swap);
	size = u64(b + 24, swap);
	nul = memchr(b + CODE_LOAD_FIXED, '\0', len - CODE_LOAD_FIXED);
	if (!nul)
		return -EINVAL;
	nlen = (size_t)(nul - (b + CODE_LOAD_FIXED));
	if (nlen >= sizeof(name))
		nlen = sizeof(name) - 1;
	memcpy(name, b + CODE_LOAD_FIXED, nlen);
	name[nlen] = '\0';
	if (size == 0 || addr + size < addr)
		return 0; /* nothing to name */
	count = strtab__count(names);
	err = frame_name__intern(names, name, FRAME_SUFFIX_JIT, &id);
	/* what the name takes in the table (with its share of the index),
	 * so that the load budget bounds it */
	if (err == 0 && strtab__count(names) > count)
		perfmap__count_name(m, strtab__len(names, id) + STRTAB_ENTRY_OVERHEAD);
	if (err == 0)
		err = perfmap__add(m, addr, size, id);
	return err == -EINVAL ? 0 : err;
}

/* A JIT_CODE_MOVE body: the code's name goes with it to its new address
 * (m is sealed: the moves are applied after every load). */
static int code_move(const unsigned char *b, size_t len, int swap, struct perfmap *m)
{
	uint64_t from, to, size;
	uint32_t id;

	if (len < CODE_MOVE_FIXED)
		return -EINVAL;
	from = u64(b + 16, swap);
	to = u64(b + 24, swap);
	size = u64(b + 32, swap);
	if (perfmap__lookup(m, from, &id) != 0 || size == 0 || to + size < to)
		return 0;
	return perfmap__add(m, to, size, id);
}

/* One pass over the records of one kind. */
static int records(const unsigned char *b, size_t len, size_t off, int swap, uint32_t kind,
		   struct strtab *names, struct perfmap *m)
{
	int err = 0;

	while (err == 0 && len - off >= RECORD_HEADER) {
		uint32_t id = u32(b + off, swap), total = u32(b + off + 4, swap);

		/* a record that does not fit (cut, or still being written) ends the file */
		if (total < RECORD_HEADER || total > len - off)
			break;
		if (id == kind && kind == REC_CODE_LOAD)
			err = code_load(b + off + RECORD_HEADER, total - RECORD_HEADER, swap, names, m);
		else if (id == kind && kind == REC_CODE_MOVE)
			err = code_move(b + off + RECORD_HEADER, total - RECORD_HEADER, swap, m);
		if (err == -EINVAL)
			err = 0; /* a bad record: the next may be good */
		off += total;
	}
	return err == -ENOSPC ? 0 : err; /* enough entries: keep what was read */
}

int jitdump__parse(const void *buf, size_t len, struct strtab *names, struct perfmap *m)
{
	const unsigned char *b = buf;
	uint32_t magic, hsize;
	int swap, err;

	if (len < FILE_HEADER_MIN)
		return -EINVAL;
	memcpy(&magic, b, sizeof(magic));
	if (magic != JITDUMP_MAGIC && magic != JITDUMP_MAGIC_SWAPPED)
		return -EINVAL;
	swap = magic == JITDUMP_MAGIC_SWAPPED;
	hsize = u32(b + 8, swap);
	if (u32(b + 4, swap) != 1 || hsize < FILE_HEADER_MIN || hsize > len)
		return -EINVAL;
	err = records(b, len, hsize, swap, REC_CODE_LOAD, names, m);
	perfmap__seal(m);
	if (err == 0)
		err = records(b, len, hsize, swap, REC_CODE_MOVE, names, m);
	perfmap__seal(m);
	return err;
}

int jitdump__refresh(const char *path, uid_t owner_uid, struct strtab *names, struct perfmap **m)
{
	return jitdump__refresh_at(AT_FDCWD, path, owner_uid, names, m);
}

int jitdump__refresh_at(int dirfd, const char *path, uid_t owner_uid, struct strtab *names,
			struct perfmap **m)
{
	struct perfmap *fresh = NULL;
	char *buf = NULL;
	struct stat st;
	size_t len;
	int fd, err;

	err = perfmap__open_at(dirfd, path, owner_uid, &fd, &st);
	if (err < 0)
		return err;
	/* jitdumps are append-only too, but small: any change reads it whole */
	if (*m && perfmap__change(*m, fd, &st) == PERFMAP_SAME) {
		close(fd);
		return 0;
	}
	len = st.st_size > (off_t)JITDUMP_MAX_BYTES ? JITDUMP_MAX_BYTES : (size_t)st.st_size;
	if (len < FILE_HEADER_MIN) {
		close(fd);
		return -EINVAL;
	}
	err = fileio__read_upto(fd, 0, len, &buf, &len);
	if (err < 0) {
		close(fd);
		return err;
	}
	err = perfmap__new_empty(&st, &fresh);
	if (err == 0)
		err = jitdump__parse(buf, len, names, fresh);
	if (err == 0)
		(void)perfmap__fingerprint(fresh, fd);
	close(fd);
	free(buf);
	if (err < 0) {
		perfmap__delete(fresh);
		return err;
	}
	perfmap__delete(*m);
	*m = fresh;
	return 1;
}
