/* JIT symbols from perf map files (/tmp/perf-PID.map), owner-checked. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/hash.h"
#include "common/parse.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/userfile.h"
#include "profile/frame_name.h"
#include "symbolize/perfmap.h"

#define PERFMAP_MAX_BYTES PERFMAP_MAX_TEXT
#define PERFMAP_MAX_ENTRIES 1000000
/* Entries checked backwards when the nearest start does not cover the pc
 * (an older, larger region re-used by the JIT). Bounded so a hostile file
 * cannot make lookups linear. */
#define PERFMAP_BACKSCAN 8
/* What perfmap__change compares: the start of the file and the end of
 * what was read. */
#define FP_HEAD 4096u
#define FP_MARK 256u

/* A symbol's frame id, until its name was needed. */
#define NO_ID UINT32_MAX

struct jsym {
	uint64_t start, size;
	const char *name; /* in one of the map's chunks; NULL when added by id */
	uint32_t seq;     /* line order: later lines win */
	uint32_t id;      /* NO_ID until the first lookup that finds it */
};

struct perfmap {
	struct jsym *syms;
	size_t n, cap;
	/* The text the names point into, as read. Names are interned only when
	 * a sample needs them: a 16 MiB map names ~300,000 symbols of which a
	 * profile uses a few hundred, and interning all of them kept every
	 * rewritten map's names in the shared table until its next compaction. */
	struct strtab *names;
	char **chunks;
	size_t nchunks;
	uint64_t chunk_bytes;
	uint64_t name_bytes; /* names interned for it (perfmap__count_name) */
	uint32_t seq;   /* of the next entry */
	uint64_t consumed; /* bytes of the file parsed: whole lines only */
	int truncated;     /* a caller's limit left lines unread */
	uint64_t fp_head, fp_mark; /* perfmap__fingerprint of what was read */
	/* the file as it was read: a refresh reads it again only once changed */
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
};

static int cmp_jsym(const void *a, const void *b)
{
	const struct jsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int parse_hex(const char *s, size_t len, uint64_t *out)
{
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, len -= 2;
	return parse__u64n(s, len, 16, out);
}

/* "START SIZE name with spaces": 0 and the parts, or -EINVAL. */
static int parse_line(char *line, size_t len, uint64_t *start, uint64_t *size, char **name)
{
	char *sp1, *sp2, *end = line + len;

	sp1 = memchr(line, ' ', len);
	if (!sp1 || sp1 == line)
		return -EINVAL;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(end - sp1 - 1));
	if (!sp2 || sp2 == sp1 + 1 || sp2 + 1 >= end)
		return -EINVAL;
	if (parse_hex(line, (size_t)(sp1 - line), start) < 0 ||
	    parse_hex(sp1 + 1, (size_t)(sp2 - sp1 - 1), size) < 0)
		return -EINVAL;
	if (*size == 0 || *start + *size < *start)
		return -EINVAL;
	*end = '\0';
	if (end > sp2 + 1 && end[-1] == '\r')
		end[-1] = '\0';
	*name = sp2 + 1;
	return 0;
}

int perfmap__open(const char *path, uid_t owner_uid, int *fd, struct stat *st)
{
	return perfmap__open_at(AT_FDCWD, path, owner_uid, fd, st);
}

int perfmap__open_at(int dirfd, const char *path, uid_t owner_uid, int *fd, struct stat *st)
{
	/* the process's own file: owned by its uid (by root only when it runs
	 * as root: a user can bind-mount a root file over their own path), a
	 * regular file checked before anything opens it (common/userfile.h) */
	struct userfile_rule rule = userfile__owned_by(owner_uid, 0);
	int f = userfile__open(dirfd, path, &rule, st);

	if (f < 0)
		return f == -ELOOP ? -EPERM : f;
	*fd = f;
	return 0;
}

/* Bytes of the file whose content a map stands for. */
static uint64_t covered(const struct perfmap *m)
{
	return m->consumed ? m->consumed : m->size;
}

/* Hashes of the first FP_HEAD bytes of [0, len) and of the FP_MARK bytes
 * ending at len: 0, or -errno (-ENODATA when the file is shorter). */
static int fingerprint_of(int fd, uint64_t len, uint64_t *head, uint64_t *mark)
{
	unsigned char buf[FP_HEAD];
	size_t n = len < FP_HEAD ? (size_t)len : FP_HEAD;
	size_t k = len < FP_MARK ? (size_t)len : FP_MARK;

	if (n && pread(fd, buf, n, 0) != (ssize_t)n)
		return -ENODATA;
	*head = hash__bytes(buf, n, len);
	if (k && pread(fd, buf, k, (off_t)(len - k)) != (ssize_t)k)
		return -ENODATA;
	*mark = hash__bytes(buf, k, len);
	return 0;
}

int perfmap__fingerprint(struct perfmap *m, int fd)
{
	return fingerprint_of(fd, covered(m), &m->fp_head, &m->fp_mark);
}

enum perfmap_change perfmap__change(struct perfmap *m, int fd, const struct stat *st)
{
	uint64_t head, mark;

	if (m->dev != (uint64_t)st->st_dev || m->ino != (uint64_t)st->st_ino)
		return PERFMAP_OTHER;
	if (m->size == (uint64_t)st->st_size && m->mtime_sec == (int64_t)st->st_mtim.tv_sec &&
	    m->mtime_nsec == (int64_t)st->st_mtim.tv_nsec)
		return PERFMAP_SAME;
	/* Metadata alone cannot tell: a touch changes the time, a rewrite may
	 * get the freed inode of the file it replaced and the same size. The
	 * content can: the start, and the bytes where the last read ended. */
	if ((uint64_t)st->st_size < covered(m) ||
	    fingerprint_of(fd, covered(m), &head, &mark) < 0 || head != m->fp_head ||
	    mark != m->fp_mark)
		return PERFMAP_OTHER;
	if ((uint64_t)st->st_size == m->size) {
		/* touched: the next look needs no reading */
		m->mtime_sec = (int64_t)st->st_mtim.tv_sec;
		m->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
		return PERFMAP_SAME;
	}
	return PERFMAP_GREW;
}

int perfmap__new_empty(const struct stat *st, struct perfmap **out)
{
	struct perfmap *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->dev = (uint64_t)st->st_dev;
	m->ino = (uint64_t)st->st_ino;
	m->size = (uint64_t)st->st_size;
	m->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	m->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
	*out = m;
	return 0;
}

static int add_entry(struct perfmap *m, uint64_t start, uint64_t size, const char *name,
		     uint32_t id)
{
	if (size == 0 || start + size < start)
		return -EINVAL;
	if (m->n == PERFMAP_MAX_ENTRIES)
		return -ENOSPC;
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		struct jsym *ns = realloc(m->syms, ncap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		m->syms = ns;
		m->cap = ncap;
	}
	m->syms[m->n].start = start;
	m->syms[m->n].size = size;
	m->syms[m->n].seq = m->seq++;
	m->syms[m->n].name = name;
	m->syms[m->n].id = id;
	m->n++;
	return 0;
}

int perfmap__add(struct perfmap *m, uint64_t start, uint64_t size, uint32_t id)
{
	return add_entry(m, start, size, NULL, id);
}

/* Keeps buf (len + 1 bytes) as long as m: its entries point into it. */
static int keep_chunk(struct perfmap *m, char *buf, size_t len)
{
	char **nc = realloc(m->chunks, (m->nchunks + 1) * sizeof(*nc));

	if (!nc)
		return -ENOMEM;
	m->chunks = nc;
	m->chunks[m->nchunks++] = buf;
	m->chunk_bytes += len + 1;
	return 0;
}

void perfmap__seal(struct perfmap *m)
{
	size_t i, w;

	if (m->n > 1)
		qsort(m->syms, m->n, sizeof(*m->syms), cmp_jsym);
	/* JITs re-emit code at the same address: the last entry for a start wins */
	for (i = 0, w = 0; i < m->n; i++) {
		if (w && m->syms[w - 1].start == m->syms[i].start)
			m->syms[w - 1] = m->syms[i];
		else
			m->syms[w++] = m->syms[i];
	}
	m->n = w;
}

/* Parses the lines of buf[0..len) into m (unsealed); returns the bytes the
 * complete ones take, or -ENOMEM. A last line without its newline is
 * parsed too, but not counted: the JIT may still be writing it, and the
 * next read parses it again whole (the later entry for a start wins). One
 * cut by the size limit (cut) is left out. */
static ssize_t parse_lines(struct perfmap *m, char *buf, size_t len, int cut)
{
	char *p = buf, *end = buf + len;
	int err;

	while (p < end && m->n < PERFMAP_MAX_ENTRIES) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *name;
		size_t llen = nl ? (size_t)(nl - p) : (size_t)(end - p);
		uint64_t start, size;

		if (!nl && cut)
			break;
		if (parse_line(p, llen, &start, &size, &name) == 0) {
			err = add_entry(m, start, size, name, NO_ID);
			if (err == -ENOMEM)
				return err;
		} else {
			m->seq++; /* line order counts every line */
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return (ssize_t)(p - buf);
}

/* Reads at most max bytes of fd from offset off; *cut says the limit
 * stopped it. */
static int read_from(int fd, uint64_t off, size_t max, char **out, size_t *out_len, int *cut)
{
	int err = fileio__read_upto(fd, off, max, out, out_len);

	if (err == 0)
		*cut = *out_len == max;
	return err;
}

/* The text a map may hold in all: the caller's limit within the file cap. */
static size_t text_limit(uint64_t max_text)
{
	return max_text && max_text < PERFMAP_MAX_BYTES ? (size_t)max_text : PERFMAP_MAX_BYTES;
}

/* Parses buf (len bytes, taken over) into m, which keeps it while entries
 * point into it. Returns parse_lines' result. */
static ssize_t parse_chunk(struct perfmap *m, char *buf, size_t len, int cut)
{
	size_t n0 = m->n;
	ssize_t used = parse_lines(m, buf, len, cut);

	if (m->n == n0) {
		free(buf);
		return used;
	}
	if (keep_chunk(m, buf, len) < 0) {
		/* entries cannot outlive their text */
		m->n = n0;
		free(buf);
		return -ENOMEM;
	}
	return used;
}

/* Reads the open file fd (closed by the caller). */
static int load_fd(int fd, const struct stat *st, struct strtab *names, uint64_t max_text,
		   struct perfmap **out)
{
	struct perfmap *m = NULL;
	char *buf = NULL;
	size_t len = 0;
	ssize_t used;
	int err, cut = 0;

	err = read_from(fd, 0, text_limit(max_text), &buf, &len, &cut);
	if (err < 0)
		return err;
	err = perfmap__new_empty(st, &m);
	if (err < 0) {
		free(buf);
		return err;
	}
	m->names = names;
	used = parse_chunk(m, buf, len, cut);
	if (used < 0) {
		perfmap__delete(m);
		return (int)used;
	}
	m->consumed = (uint64_t)used;
	m->truncated = cut && text_limit(max_text) < PERFMAP_MAX_BYTES;
	perfmap__seal(m);
	(void)perfmap__fingerprint(m, fd); /* else the next look reads it again */
	/* the doubling's slack would be charged to the owner's share */
	if (m->n && m->n < m->cap) {
		struct jsym *fit = realloc(m->syms, m->n * sizeof(*fit));

		if (fit) {
			m->syms = fit;
			m->cap = m->n;
		}
	}
	*out = m;
	return 0;
}

/* The lines appended to a map since it was read: JITs append as they
 * compile (perf reads these files as append-only too). Only the new bytes
 * are read and parsed, and merged into m, up to the text limit for the
 * whole map: past it, appends are not read at all. Returns 1 (0 when the
 * limit left nothing to read), or -errno (m is then as it was, but for
 * entries a failed merge may have added). */
static int append_fd(int fd, const struct stat *st, uint64_t max_text, struct perfmap *m)
{
	size_t limit = text_limit(max_text), len = 0;
	char *buf = NULL;
	ssize_t used;
	int err, cut = 0;

	/* the file as it is now is the one m stands for, read or not */
	m->size = (uint64_t)st->st_size;
	m->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	m->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
	if (m->consumed >= limit) {
		m->truncated = limit < PERFMAP_MAX_BYTES;
		return 0;
	}
	err = read_from(fd, m->consumed, limit - (size_t)m->consumed, &buf, &len, &cut);
	if (err < 0)
		return err;
	used = parse_chunk(m, buf, len, cut);
	if (used < 0) {
		perfmap__seal(m);
		return (int)used;
	}
	m->consumed += (uint64_t)used;
	m->truncated = cut && limit < PERFMAP_MAX_BYTES;
	perfmap__seal(m);
	(void)perfmap__fingerprint(m, fd);
	return used ? 1 : 0; /* 0: no whole line new (half written, or cut) */
}

int perfmap__load(const char *path, uid_t owner_uid, struct strtab *names, struct perfmap **out)
{
	struct stat st;
	int fd, err;

	err = perfmap__open(path, owner_uid, &fd, &st);
	if (err < 0)
		return err;
	err = load_fd(fd, &st, names, 0, out);
	close(fd);
	return err;
}

int perfmap__refresh_at(int dirfd, const char *path, uid_t owner_uid, struct strtab *names,
			uint64_t max_text, struct perfmap **m)
{
	enum perfmap_change change;
	struct perfmap *fresh;
	struct stat st;
	int fd, err;

	err = perfmap__open_at(dirfd, path, owner_uid, &fd, &st);
	if (err < 0)
		return err;
	change = *m ? perfmap__change(*m, fd, &st) : PERFMAP_OTHER;
	if (change == PERFMAP_SAME) {
		close(fd);
		return 0;
	}
	/* the same file, grown: only what was appended */
	if (change == PERFMAP_GREW && (*m)->consumed > 0) {
		err = append_fd(fd, &st, max_text, *m);
		close(fd);
		return err;
	}
	err = load_fd(fd, &st, names, max_text, &fresh);
	close(fd);
	if (err < 0)
		return err;
	perfmap__delete(*m);
	*m = fresh;
	return 1;
}

void perfmap__delete(struct perfmap *m)
{
	if (!m)
		return;
	while (m->nchunks)
		free(m->chunks[--m->nchunks]);
	free(m->chunks);
	free(m->syms);
	free(m);
}

size_t perfmap__count(const struct perfmap *m)
{
	return m->n;
}

int perfmap__remap_names(struct perfmap *m, struct strtab_remap *r)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < m->n; i++)
		if (m->syms[i].id != NO_ID)
			err = strtab_remap__id(r, &m->syms[i].id);
	/* names not interned yet go to the new table when first looked up */
	if (r->commit && m->names)
		m->names = r->to;
	return err;
}

void perfmap__count_name(struct perfmap *m, uint64_t bytes)
{
	m->name_bytes += bytes;
}

uint64_t perfmap__bytes(const struct perfmap *m)
{
	if (!m)
		return 0;
	return (uint64_t)m->cap * sizeof(struct jsym) + m->chunk_bytes + m->name_bytes;
}

int perfmap__truncated(const struct perfmap *m)
{
	return m && m->truncated;
}

int perfmap__lookup(struct perfmap *m, uint64_t pc, uint32_t *id)
{
	struct jsym *hit;
	int err;

	size_t lo = 0, hi = m->n, i, best = SIZE_MAX;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* among the entries covering pc near its start, the newest line wins */
	for (i = lo; i > 0 && lo - i < PERFMAP_BACKSCAN; i--) {
		const struct jsym *s = &m->syms[i - 1];

		if (pc - s->start < s->size &&
		    (best == SIZE_MAX || s->seq > m->syms[best].seq))
			best = i - 1;
	}
	if (best == SIZE_MAX)
		return -ENOENT;
	hit = &m->syms[best];
	if (hit->id == NO_ID) {
		err = frame_name__intern(m->names, hit->name, FRAME_SUFFIX_JIT, &hit->id);
		if (err < 0) {
			hit->id = NO_ID;
			return err;
		}
	}
	*id = hit->id;
	return 0;
}
