/* Kernel text symbols from /proc/kallsyms: sorted once, looked up by pc. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/parse.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "profile/frame_name.h"
#include "symbolize/kallsyms.h"

/* Bounds for a hostile or absurd file; a large distro kernel with many
 * modules has ~250k lines and ~12 MiB. A line of KSYM_LINE_MAX - 1 bytes or
 * more (newline not counted) is skipped whole. */
#define KSYM_LINE_MAX 512
#define KSYM_MAX_ENTRIES 4000000
#define KSYM_MAX_BYTES (256u << 20)
/* A pc further than this from the nearest symbol start is not inside it
 * (kallsyms has no sizes; no kernel function comes near this). */
#define KSYM_MAX_FUNC (1u << 20)
/* The cache saves only a binary search (~120 ns a miss; the frame id is
 * kept in the symbol itself), so it is small: 8192 pcs take ~280 KB. */
#define KSYM_CACHE_MAX KALLSYMS_CACHE_MAX
/* stdio read procfs in st_blksize (1 KiB) chunks: ~5,300 read()s for the
 * 5 MiB of a 6.x kernel. seq_file hands out at most a page per read() however
 * much we ask for, so this gets procfs down to ~1,300 reads (the remaining
 * system time is the kernel formatting lines) and regular files to a few.
 * Overridable at build time to run the tests with a tiny buffer. */
#ifndef KSYM_READ_BUF
#define KSYM_READ_BUF (64u << 10)
#endif

/* Bit 31 of ksym.name. While loading it marks a global symbol (the sort
 * prefers it over a local alias); it is cleared once aliases are gone, and
 * from then on it means the rest is an interned frame id, not a blob offset.
 * Blob offsets stay below it: the blob is smaller than KSYM_MAX_BYTES. */
#define KSYM_GLOBAL 0x80000000u
#define KSYM_INTERNED 0x80000000u
#define KSYM_NAME_MASK 0x7fffffffu

#if KSYM_READ_BUF <= KSYM_LINE_MAX
#error "KSYM_READ_BUF must hold a whole line"
#endif
#if KSYM_MAX_BYTES > KSYM_NAME_MASK
#error "blob offsets must stay below bit 31"
#endif

/* 8 bytes per symbol (a 16-byte entry and a 64-bit address made the table
 * ~7 MB for 122k lines): the low half of the address, the upper half being
 * kallsyms.base for all symbols (every x86-64 kernel address starts with
 * 0xffffffff) or, on any other layout, kallsyms.hi[i]. */
struct ksym {
	uint32_t lo;
	uint32_t name; /* blob offset (+ KSYM_GLOBAL), or KSYM_INTERNED | id */
};
/* kallsyms_cache.c stores the array as is */
_Static_assert(sizeof(struct ksym) == KALLSYMS_SYM_SIZE, "struct ksym is the cache's layout");

struct kallsyms {
	struct strtab *names;
	struct ksym *syms;
	uint32_t *hi;    /* upper address halves; NULL when all equal base */
	uint32_t base;
	size_t n, cap;
	char *blob;      /* NUL-separated raw names, in file order */
	size_t blob_len, blob_cap;
	int restricted;
	uint32_t kernel_id; /* "[kernel]_[k]" */
	struct u64map *cache; /* pc -> frame id */
	uint64_t lookups, hits, evictions;
	size_t stop_at; /* nonzero: stop reading once this many symbols are in */
	void *map;      /* non-NULL: syms, hi and blob point into this private
			 * mapping of a cache file, unmapped at delete */
	size_t map_len;
};

/* Sort keys: address, then global before local, then file order (names are
 * appended to the blob in file order), so results do not depend on qsort. */
static int cmp_rest(uint32_t x, uint32_t y)
{
	if ((x & KSYM_GLOBAL) != (y & KSYM_GLOBAL))
		return x & KSYM_GLOBAL ? -1 : 1;
	x &= KSYM_NAME_MASK;
	y &= KSYM_NAME_MASK;
	return x < y ? -1 : x > y;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return cmp_rest(x->name, y->name);
}

struct ksym_wide {
	uint64_t addr;
	uint32_t name;
};

static int cmp_wide(const void *a, const void *b)
{
	const struct ksym_wide *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return cmp_rest(x->name, y->name);
}

static uint64_t ksym_addr(const struct kallsyms *k, size_t i)
{
	uint64_t hi = k->hi ? k->hi[i] : k->base;

	return hi << 32 | k->syms[i].lo;
}

static int add_name(struct kallsyms *k, const char *s, size_t len, uint32_t *off)
{
	if (k->blob_len + len + 1 > k->blob_cap) {
		size_t cap = k->blob_cap ? k->blob_cap * 2 : 65536;
		char *nb;

		while (cap < k->blob_len + len + 1)
			cap *= 2;
		if (cap > KSYM_NAME_MASK)
			return -ENOMEM;
		nb = realloc(k->blob, cap);
		if (!nb)
			return -ENOMEM;
		k->blob = nb;
		k->blob_cap = cap;
	}
	*off = (uint32_t)k->blob_len;
	memcpy(k->blob + k->blob_len, s, len);
	k->blob[k->blob_len + len] = '\0';
	k->blob_len += len + 1;
	return 0;
}

static int grow_syms(struct kallsyms *k)
{
	size_t ncap = k->cap ? k->cap * 2 : 4096;
	struct ksym *ns;

	ns = realloc(k->syms, ncap * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	k->syms = ns;
	if (k->hi) {
		uint32_t *nh = realloc(k->hi, ncap * sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		k->hi = nh;
	}
	k->cap = ncap;
	return 0;
}

/* First address whose upper half differs from base: from now on keep the
 * upper halves of every symbol. */
static int widen(struct kallsyms *k)
{
	size_t i;

	k->hi = malloc(k->cap * sizeof(*k->hi)); /* n >= 1, so cap >= 1 */
	if (!k->hi)
		return -ENOMEM;
	for (i = 0; i < k->n; i++)
		k->hi[i] = k->base;
	return 0;
}

/* "ADDR TYPE NAME[\t[module]]": returns 1 and the parts for a text symbol,
 * 0 for anything else. */
static int parse_line(char *line, uint64_t *addr, char *type, char **name, size_t *name_len)
{
	char *sp1 = strchr(line, ' '), *sp2, *end;

	if (!sp1 || sp1 == line)
		return 0;
	if (parse__u64n(line, (size_t)(sp1 - line), 16, addr) < 0)
		return 0;
	if (sp1[1] == '\0' || sp1[2] != ' ')
		return 0;
	*type = sp1[1];
	if (!strchr("tTwW", *type))
		return 0;
	sp2 = sp1 + 3;
	end = sp2 + strcspn(sp2, "\t\n\r ");
	if (end == sp2)
		return 0;
	*name = sp2;
	*name_len = (size_t)(end - sp2);
	return 1;
}

/* One NUL-terminated line, newline stripped. Returns 0 or -ENOMEM. */
static int add_line(struct kallsyms *k, char *line)
{
	size_t name_len;
	uint64_t addr;
	uint32_t hi, off;
	char type, *name;
	int err;

	if (!parse_line(line, &addr, &type, &name, &name_len))
		return 0;
	/* Kernels >= 6.2 with CONFIG_CALL_PADDING label the 16 bytes of padding
	 * before every function __pfx_<function>: half of all lines (57,846 of
	 * 122k on 6.18). Dropping them halves the table; a pc in the padding
	 * (only executed with call-depth tracking, whose accounting thunks live
	 * there) is then attributed to the preceding function, which is
	 * acceptable for a profile. */
	if (name_len >= 6 && memcmp(name, "__pfx_", 6) == 0)
		return 0;
	hi = (uint32_t)(addr >> 32);
	if (k->n == 0 && !k->hi)
		k->base = hi;
	else if (hi != k->base && !k->hi && (err = widen(k)) < 0)
		return err;
	if (k->n == k->cap && (err = grow_syms(k)) < 0)
		return err;
	err = add_name(k, name, name_len, &off);
	if (err < 0)
		return err;
	k->syms[k->n].lo = (uint32_t)addr;
	k->syms[k->n].name = off | (type == 'T' || type == 'W' ? KSYM_GLOBAL : 0);
	if (k->hi)
		k->hi[k->n] = hi;
	k->n++;
	if (addr)
		k->restricted = 0;
	return 0;
}

/* Splits what read(2) returns into lines with our own buffer. Stops quietly
 * at KSYM_MAX_BYTES or KSYM_MAX_ENTRIES; a read error is -EIO. */
static int read_lines(struct kallsyms *k, int fd, char *buf, size_t size)
{
	size_t start = 0, end = 0, bytes = 0;
	int skipping = 0, eof = 0, err;

	for (;;) {
		char *nl = memchr(buf + start, '\n', end - start);
		size_t len;
		ssize_t r;

		if (nl || (eof && end > start)) {
			/* a whole line, or the last one without a newline */
			len = nl ? (size_t)(nl - (buf + start)) : end - start;
			bytes += len + !!nl;
			if (bytes > KSYM_MAX_BYTES || k->n >= KSYM_MAX_ENTRIES)
				return 0;
			if (!skipping && len < KSYM_LINE_MAX - 1) {
				buf[start + len] = '\0';
				err = add_line(k, buf + start);
				if (err < 0)
					return err;
				if (k->stop_at && k->n >= k->stop_at)
					return 0;
			}
			skipping = 0;
			start += len + !!nl;
			continue;
		}
		if (eof)
			return 0;
		if (skipping || end - start >= KSYM_LINE_MAX - 1) {
			/* overlong line: drop what we have, skip to its newline */
			bytes += end - start;
			if (bytes > KSYM_MAX_BYTES)
				return 0;
			skipping = 1;
			start = end = 0;
		} else if (start) {
			memmove(buf, buf + start, end - start);
			end -= start;
			start = 0;
		}
		/* one byte stays free for the NUL of an unterminated last line */
		r = read(fd, buf + end, size - 1 - end);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -EIO;
		if (r == 0)
			eof = 1;
		end += (size_t)r;
	}
}

/* Sorts by address and keeps one symbol per address: the first after
 * sorting (global, then file order). */
static int sort_dedupe(struct kallsyms *k)
{
	size_t i, w;

	if (k->hi && k->n > 1) {
		struct ksym_wide *t = malloc(k->n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (i = 0; i < k->n; i++) {
			t[i].addr = ksym_addr(k, i);
			t[i].name = k->syms[i].name;
		}
		qsort(t, k->n, sizeof(*t), cmp_wide);
		for (i = 0; i < k->n; i++) {
			k->hi[i] = (uint32_t)(t[i].addr >> 32);
			k->syms[i].lo = (uint32_t)t[i].addr;
			k->syms[i].name = t[i].name;
		}
		free(t);
	} else if (k->n > 1) {
		qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	}
	for (i = 0, w = 0; i < k->n; i++) {
		if (w && ksym_addr(k, w - 1) == ksym_addr(k, i))
			continue;
		k->syms[w] = k->syms[i];
		k->syms[w].name &= KSYM_NAME_MASK;
		if (k->hi)
			k->hi[w] = k->hi[i];
		w++;
	}
	k->n = w;
	return 0;
}

/* Gives back the slack of the doubling growth (up to half of each array). */
static void shrink(struct kallsyms *k)
{
	void *p;

	if (k->n == 0) {
		free(k->syms);
		free(k->hi);
		free(k->blob);
		k->syms = NULL;
		k->hi = NULL;
		k->blob = NULL;
		k->cap = k->blob_len = k->blob_cap = 0;
		return;
	}
	if ((p = realloc(k->syms, k->n * sizeof(*k->syms))))
		k->syms = p;
	if (k->hi && (p = realloc(k->hi, k->n * sizeof(*k->hi))))
		k->hi = p;
	k->cap = k->n;
	if ((p = realloc(k->blob, k->blob_len))) {
		k->blob = p;
		k->blob_cap = k->blob_len;
	}
}

int kallsyms__load(const char *path, struct strtab *names, struct kallsyms **out)
{
	struct kallsyms *k;
	char *buf = NULL;
	int fd = -1, err;

	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->names = names;
	k->restricted = 1; /* until a nonzero address shows up */
	k->cache = u64map__new(1024);
	buf = malloc(KSYM_READ_BUF);
	if (!k->cache || !buf) {
		err = -ENOMEM;
		goto out_free;
	}
	err = frame_name__intern(names, "[kernel]", FRAME_SUFFIX_KERNEL, &k->kernel_id);
	if (err < 0)
		goto out_free;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out_free;
	}
	err = read_lines(k, fd, buf, KSYM_READ_BUF);
	close(fd);
	free(buf);
	buf = NULL;
	if (err < 0)
		goto out_free;
	/* kptr_restrict: names without addresses are of no use */
	if (k->restricted)
		k->n = 0;
	err = sort_dedupe(k);
	if (err < 0)
		goto out_free;
	shrink(k);
	*out = k;
	return 0;

out_free:
	free(buf);
	kallsyms__delete(k);
	return err;
}

void kallsyms__delete(struct kallsyms *k)
{
	if (!k)
		return;
	u64map__delete(k->cache);
	if (k->map) {
		munmap(k->map, k->map_len);
	} else {
		free(k->syms);
		free(k->hi);
		free(k->blob);
	}
	free(k);
}

int kallsyms__restricted(const struct kallsyms *k)
{
	return k->restricted;
}

size_t kallsyms__count(const struct kallsyms *k)
{
	return k->n;
}

void kallsyms__stats(const struct kallsyms *k, struct kallsyms_stats *st)
{
	st->lookups = k->lookups;
	st->hits = k->hits;
	st->entries = u64map__count(k->cache);
	st->evictions = k->evictions;
}

/* The frame id of symbol i, interned on first use and kept in its entry. */
static int ksym_id(struct kallsyms *k, size_t i, uint32_t *id)
{
	struct ksym *s = &k->syms[i];
	int err;

	if (s->name & KSYM_INTERNED) {
		*id = s->name & KSYM_NAME_MASK;
		return 0;
	}
	err = frame_name__intern(k->names, k->blob + s->name, FRAME_SUFFIX_KERNEL, id);
	if (err < 0)
		return err;
	/* an id too large for the tag (never in practice) is just not kept */
	if (!(*id & KSYM_INTERNED))
		s->name = KSYM_INTERNED | *id;
	return 0;
}

int kallsyms__lookup(struct kallsyms *k, uint64_t pc, uint32_t *id)
{
	size_t lo = 0, hi = k->n, count;
	uint64_t v;
	uint32_t res;
	int err;

	k->lookups++;
	if (u64map__get(k->cache, pc, &v)) {
		k->hits++;
		*id = (uint32_t)v;
		return 0;
	}
	/* greatest addr <= pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ksym_addr(k, mid) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc - ksym_addr(k, lo - 1) >= KSYM_MAX_FUNC) {
		res = k->kernel_id;
	} else {
		err = ksym_id(k, lo - 1, &res);
		if (err < 0)
			return err;
	}
	count = u64map__count(k->cache);
	if (count >= KSYM_CACHE_MAX) {
		k->evictions += count;
		u64map__clear(k->cache);
	}
	(void)u64map__put(k->cache, pc, res); /* the cache is best effort */
	*id = res;
	return 0;
}

int kallsyms__remap_names(struct kallsyms *k, struct strtab_remap *r)
{
	uint32_t id;
	size_t i;
	int err;

	err = strtab_remap__id(r, &k->kernel_id);
	for (i = 0; !err && i < k->n; i++) {
		if (!(k->syms[i].name & KSYM_INTERNED))
			continue;
		id = k->syms[i].name & KSYM_NAME_MASK;
		err = strtab_remap__id(r, &id);
		/* the new table holds fewer strings than the old, so its ids fit
		 * wherever the old ones did */
		if (!err && r->commit)
			k->syms[i].name = KSYM_INTERNED | (id & KSYM_NAME_MASK);
	}
	if (!err)
		err = strtab_remap__map_values(r, k->cache);
	if (!err && r->commit)
		k->names = r->to;
	return err;
}

int kallsyms__first_text(const char *path, uint64_t *addr)
{
	struct kallsyms k;
	char *buf;
	int fd, err;

	memset(&k, 0, sizeof(k));
	k.stop_at = 1;
	buf = malloc(KSYM_READ_BUF);
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out_free;
	}
	err = read_lines(&k, fd, buf, KSYM_READ_BUF);
	close(fd);
	if (!err && k.n == 0)
		err = -ENODATA;
	if (!err)
		*addr = ksym_addr(&k, 0);
out_free:
	free(k.syms);
	free(k.hi);
	free(k.blob);
	free(buf);
	return err;
}

int kallsyms__arrays(const struct kallsyms *k, struct kallsyms_arrays *a)
{
	size_t i;

	if (k->restricted || k->n == 0)
		return -ENODATA;
	/* names of looked-up symbols became frame ids of this process */
	for (i = 0; i < k->n; i++)
		if (k->syms[i].name & KSYM_INTERNED)
			return -EBUSY;
	a->n = k->n;
	a->syms = k->syms;
	a->hi = k->hi;
	a->base = k->base;
	a->blob = k->blob;
	a->blob_len = k->blob_len;
	return 0;
}

/* The invariants a parse leaves behind; anything else is a damaged or
 * forged table. */
static int arrays_ok(const struct kallsyms_arrays *a)
{
	const struct ksym *s = a->syms;
	uint64_t prev = 0;
	size_t i;

	if (a->n == 0 || a->n > KSYM_MAX_ENTRIES || !a->syms || !a->blob || a->blob_len < 2 ||
	    a->blob_len > KSYM_MAX_BYTES || a->blob[a->blob_len - 1] != '\0')
		return 0;
	for (i = 0; i < a->n; i++) {
		uint32_t off = s[i].name;
		uint64_t addr = (uint64_t)(a->hi ? a->hi[i] : a->base) << 32 | s[i].lo;

		/* a name starts a non-empty string of the blob (which also
		 * keeps bit 31, the interned tag, clear) */
		if (off >= a->blob_len - 1 || a->blob[off] == '\0' || (off && a->blob[off - 1] != '\0'))
			return 0;
		/* sorted, one symbol per address */
		if (i && addr <= prev)
			return 0;
		prev = addr;
	}
	return 1;
}

int kallsyms__from_arrays(struct strtab *names, const struct kallsyms_arrays *a,
			  struct kallsyms **out)
{
	struct kallsyms *k;
	int err;

	if (!arrays_ok(a))
		return -EBADMSG;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->names = names;
	k->cache = u64map__new(1024);
	if (!k->cache) {
		err = -ENOMEM;
		goto out_free;
	}
	err = frame_name__intern(names, "[kernel]", FRAME_SUFFIX_KERNEL, &k->kernel_id);
	if (err < 0)
		goto out_free;
	k->syms = a->syms;
	k->hi = a->hi;
	k->base = a->base;
	k->n = k->cap = a->n;
	k->blob = a->blob;
	k->blob_len = k->blob_cap = a->blob_len;
	*out = k;
	return 0;

out_free:
	kallsyms__delete(k);
	return err;
}

int kallsyms__from_mapping(struct strtab *names, const struct kallsyms_arrays *a, void *map,
			   size_t map_len, struct kallsyms **out)
{
	int err = kallsyms__from_arrays(names, a, out);

	if (err)
		return err;
	(*out)->map = map;
	(*out)->map_len = map_len;
	return 0;
}
