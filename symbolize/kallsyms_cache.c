/* The on-disk form of the kernel symbol table and when to trust it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/cachedir.h"
#include "common/fileio.h"
#include "common/hash.h"
#include "symbolize/kallsyms.h"
#include "symbolize/kallsyms_cache.h"

#define DEFAULT_KALLSYMS "/proc/kallsyms"
#define DEFAULT_MODULES "/proc/modules"
#define DEFAULT_BOOT_ID "/proc/sys/kernel/random/boot_id"

/* Layout: header, syms (count * KALLSYMS_SYM_SIZE), hi (count * 4, only
 * with FLAG_HI), blob (blob_len); host byte order, no padding. The file is
 * only ever read by the host that wrote it; byte_order and the sizes catch a
 * copy from elsewhere anyway. */
#define MAGIC "SMLDKSYM"
#define FORMAT_VERSION 1
#define BYTE_ORDER_MARK 0x01020304u
#define FLAG_HI 1u
/* Same bounds as the parser's (kallsyms.c checks them again). */
#define MAX_ENTRIES 4000000u
#define MAX_BLOB (256u << 20)
/* /proc/modules of a kernel with 1,000 modules is ~100 KB. */
#define MODULES_MAX_BYTES (16u << 20)
/* The hash of an absent /proc/modules (a kernel built without modules). */
#define NO_MODULES 0x6e6f206d6f64756cull

struct file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint32_t byte_order;
	uint32_t flags;
	uint64_t count;
	uint64_t blob_len;
	uint32_t base;
	uint32_t reserved;
	uint64_t modules_hash;
	uint64_t first_text;
	char boot_id[40];
	char release[72];
	uint64_t payload_hash;
	uint64_t header_hash; /* of every byte before it */
};

/* No padding anywhere: the header's bytes are exactly its fields. */
_Static_assert(sizeof(struct file_header) == 192, "file_header has padding");

/* The payload checksum catches torn writes and bit rot, not forgery (the
 * file is 0600 in a directory only we can write). FNV-1a, a byte at a time,
 * would cost ~3 ms on 2 MB; four independent 64-bit lanes (xxHash64's
 * round) cost ~0.2 ms. */
#define P1 0x9e3779b185ebca87ull
#define P2 0xc2b2ae3d27d4eb4full

static uint64_t rotl(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

static uint64_t lane(uint64_t acc, uint64_t v)
{
	return rotl(acc + v * P2, 31) * P1;
}

static uint64_t hash_block(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t v0 = seed + P1 + P2, v1 = seed + P2, v2 = seed, v3 = seed - P1, h, w[4];
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		memcpy(w, b + i, 32);
		v0 = lane(v0, w[0]);
		v1 = lane(v1, w[1]);
		v2 = lane(v2, w[2]);
		v3 = lane(v3, w[3]);
	}
	h = (rotl(v0, 1) + rotl(v1, 7) + rotl(v2, 12) + rotl(v3, 18)) ^ (uint64_t)n;
	for (; i + 8 <= n; i += 8) {
		memcpy(w, b + i, 8);
		h = hash__mix(h, w[0]);
	}
	for (; i < n; i++)
		h = hash__mix(h, b[i]);
	return hash__u64(h);
}

static uint64_t payload_hash(const void *syms, size_t syms_len, const void *hi, size_t hi_len,
			     const void *blob, size_t blob_len)
{
	uint64_t h = hash_block(syms, syms_len, 1);

	if (hi_len)
		h = hash__mix(h, hash_block(hi, hi_len, 2));
	return hash__mix(h, hash_block(blob, blob_len, 3));
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n" */
static int read_boot_id(const char *path, char out[40])
{
	char buf[64];
	ssize_t n = fileio__read_small(path, buf, sizeof(buf));
	size_t len, i;

	if (n < 0)
		return (int)n;
	len = (size_t)n;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	if (len == 0 || len >= 40)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!((buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f') ||
		      buf[i] == '-'))
			return -EINVAL;
	memset(out, 0, 40);
	memcpy(out, buf, len);
	return 0;
}

static int get_release(const char *given, char out[72])
{
	struct utsname u;
	const char *r = given;
	size_t len = 0, i;

	if (!r) {
		if (uname(&u) < 0)
			return -errno;
		r = u.release;
	}
	len = strlen(r);
	if (len == 0 || len >= 72)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if ((unsigned char)r[i] < 0x20 || r[i] == 0x7f)
			return -EINVAL;
	memset(out, 0, 72);
	memcpy(out, r, len);
	return 0;
}

/* /proc/modules: "NAME SIZE REFCOUNT USED_BY STATE ADDRESS [TAINT]". The
 * refcount and the users change whenever a module is used; the others only
 * when a module is loaded or unloaded (or finishes loading). Lines of any
 * length are hashed as a stream of fields. */
static int modules_hash(const char *path, uint64_t *out)
{
	unsigned char buf[8192];
	uint64_t h = 0, fh = 0xcbf29ce484222325ull;
	size_t total = 0;
	unsigned field = 0;
	int fd, in_field = 0, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			return -errno;
		*out = NO_MODULES;
		return 0;
	}
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		ssize_t i;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		total += (size_t)r;
		if (total > MODULES_MAX_BYTES) {
			err = -EFBIG;
			break;
		}
		for (i = 0; i < r; i++) {
			unsigned char c = buf[i];

			if (c == ' ' || c == '\n') {
				if (in_field && field != 2 && field != 3)
					h = hash__mix(h, hash__mix(fh, field));
				fh = 0xcbf29ce484222325ull;
				field += in_field;
				in_field = 0;
				if (c == '\n') {
					h = hash__mix(h, 0x0a0a0a0a);
					field = 0;
				}
				continue;
			}
			in_field = 1;
			if (field != 2 && field != 3)
				fh = (fh ^ c) * 0x100000001b3ull;
		}
	}
	close(fd);
	if (err)
		return err;
	if (in_field && field != 2 && field != 3)
		h = hash__mix(h, hash__mix(fh, field));
	*out = hash__mix(h, total ? 1 : 0);
	return 0;
}

int kallsyms_cache__key(const struct kallsyms_source *src, struct kallsyms_cache_key *key)
{
	static const struct kallsyms_source none;
	struct kallsyms_cache_key k;
	int err;

	if (!src)
		src = &none;
	memset(&k, 0, sizeof(k));
	err = read_boot_id(src->boot_id ? src->boot_id : DEFAULT_BOOT_ID, k.boot_id);
	if (err)
		return err;
	err = get_release(src->release, k.release);
	if (err)
		return err;
	err = modules_hash(src->modules ? src->modules : DEFAULT_MODULES, &k.modules_hash);
	if (err)
		return err;
	/* Reads one page of /proc/kallsyms. Zero: addresses are hidden from
	 * this process now (kptr_restrict, or it lost CAP_SYSLOG), so it must
	 * not be handed the addresses a more privileged writer cached. A
	 * nonzero one is also the KASLR base: a table of another boot with a
	 * reused boot id would not match. */
	err = kallsyms__first_text(src->kallsyms ? src->kallsyms : DEFAULT_KALLSYMS, &k.first_text);
	if (err)
		return err;
	if (k.first_text == 0)
		return -EPERM;
	*key = k;
	return 0;
}

int kallsyms_cache__write(int fd, const struct kallsyms *k, const struct kallsyms_cache_key *key)
{
	struct kallsyms_arrays a;
	struct file_header h;
	size_t syms_len, hi_len;
	int err;

	err = kallsyms__arrays(k, &a);
	if (err)
		return err;
	syms_len = a.n * KALLSYMS_SYM_SIZE;
	hi_len = a.hi ? a.n * sizeof(*a.hi) : 0;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, MAGIC, sizeof(h.magic));
	h.version = FORMAT_VERSION;
	h.header_size = sizeof(h);
	h.byte_order = BYTE_ORDER_MARK;
	h.flags = a.hi ? FLAG_HI : 0;
	h.count = a.n;
	h.blob_len = a.blob_len;
	h.base = a.base;
	h.modules_hash = key->modules_hash;
	h.first_text = key->first_text;
	memcpy(h.boot_id, key->boot_id, sizeof(h.boot_id));
	memcpy(h.release, key->release, sizeof(h.release));
	h.payload_hash = payload_hash(a.syms, syms_len, a.hi, hi_len, a.blob, a.blob_len);
	h.header_hash = hash_block(&h, offsetof(struct file_header, header_hash), 0);
	err = fileio__write_all(fd, &h, sizeof(h));
	if (!err)
		err = fileio__write_all(fd, a.syms, syms_len);
	if (!err && hi_len)
		err = fileio__write_all(fd, a.hi, hi_len);
	if (!err)
		err = fileio__write_all(fd, a.blob, a.blob_len);
	return err;
}

static int header_ok(const struct file_header *h, uint64_t file_size)
{
	uint64_t per_sym;

	if (memcmp(h->magic, MAGIC, sizeof(h->magic)) != 0 || h->version != FORMAT_VERSION ||
	    h->header_size != sizeof(*h) || h->byte_order != BYTE_ORDER_MARK ||
	    (h->flags & ~FLAG_HI) || h->reserved ||
	    h->header_hash != hash_block(h, offsetof(struct file_header, header_hash), 0))
		return 0;
	if (h->count == 0 || h->count > MAX_ENTRIES || h->blob_len < 2 || h->blob_len > MAX_BLOB)
		return 0;
	/* both bounded above: no overflow */
	per_sym = KALLSYMS_SYM_SIZE + (h->flags & FLAG_HI ? sizeof(uint32_t) : 0);
	return file_size == sizeof(*h) + h->count * per_sym + h->blob_len;
}

static int key_matches(const struct file_header *h, const struct kallsyms_cache_key *key)
{
	return memcmp(h->boot_id, key->boot_id, sizeof(h->boot_id)) == 0 &&
	       memcmp(h->release, key->release, sizeof(h->release)) == 0 &&
	       h->modules_hash == key->modules_hash && h->first_text == key->first_text;
}

int kallsyms_cache__read(int fd, const struct kallsyms_cache_key *key, struct strtab *names,
			 struct kallsyms **out)
{
	struct kallsyms_arrays a;
	struct file_header h;
	struct stat st;
	size_t syms_len, hi_len, len;
	char *map;
	int err;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(h))
		return -EBADMSG;
	err = fileio__pread_exact(fd, &h, sizeof(h), 0);
	if (err)
		return err == -ENODATA ? -EBADMSG : err; /* a short file is damage */
	if (!header_ok(&h, (uint64_t)st.st_size))
		return -EBADMSG;
	if (key && !key_matches(&h, key))
		return -ESTALE;
	/* Mapped, not read: copying 2 MB out of the page cache was a fifth of
	 * the agent's start-up, and the lookups touch few pages. Private and
	 * writable: looked-up symbols get their frame id written in place.
	 * The file is only ever replaced by rename, never truncated, so the
	 * pages stay valid while mapped. */
	len = (size_t)st.st_size;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	memset(&a, 0, sizeof(a));
	a.n = (size_t)h.count;
	a.base = h.base;
	a.blob_len = (size_t)h.blob_len;
	syms_len = a.n * KALLSYMS_SYM_SIZE;
	hi_len = h.flags & FLAG_HI ? a.n * sizeof(uint32_t) : 0;
	/* header_ok checked that the header and the three arrays are the file */
	a.syms = map + sizeof(h);
	a.hi = hi_len ? (uint32_t *)(void *)(map + sizeof(h) + syms_len) : NULL;
	a.blob = map + sizeof(h) + syms_len + hi_len;
	if (payload_hash(a.syms, syms_len, a.hi, hi_len, a.blob, a.blob_len) != h.payload_hash) {
		err = -EBADMSG;
		goto out_unmap;
	}
	err = kallsyms__from_mapping(names, &a, map, len, out);
	if (err)
		goto out_unmap;
	return 0;

out_unmap:
	munmap(map, len);
	return err;
}

/* Parses, then stores the table under the key it was parsed with. */
static int parse_and_store(const struct kallsyms_source *src, const char *path,
			   struct cachedir *cache, const struct kallsyms_cache_key *key,
			   struct strtab *names, struct kallsyms **out, int *write_err)
{
	struct cachedir_tmp t = { .fd = -1 };
	struct kallsyms *k;
	uint64_t after;
	int err;

	err = kallsyms__load(path, names, &k);
	if (err)
		return err;
	*out = k;
	if (!key || kallsyms__restricted(k) || kallsyms__count(k) == 0) {
		*write_err = 1;
		return 0;
	}
	/* A module (un)loaded while we read would pair this table with the
	 * key of another set of modules. */
	err = modules_hash(src->modules ? src->modules : DEFAULT_MODULES, &after);
	if (err || after != key->modules_hash) {
		*write_err = err ? err : -EAGAIN;
		return 0;
	}
	err = cachedir__create(cache, &t);
	if (!err) {
		err = kallsyms_cache__write(t.fd, k, key);
		if (err)
			cachedir__abort(cache, &t);
		else
			err = cachedir__commit(cache, &t, KALLSYMS_CACHE_NAME);
	}
	*write_err = err;
	return 0;
}

int kallsyms_cache__load(const struct kallsyms_source *src, struct cachedir *cache,
			 struct strtab *names, struct kallsyms **out,
			 struct kallsyms_cache_status *st)
{
	static const struct kallsyms_source none;
	struct kallsyms_cache_status s = { 0, 0, 1 };
	struct kallsyms_cache_key key;
	struct kallsyms *k = NULL;
	const char *path;
	int fd, err, have_key;

	if (!src)
		src = &none;
	path = src->kallsyms ? src->kallsyms : DEFAULT_KALLSYMS;
	if (!cache) {
		err = kallsyms__load(path, names, &k);
		goto out;
	}
	err = kallsyms_cache__key(src, &key);
	have_key = err == 0;
	if (!have_key) {
		s.read_err = err;
	} else {
		fd = cachedir__open_file(cache, KALLSYMS_CACHE_NAME);
		if (fd < 0) {
			s.read_err = fd;
		} else {
			s.read_err = kallsyms_cache__read(fd, &key, names, &k);
			close(fd);
		}
		if (s.read_err == 0) {
			s.from_cache = 1;
			err = 0;
			goto out;
		}
	}
	err = parse_and_store(src, path, cache, have_key ? &key : NULL, names, &k, &s.write_err);
out:
	if (err)
		return err;
	*out = k;
	if (st)
		*st = s;
	return 0;
}
