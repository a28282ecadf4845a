/* Registry of binaries shared across processes, keyed by (device, inode). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "collector/binary.h"
#include "collector/vdso.h"
#include "common/hash.h"
#include "common/selfusage.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "common/userfile.h"
#include "profile/frame_name.h"
#include "profile/mappings.h"
#include "symbolize/loadbudget.h"
#include "symbolize/symindex.h"
#include "unwind/cfi.h"
#include "unwind/elffile.h"
#include "unwind/unwind.h"

#define MAX_LOADS 16

struct load_segment {
	uint64_t offset, vaddr, filesz;
	int exec; /* PF_X */
};

struct binary {
	struct binaries *owner;
	uint64_t dev, ino;
	struct binary *next_same_hash;
	unsigned refs;        /* mappings using it (the vDSO holds one more) */
	uint64_t idle_since;  /* when refs dropped to 0 */
	char *path;      /* as the process sees it */
	/* path (and module) came from a process that sees the files through
	 * another mount namespace or root than ours: a user's own namespace
	 * can give any file any name. The first process of our view that maps
	 * the file renames it. */
	bool provisional;
	char *open_path; /* the path that opened it */
	const char *module;
	struct strtab *names;
	struct cachedir *cache; /* the registry's, for symindex */
	int fd;
	uid_t uid;       /* the file's owner: whose budget share it draws on */
	Elf *elf;        /* read from fd as needed, never mapped */
	int is_elf;
	uint64_t charged; /* bytes of elf's sections reserved in the budget */
	uint64_t lent;    /* ... of which binary__open_elf's, until it is closed */
	struct load_segment loads[MAX_LOADS];
	size_t nloads;
	uint64_t entry; /* e_entry, ELF vaddr; 0 when none */
	struct cfi *cfi;
	int cfi_tried;
	struct symindex *sym;
	int sym_tried;
	uint32_t unknown_frame; /* "[module]", interned on first use */
	/* the runtime a reader recognised in it (binary__set_runtime) */
	bool runtime_known;
	uint8_t runtime_tag;
	void *runtime_data;
	void (*runtime_free)(void *data);
	Elf *runtime_elf; /* the Elf the reader recognised it in (binary__keep_elf) */
};

struct binaries {
	struct strtab *names;
	struct loadbudget *budget; /* borrowed; NULL: none */
	uint64_t load_cpu_ns;  /* opening files, reading CFI and symbols */
	struct cachedir *cache;
	enum name_detail detail; /* of the names of binaries loaded from now on */
	struct binary *vdso;
	int vdso_err;
	struct u64map *by_id; /* hash(dev, ino) -> struct binary * (chain head) */
	struct stat self_mnt, self_root; /* our mount namespace and root */
	bool self_known;
	struct binary **all;
	size_t n, cap;
	struct mappings *mappings; /* every binary indexed, for dumps */
};

static uint64_t id_hash(uint64_t dev, uint64_t ino)
{
	return hash__mix(hash__u64(dev), ino);
}

struct binaries *binaries__new(struct strtab *names)
{
	struct binaries *bs = calloc(1, sizeof(*bs));

	if (!bs)
		return NULL;
	elf_version(EV_CURRENT);
	bs->names = names;
	bs->detail = NAME_DETAIL_DEFAULT;
	bs->by_id = u64map__new(256);
	bs->mappings = mappings__new();
	bs->self_known = stat("/proc/self/ns/mnt", &bs->self_mnt) == 0 &&
			 stat("/proc/self/root", &bs->self_root) == 0;
	if (!bs->by_id || !bs->mappings) {
		u64map__delete(bs->by_id);
		mappings__delete(bs->mappings);
		free(bs);
		return NULL;
	}
	return bs;
}

void binaries__set_cache(struct binaries *bs, struct cachedir *cache)
{
	bs->cache = cache;
}

void binaries__set_name_detail(struct binaries *bs, enum name_detail detail)
{
	bs->detail = detail;
}

void binaries__set_budget(struct binaries *bs, struct loadbudget *budget)
{
	bs->budget = budget;
}

static void drop_symbols(struct binary *b)
{
	if (b->sym && b->owner) {
		struct symindex_stats ss;

		/* what its symbols cost stays counted */
		symindex__stats(b->sym, &ss);
		b->owner->load_cpu_ns += ss.inl.build_cpu_ns;
	}
	symindex__delete(b->sym);
	b->sym = NULL;
	b->sym_tried = 0;
}

static void binary_delete(struct binary *b)
{
	if (!b)
		return;
	drop_symbols(b);
	cfi__delete(b->cfi);
	if (b->runtime_free)
		b->runtime_free(b->runtime_data);
	/* after the reader's data, which may point into it */
	if (b->runtime_elf)
		elf_end(b->runtime_elf);
	if (b->elf)
		elf_end(b->elf);
	if (b->charged && b->owner && b->owner->budget)
		loadbudget__release(b->owner->budget, b->uid, b->charged);
	if (b->fd >= 0)
		close(b->fd);
	free(b->path);
	free(b->open_path);
	free(b);
}

void binaries__delete(struct binaries *bs)
{
	size_t i;

	if (!bs)
		return;
	for (i = 0; i < bs->n; i++)
		binary_delete(bs->all[i]);
	free(bs->all);
	u64map__delete(bs->by_id);
	mappings__delete(bs->mappings);
	free(bs);
}

size_t binaries__count(const struct binaries *bs) { return bs->n; }
const struct mappings *binaries__mappings(const struct binaries *bs) { return bs->mappings; }

static struct binary *find(const struct binaries *bs, uint64_t dev, uint64_t ino)
{
	uint64_t v;
	struct binary *b;

	if (!u64map__get(bs->by_id, id_hash(dev, ino), &v))
		return NULL;
	for (b = (struct binary *)(uintptr_t)v; b; b = b->next_same_hash)
		if (b->dev == dev && b->ino == ino)
			return b;
	return NULL;
}

/* Room for one more binary in bs->all: 0 or -ENOMEM. */
static int make_room(struct binaries *bs)
{
	size_t nc = bs->cap ? bs->cap * 2 : 64;
	struct binary **na;

	if (bs->n < bs->cap)
		return 0;
	na = realloc(bs->all, nc * sizeof(*na));
	if (!na)
		return -ENOMEM;
	bs->all = na;
	bs->cap = nc;
	return 0;
}

static int insert(struct binaries *bs, struct binary *b)
{
	uint64_t h = id_hash(b->dev, b->ino), v;

	if (make_room(bs) < 0)
		return -ENOMEM;
	if (u64map__get(bs->by_id, h, &v))
		b->next_same_hash = (struct binary *)(uintptr_t)v;
	if (u64map__put(bs->by_id, h, (uint64_t)(uintptr_t)b) < 0)
		return -ENOMEM;
	bs->all[bs->n++] = b;
	return 0;
}

/* Opens candidate paths in order; keeps the first whose identity matches. */
static int open_matching(int pid, const char *path, uint64_t dev, uint64_t ino,
			 uint64_t map_start, uint64_t map_end, char *used, size_t used_size,
			 struct stat *st_out)
{
	char cand[3][4096];
	int cand_is_link[3] = { 0, 0, 0 };
	int ncand = 0, i;

	if (pid > 0 && path[0] == '/') {
		snprintf(cand[ncand++], sizeof(cand[0]), "/proc/%d/root%s", pid, path);
		cand_is_link[ncand] = 1;
		snprintf(cand[ncand++], sizeof(cand[0]), "/proc/%d/map_files/%llx-%llx", pid,
			 (unsigned long long)map_start, (unsigned long long)map_end);
	}
	if (path[0] == '/')
		snprintf(cand[ncand++], sizeof(cand[0]), "%s", path);
	for (i = 0; i < ncand; i++) {
		/* a mapped binary: any owner (system libraries are root's), a
		 * regular file only, nothing opened before it is checked; the
		 * map_files entry is the kernel's own link to the mapped file */
		struct userfile_rule rule = { USERFILE_ANY_OWNER, 1, 0, cand_is_link[i] };
		struct stat st;
		int fd = userfile__open(AT_FDCWD, cand[i], &rule, &st);

		if (fd < 0)
			continue;
		if (ino && ((uint64_t)st.st_ino != ino || (uint64_t)st.st_dev != dev)) {
			close(fd);
			continue;
		}
		{
			size_t l = strnlen(cand[i], sizeof(cand[i]) - 1);

			if (l >= used_size)
				l = used_size - 1;
			memcpy(used, cand[i], l);
			used[l] = '\0';
		}
		*st_out = st;
		return fd;
	}
	return -ENOENT;
}

static void read_loads(struct binary *b)
{
	GElf_Ehdr eh;
	size_t phnum, i;

	if (!gelf_getehdr(b->elf, &eh) || elf_getphdrnum(b->elf, &phnum) < 0)
		return;
	b->is_elf = 1;
	if (eh.e_type == ET_EXEC || eh.e_type == ET_DYN)
		b->entry = eh.e_entry;
	for (i = 0; i < phnum && b->nloads < MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(b->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		b->loads[b->nloads].offset = ph.p_offset;
		b->loads[b->nloads].vaddr = ph.p_vaddr;
		b->loads[b->nloads].filesz = ph.p_filesz;
		b->loads[b->nloads].exec = (ph.p_flags & PF_X) != 0;
		b->nloads++;
	}
}

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Whether process pid names files as we do: our mount namespace and our
 * root. In it only root can give a file another name (bind mounts; a
 * hard link to another user's file is refused by protected_hardlinks),
 * so the path it maps a file by is the file's. */
static bool same_view(const struct binaries *bs, int pid)
{
	char p[64];
	struct stat mnt, root;

	if (!bs->self_known || pid <= 0)
		return false;
	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", pid);
	if (stat(p, &mnt) != 0 || mnt.st_ino != bs->self_mnt.st_ino || mnt.st_dev != bs->self_mnt.st_dev)
		return false;
	snprintf(p, sizeof(p), "/proc/%d/root", pid);
	return stat(p, &root) == 0 && root.st_ino == bs->self_root.st_ino &&
	       root.st_dev == bs->self_root.st_dev;
}

/* A provisional binary mapped by a process of our view takes the name
 * that process maps it by; what was named after the old one (its module
 * frame, the symbols' module+offset names and the debug files looked for
 * beside the old path) is made again. */
static void settle_name(struct binaries *bs, struct binary *b, int pid, const char *path)
{
	char *np;

	if (!b->provisional || !same_view(bs, pid) || !(np = strdup(path)))
		return;
	free(b->path);
	b->path = np;
	b->module = basename_of(b->path);
	b->provisional = false;
	b->unknown_frame = 0;
	drop_symbols(b);
}

/* The miss path of binaries__get: opens the file, and makes its object
 * unless the file was known under another name. */
static int open_new(struct binaries *bs, int pid, const char *path, uint64_t dev, uint64_t ino,
		    uint64_t map_start, uint64_t map_end, struct binary **out)
{
	char used[4096];
	struct stat st;
	struct binary *b;
	int fd;

	fd = open_matching(pid, path, dev, ino, map_start, map_end, used, sizeof(used), &st);
	if (fd >= 0) {
		dev = (uint64_t)st.st_dev;
		ino = (uint64_t)st.st_ino;
		b = find(bs, dev, ino);
		if (b) {
			close(fd);
			settle_name(bs, b, pid, path);
			binaries__ref(b);
			*out = b;
			return 0;
		}
	} else if (!ino) {
		/* unopenable and unidentified: key it by its name so it is tried once */
		dev = 0;
		ino = hash__bytes(path, strlen(path), 0x5eed) | 1;
		b = find(bs, dev, ino);
		if (b) {
			binaries__ref(b);
			*out = b;
			return 0;
		}
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		goto out_close;
	b->fd = fd;
	b->owner = bs;
	b->names = bs->names;
	b->cache = bs->cache;
	b->dev = dev;
	b->ino = ino;
	b->path = strdup(path);
	b->open_path = strdup(fd >= 0 ? used : path);
	if (!b->path || !b->open_path)
		goto out_free;
	b->module = basename_of(b->path);
	b->provisional = !same_view(bs, pid);
	if (fd >= 0) {
		b->uid = st.st_uid;
		b->elf = elffile__read(fd);
		if (b->elf && elf_kind(b->elf) == ELF_K_ELF)
			read_loads(b);
	}
	if (insert(bs, b) < 0)
		goto out_free;
	b->refs = 1;
	*out = b;
	return 0;

out_free:
	b->fd = -1; /* closed below */
	binary_delete(b);
out_close:
	if (fd >= 0)
		close(fd);
	return -ENOMEM;
}

int binaries__get(struct binaries *bs, int pid, const char *path, uint64_t dev, uint64_t ino,
		  uint64_t map_start, uint64_t map_end, struct binary **out)
{
	struct binary *b;
	uint64_t t0;
	int rc;

	if (ino) {
		b = find(bs, dev, ino);
		if (b) {
			settle_name(bs, b, pid, path);
			binaries__ref(b);
			*out = b;
			return 0;
		}
	}
	t0 = selfusage__thread_cpu_ns();
	rc = open_new(bs, pid, path, dev, ino, map_start, map_end, out);
	bs->load_cpu_ns += selfusage__thread_cpu_ns() - t0;
	return rc;
}


/* How well segment l explains an executable mapping of the file range
 * [pgoff, pgoff + len): 0 not at all; more when it is the executable one
 * and when the mapping starts in the segment's first page. */
static int segment_score(const struct load_segment *l, uint64_t pgoff, uint64_t len)
{
	uint64_t first_page = l->offset & ~(uint64_t)0xfff;
	uint64_t end = l->offset + (l->filesz ? l->filesz : 1);
	int score = 1;

	if (pgoff >= end || pgoff + len <= first_page)
		return 0; /* no byte of the mapping is in the segment */
	/* lld and mold let the read-only and the executable segment share a
	 * file page: both contain pgoff, only one is what was mapped PROT_EXEC */
	if (l->exec)
		score += 2;
	if (pgoff == first_page)
		score += 1;
	return score;
}

uint64_t binary__bias(const struct binary *b, uint64_t map_start, uint64_t map_end, uint64_t pgoff)
{
	const struct load_segment *best = NULL;
	uint64_t len = map_end > map_start ? map_end - map_start : 1;
	int best_score = 0;
	size_t i;

	for (i = 0; i < b->nloads; i++) {
		int score = segment_score(&b->loads[i], pgoff, len);

		if (score > best_score) {
			best = &b->loads[i];
			best_score = score;
		}
	}
	if (!best && b->nloads)
		best = &b->loads[0];
	if (!best)
		return map_start - pgoff;
	/* the mapping holds file offset pgoff at map_start, and the segment
	 * puts file offset l->offset at ELF address l->vaddr */
	return map_start - pgoff - best->vaddr + best->offset;
}

/* Reserves what reading bytes more of the file will hold: 0, or -ENOSPC
 * when the budget refuses (counted). */
static int charge(struct binary *b, uint64_t bytes)
{
	struct loadbudget *lb = b->owner->budget;

	if (!lb || !bytes)
		return 0;
	if (loadbudget__charge(lb, b->uid, bytes) < 0) {
		loadbudget__refused(lb);
		return -ENOSPC;
	}
	b->charged += bytes;
	return 0;
}

struct cfi *binary__cfi(struct binary *b)
{
	if (!b->cfi_tried) {
		uint64_t t0 = selfusage__thread_cpu_ns();

		b->cfi_tried = 1;
		if (b->is_elf && charge(b, cfi__bytes(b->elf)) == 0 && cfi__new(b->elf, &b->cfi) < 0)
			b->cfi = NULL;
		b->owner->load_cpu_ns += selfusage__thread_cpu_ns() - t0;
	}
	return b->cfi;
}

struct symindex *binary__symindex(struct binary *b)
{
	if (!b->sym_tried) {
		uint64_t t0 = selfusage__thread_cpu_ns();
		int fd;

		b->sym_tried = 1;
		/* The file this object was opened and identified as, not its path
		 * again (it may have been replaced since); the process's path names
		 * it, so that a .gnu_debuglink is looked for under the debug root
		 * where distributions put it. */
		fd = b->fd >= 0 ? fcntl(b->fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (symindex__new_budgeted(fd, b->path, b->module, b->names, b->cache, b->owner->budget,
					   &b->sym) < 0) {
			b->sym = NULL;
		} else {
			const unsigned char *id = NULL;
			size_t len = symindex__build_id(b->sym, &id);

			symindex__set_name_detail(b->sym, b->owner->detail);
			/* best effort: a binary past the table's bound keeps its
			 * frames, unnamed afterwards as they were before */
			(void)mappings__add_bytes(b->owner->mappings, b->module, b->path, id, len);
		}
		b->owner->load_cpu_ns += selfusage__thread_cpu_ns() - t0;
	}
	return b->sym;
}

uint32_t binary__unknown_frame(struct binary *b)
{
	if (!b->unknown_frame && frame_name__module(b->names, b->module, &b->unknown_frame) < 0)
		b->unknown_frame = 0;
	return b->unknown_frame;
}

const char *binary__module(const struct binary *b) { return b->module; }
uint64_t binary__entry(const struct binary *b) { return b->entry; }
const char *binary__path(const struct binary *b) { return b->path; }
int binary__is_elf(const struct binary *b) { return b->is_elf; }
Elf *binary__open_elf(struct binary *b)
{
	uint64_t bytes;
	Elf *elf;

	if (!b->is_elf)
		return NULL;
	/* readers look exports up in .dynsym, some in .symtab, and the
	 * soname up in .dynamic */
	bytes = elffile__symtab_bytes(b->elf, SHT_DYNSYM) + elffile__symtab_bytes(b->elf, SHT_SYMTAB) +
		elffile__symtab_bytes(b->elf, SHT_DYNAMIC);
	if (charge(b, bytes) < 0)
		return NULL;
	if (b->owner->budget)
		b->lent = bytes;
	elf = elffile__read(b->fd);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		binary__close_elf(b, elf);
		return NULL;
	}
	return elf;
}

void binary__keep_elf(struct binary *b, Elf *elf)
{
	if (b->runtime_elf)
		elf_end(b->runtime_elf);
	b->runtime_elf = elf;
	b->lent = 0; /* charged until the binary goes */
}

void binary__close_elf(struct binary *b, Elf *elf)
{
	if (elf)
		elf_end(elf);
	if (b->lent) {
		loadbudget__release(b->owner->budget, b->uid, b->lent);
		b->charged -= b->lent;
		b->lent = 0;
	}
}

bool binary__runtime(const struct binary *b, uint8_t *tag, void **data)
{
	if (!b->runtime_known)
		return false;
	*tag = b->runtime_tag;
	*data = b->runtime_data;
	return true;
}

void binary__set_runtime(struct binary *b, uint8_t tag, void *data, void (*free_data)(void *))
{
	if (b->runtime_free)
		b->runtime_free(b->runtime_data);
	b->runtime_known = true;
	b->runtime_tag = tag;
	b->runtime_data = data;
	b->runtime_free = free_data;
}

int binaries__get_vdso(struct binaries *bs, struct binary **out)
{
	struct binary *b;
	int fd;

	if (bs->vdso) {
		binaries__ref(bs->vdso);
		*out = bs->vdso;
		return 0;
	}
	if (bs->vdso_err)
		return bs->vdso_err;
	fd = vdso__copy();
	if (fd < 0) {
		bs->vdso_err = fd;
		return fd;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	b->fd = fd;
	b->owner = bs;
	b->names = bs->names;
	b->cache = bs->cache;
	b->dev = 0;
	b->ino = 0; /* never matches a file: (0, 0) is not a key find() is asked for */
	b->path = strdup("[vdso]");
	b->open_path = malloc(64);
	if (!b->path || !b->open_path) {
		binary_delete(b);
		return -ENOMEM;
	}
	/* the symbolizer reopens the file through our descriptor */
	snprintf(b->open_path, 64, "/proc/self/fd/%d", fd);
	b->module = b->path;
	b->uid = geteuid();
	b->elf = elffile__read(fd);
	if (b->elf && elf_kind(b->elf) == ELF_K_ELF)
		read_loads(b);
	if (make_room(bs) < 0) {
		binary_delete(b);
		return -ENOMEM;
	}
	bs->all[bs->n++] = b;
	bs->vdso = b;
	b->refs = 2; /* the caller's, and ours: it is never trimmed */
	*out = b;
	return 0;
}

void binaries__stats(const struct binaries *bs, struct binaries_stats *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->load_cpu_ns = bs->load_cpu_ns;
	for (i = 0; i < bs->n; i++) {
		const struct binary *b = bs->all[i];

		if (b->cfi) {
			struct cfi_stats cs;

			cfi__stats(b->cfi, &cs);
			out->cfi_lookups += cs.lookups;
			out->cfi_hits += cs.hits;
			out->cfi_evictions += cs.evictions;
		}
		if (b->sym) {
			struct symindex_stats ss;

			symindex__stats(b->sym, &ss);
			out->sym_lookups += ss.lookups;
			out->sym_hits += ss.hits;
			out->sym_evictions += ss.evictions;
			out->inline_lookups += ss.inl.lookups;
			out->inline_hits += ss.inl.hits;
			out->inline_evictions += ss.inl.evictions;
			out->inline_builds += ss.inl.builds;
			out->inline_loads += ss.inl.loads;
			out->inline_index_bytes += ss.inl.heap_bytes + ss.inl.file_bytes;
			out->inline_rejected += ss.inl.rejected;
			out->load_cpu_ns += ss.inl.build_cpu_ns;
		}
	}
}

int binaries__remap_names(struct binaries *bs, struct strtab_remap *r)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < bs->n; i++) {
		err = strtab_remap__id(r, &bs->all[i]->unknown_frame);
		if (!err && bs->all[i]->sym)
			err = symindex__remap_names(bs->all[i]->sym, r);
	}
	if (!err && r->commit) {
		for (i = 0; i < bs->n; i++)
			bs->all[i]->names = r->to;
		bs->names = r->to;
	}
	return err;
}

void binaries__ref(struct binary *b)
{
	b->refs++;
}

void binaries__put(struct binaries *bs, struct binary *b, uint64_t now_ns)
{
	(void)bs;
	if (b->refs && --b->refs == 0)
		b->idle_since = now_ns ? now_ns : 1;
}

/* Takes b out of the (dev, ino) index. */
static void unindex(struct binaries *bs, struct binary *b)
{
	uint64_t h = id_hash(b->dev, b->ino), v;
	struct binary *head, *p;

	if (!u64map__get(bs->by_id, h, &v))
		return;
	head = (struct binary *)(uintptr_t)v;
	if (head == b) {
		if (b->next_same_hash)
			u64map__put(bs->by_id, h, (uint64_t)(uintptr_t)b->next_same_hash);
		else
			u64map__del(bs->by_id, h);
		return;
	}
	for (p = head; p && p->next_same_hash; p = p->next_same_hash)
		if (p->next_same_hash == b) {
			p->next_same_hash = b->next_same_hash;
			return;
		}
}

/* Inline trees a long-lived binary's symbols built are written to the cache
 * directory this long after the first of them, so that a restart after a
 * crash finds them too (a clean exit writes them at once). */
#define INLINE_SAVE_AGE_NS (30ull * 1000000000ull)

size_t binaries__trim(struct binaries *bs, uint64_t now_ns, uint64_t grace_ns, size_t max_idle)
{
	size_t i, keep = 0, idle = 0, freed = 0;
	uint64_t cutoff = now_ns > grace_ns ? now_ns - grace_ns : 0;

	for (i = 0; i < bs->n; i++)
		if (bs->all[i]->refs == 0)
			idle++;
	/* too many unused ones: the grace period shrinks until few enough remain */
	while (idle > max_idle && cutoff < now_ns) {
		size_t older = 0;

		for (i = 0; i < bs->n; i++)
			if (bs->all[i]->refs == 0 && bs->all[i]->idle_since < cutoff)
				older++;
		if (idle - older <= max_idle)
			break;
		cutoff += (now_ns - cutoff) / 2 + 1;
	}
	for (i = 0; i < bs->n; i++) {
		struct binary *b = bs->all[i];

		if (b->refs == 0 && b->idle_since < cutoff) {
			unindex(bs, b);
			binary_delete(b);
			freed++;
			continue;
		}
		if (b->sym)
			symindex__maintain(b->sym, now_ns, INLINE_SAVE_AGE_NS);
		bs->all[keep++] = b;
	}
	bs->n = keep;
	return freed;
}
