/* A HotSpot JVM's code cache read from outside: which blob holds a pc,
 * what kind of code it is, and how big its frame is. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "runtimes/accountant.h"
#include "runtimes/hotspot_impl.h"

/* A code heap is at most 2 GiB (ReservedCodeCacheSize's limit); a blob
 * spans at most this many segment-map hops back to its start (each hop
 * is <= 254 segments: 16 MiB of 128-byte segments, far beyond the largest
 * nmethod). */
#define MAX_HEAP_BYTES (1ull << 31)
#define MAX_HOPS 512
/* Bytes of the segment map read at once: at least 16 hops back each. */
#define SEGMAP_WINDOW 4096
/* A blob's name is a C string literal of HotSpot's ("nmethod",
 * "Interpreter", "StubRoutines (1)", "I2C/C2I adapters", ...). */
#define BLOB_NAME_MAX 96
/* The heaps are read again when a pc is in none of them, at most this
 * often (a dozen reads): they grow, and a JVM starting up fills them in. */
#define HEAPS_REREAD_NS 100000000ull
/* Frames are words; no real frame is near this many. */
#define MAX_FRAME_WORDS (1u << 16)

int hotspot__open(const struct memsource *mem, const uint64_t sym[HS_NSYMBOLS], bool lines,
		  struct strtab *names, struct hotspot **out)
{
	struct hotspot *h = calloc(1, sizeof(*h));
	int err;

	if (!h)
		return -ENOMEM;
	h->mem = *mem;
	h->names = names;
	h->lines = lines;
	err = hotspot_vm__read(&h->mem, sym, &h->vm);
	if (!err && memsource__u64(&h->mem, h->vm.call_stub_return, &h->call_stub_return) != 0)
		err = -EPROTO;
	if (!err) {
		h->method_ids = u64map__new(256);
		h->pc_frames = u64map__new(256);
		h->frames = u64map__new(256);
		h->methods = u64map__new(256);
		h->class_files = u64map__new(256);
		if (!h->method_ids || !h->pc_frames || !h->frames || !h->methods || !h->class_files)
			err = -ENOMEM;
	}
	if (err) {
		hotspot__delete(h);
		return err;
	}
	*out = h;
	return 0;
}

void hotspot__delete(struct hotspot *h)
{
	if (!h)
		return;
	u64map__delete(h->method_ids);
	u64map__delete(h->pc_frames);
	u64map__delete(h->frames);
	u64map__delete(h->methods);
	u64map__delete(h->class_files);
	free(h->text);
	free(h->pool);
	free(h->blobs);
	free(h);
}

const struct hotspot_vm *hotspot__vm(const struct hotspot *h)
{
	return &h->vm;
}

void hotspot__interp_slots(const struct hotspot *h, int *method_slot, int *sender_sp_slot,
			   int *bcp_slot)
{
	*method_slot = h->vm.interp_method;
	*sender_sp_slot = h->vm.interp_sender_sp;
	*bcp_slot = h->vm.interp_bcp;
}

bool hotspot__lines(const struct hotspot *h)
{
	return h->lines;
}

void hotspot__stats(const struct hotspot *h, struct hotspot_stats *out)
{
	*out = h->stats;
	out->reads = h->mem.reads;
}

/* One CodeHeap: its memory and segment map. Its reserved end where it is
 * exported, not the end committed so far: a heap grows into it between
 * two reads (a JIT-heavy start-up, javac's, commits more every few
 * milliseconds), and its segment map grows with it, so code there is
 * found without reading the heaps again. */
static int read_heap(struct hotspot *h, uint64_t heap, struct hotspot_heap *out)
{
	const struct hotspot_vm *vm = &h->vm;
	uint64_t mem = heap + (uint64_t)vm->heap_memory, seg = heap + (uint64_t)vm->heap_segmap;
	uint64_t low_boundary, high, high_boundary, segmap;
	uint32_t log2;

	if (memsource__u64(&h->mem, mem + (uint64_t)vm->vspace_low_boundary, &low_boundary) ||
	    memsource__u64(&h->mem, mem + (uint64_t)vm->vspace_high, &high) ||
	    memsource__u64(&h->mem, seg + (uint64_t)vm->vspace_low, &segmap) ||
	    memsource__u32(&h->mem, heap + (uint64_t)vm->heap_log2_segment, &log2))
		return -EFAULT;
	if (high <= low_boundary || high - low_boundary > MAX_HEAP_BYTES || log2 < 4 || log2 > 16 ||
	    !segmap)
		return -EPROTO;
	if (vm->vspace_high_boundary >= 0 &&
	    memsource__u64(&h->mem, mem + (uint64_t)vm->vspace_high_boundary, &high_boundary) == 0 &&
	    high_boundary > high && high_boundary - low_boundary <= MAX_HEAP_BYTES)
		high = high_boundary;
	out->low = low_boundary;
	out->high = high;
	out->segmap = segmap;
	out->log2_segment = log2;
	return 0;
}

int hotspot_code__read_heaps(struct hotspot *h, uint64_t now_ns)
{
	const struct hotspot_vm *vm = &h->vm;
	uint64_t list[HOTSPOT_MAX_HEAPS], arr, data;
	uint32_t len = 1;
	size_t i, n = 0;

	h->heaps_read_ns = now_ns ? now_ns : 1;
	if (vm->codecache_heaps) {
		if (memsource__u64(&h->mem, vm->codecache_heaps, &arr) || !arr ||
		    memsource__u32(&h->mem, arr + (uint64_t)vm->array_len, &len) ||
		    memsource__u64(&h->mem, arr + (uint64_t)vm->array_data, &data))
			return -EFAULT;
		if (len == 0 || len > HOTSPOT_MAX_HEAPS ||
		    memsource__read(&h->mem, data, list, len * sizeof(list[0])))
			return -EPROTO;
	} else if (memsource__u64(&h->mem, vm->codecache_heap, &list[0])) {
		return -EFAULT;
	}
	for (i = 0; i < len; i++)
		if (list[i] && read_heap(h, list[i], &h->heaps[n]) == 0)
			n++;
	h->nheaps = n;
	h->cc_low = UINT64_MAX;
	h->cc_high = 0;
	for (i = 0; i < n; i++) {
		if (h->heaps[i].low < h->cc_low)
			h->cc_low = h->heaps[i].low;
		if (h->heaps[i].high > h->cc_high)
			h->cc_high = h->heaps[i].high;
	}
	/* the reserved bounds, when exported, cover heaps still to grow */
	if (vm->codecache_low && vm->codecache_high) {
		uint64_t lo, hi;

		if (memsource__u64(&h->mem, vm->codecache_low, &lo) == 0 &&
		    memsource__u64(&h->mem, vm->codecache_high, &hi) == 0 && lo < hi &&
		    hi - lo <= MAX_HEAP_BYTES * 2) {
			h->cc_low = lo < h->cc_low ? lo : h->cc_low;
			h->cc_high = hi > h->cc_high ? hi : h->cc_high;
		}
	}
	return n ? 0 : -EPROTO;
}

/* The start of the heap block holding pc, from the segment map: each
 * segment's byte is 0 at a block's first segment, else how many segments
 * to step back (0xFF: the segment is free). */
static int block_start(struct hotspot *h, const struct hotspot_heap *hp, uint64_t pc, uint64_t *out)
{
	uint64_t idx = (pc - hp->low) >> hp->log2_segment;
	uint8_t win[SEGMAP_WINDOW];
	uint64_t win_lo = 1, win_hi = 0; /* empty */
	unsigned hops;
	int err;

	for (hops = 0; hops < MAX_HOPS; hops++) {
		uint8_t b;

		if (idx < win_lo || idx > win_hi) {
			win_hi = idx;
			win_lo = idx >= SEGMAP_WINDOW - 1 ? idx - (SEGMAP_WINDOW - 1) : 0;
			err = memsource__read(&h->mem, hp->segmap + win_lo, win,
					      (size_t)(win_hi - win_lo + 1));
			if (err)
				return err;
		}
		b = win[idx - win_lo];
		if (b == 0xFF)
			return -ENOENT;
		if (b == 0) {
			*out = hp->low + (idx << hp->log2_segment);
			return 0;
		}
		if (b > idx)
			return -EPROTO;
		idx -= b;
	}
	return -EPROTO;
}

static int32_t i32_at(const uint8_t *hdr, int64_t off)
{
	int32_t v;

	memcpy(&v, hdr + off, sizeof(v));
	return v;
}

static uint64_t u64_at(const uint8_t *hdr, int64_t off)
{
	uint64_t v;

	memcpy(&v, hdr + off, sizeof(v));
	return v;
}

static bool within(uint64_t a, uint64_t lo, uint64_t hi)
{
	return a >= lo && a <= hi;
}

/* The kind of a blob from its name (hotspot.h lists them). */
static enum hotspot_code_kind kind_of(const char *name, uint32_t frame_bytes)
{
	if (strcmp(name, "nmethod") == 0 || strcmp(name, "native nmethod") == 0)
		return HOTSPOT_COMPILED;
	if (strcmp(name, "Interpreter") == 0)
		return HOTSPOT_INTERPRETER;
	if (frame_bytes)
		return HOTSPOT_STUB;
	return strncmp(name, "StubRoutines", 12) == 0 ? HOTSPOT_STUB_ROUTINES : HOTSPOT_FRAMELESS;
}

/* Where a blob's code ends: CodeBlob::_code_end (9+), else its data (8),
 * else the blob's end. */
static uint64_t code_end(const struct hotspot_vm *vm, const uint8_t *hdr, const struct hotspot_blob *b)
{
	uint64_t e = b->end;

	if (vm->blob_code_end >= 0)
		e = u64_at(hdr, vm->blob_code_end);
	else if (vm->blob_data_offset >= 0)
		e = b->addr + (uint64_t)(uint32_t)i32_at(hdr, vm->blob_data_offset);
	return within(e, b->code_begin, b->end) ? e : b->end;
}

/* Reads the blob at addr (a block's payload) and checks that it holds pc. */
static int read_blob(struct hotspot *h, uint64_t addr, uint64_t pc, struct hotspot_blob *b)
{
	const struct hotspot_vm *vm = &h->vm;
	uint8_t hdr[4096];
	char name[BLOB_NAME_MAX];
	int32_t size, frame_words, complete;
	int err;

	h->stats.blob_reads++;
	err = memsource__read(&h->mem, addr, hdr, vm->blob_header_bytes);
	if (err)
		return err;
	memset(b, 0, sizeof(*b));
	size = i32_at(hdr, vm->blob_size);
	frame_words = i32_at(hdr, vm->blob_frame_size);
	complete = i32_at(hdr, vm->blob_frame_complete);
	/* C1's leaf runtime stubs (slow_subtype_check, the G1 barriers) have
	 * no frame size: -1 */
	if (frame_words == -1)
		frame_words = 0;
	if (size <= 0 || (uint64_t)size > MAX_HEAP_BYTES || frame_words < 0 ||
	    (uint32_t)frame_words > MAX_FRAME_WORDS)
		return -EPROTO;
	b->addr = addr;
	b->end = addr + (uint64_t)size;
	if (vm->blob_code_begin >= 0) {
		b->code_begin = u64_at(hdr, vm->blob_code_begin);
	} else {
		b->code_begin = addr + (uint64_t)(uint32_t)i32_at(hdr, vm->blob_code_offset);
	}
	if (pc < addr || pc >= b->end || !within(b->code_begin, addr, b->end))
		return -EPROTO;
	b->code_end = code_end(vm, hdr, b);
	b->frame_bytes = (uint32_t)frame_words * 8;
	b->frame_complete = complete >= 0 && (uint64_t)complete < b->code_end - b->code_begin
				    ? complete
				    : -1;
	b->name_ptr = u64_at(hdr, vm->blob_name);
	if (memsource__str(&h->mem, b->name_ptr, name, sizeof(name)) < 0)
		return -EPROTO;
	b->kind = kind_of(name, b->frame_bytes);
	if (b->kind == HOTSPOT_COMPILED && name[0] == 'n' && name[1] == 'a') {
		/* a native method's wrapper: its method, no scopes to read */
		b->method = u64_at(hdr, vm->nm_method);
		b->compile_id = i32_at(hdr, vm->nm_compile_id);
		if (!b->method)
			return -EPROTO;
	} else if (b->kind == HOTSPOT_COMPILED) {
		uint64_t scopes;

		b->method = u64_at(hdr, vm->nm_method);
		b->compile_id = i32_at(hdr, vm->nm_compile_id);
		b->pcs_begin = addr + (uint64_t)(uint32_t)i32_at(hdr, vm->nm_scopes_pcs_offset);
		b->pcs_end = addr + (uint64_t)(uint32_t)i32_at(hdr, vm->nm_dependencies_offset);
		b->metadata_begin = addr + (uint64_t)(uint32_t)i32_at(hdr, vm->nm_metadata_offset);
		scopes = vm->nm_scopes_data_begin >= 0
				 ? u64_at(hdr, vm->nm_scopes_data_begin)
				 : addr + (uint64_t)(uint32_t)i32_at(hdr, vm->nm_scopes_data_offset);
		b->scopes_begin = scopes;
		if (!b->method || !within(b->pcs_begin, addr, b->end) ||
		    !within(b->pcs_end, b->pcs_begin, b->end) ||
		    !within(b->scopes_begin, addr, b->pcs_begin) ||
		    !within(b->metadata_begin, addr, b->scopes_begin))
			return -EPROTO;
	}
	return 0;
}

/* Index of the first cached blob ending after pc. */
static size_t find_slot(const struct hotspot *h, uint64_t pc)
{
	size_t lo = 0, hi = h->nblobs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->blobs[mid].end <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Puts b in the cache in place of any blob it overlaps. */
static const struct hotspot_blob *cache_blob(struct hotspot *h, const struct hotspot_blob *b)
{
	size_t i = find_slot(h, b->addr), j = i;

	while (j < h->nblobs && h->blobs[j].addr < b->end)
		j++;
	if (i == j && h->nblobs == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		struct hotspot_blob *nb;

		if (cap > HOTSPOT_MAX_BLOBS) {
			/* full: start over (names stay cached by compile id) */
			h->nblobs = 0;
			i = j = 0;
			cap = h->cap;
		}
		if (cap > h->cap) {
			nb = realloc(h->blobs, cap * sizeof(*nb));
			if (!nb)
				return NULL;
			h->blobs = nb;
			h->cap = cap;
		}
	}
	if (i == j) {
		memmove(&h->blobs[i + 1], &h->blobs[i], (h->nblobs - i) * sizeof(*b));
		h->nblobs++;
	} else if (j > i + 1) {
		memmove(&h->blobs[i + 1], &h->blobs[j], (h->nblobs - j) * sizeof(*b));
		h->nblobs -= j - i - 1;
	}
	h->blobs[i] = *b;
	return &h->blobs[i];
}

static void drop_blob(struct hotspot *h, size_t i)
{
	memmove(&h->blobs[i], &h->blobs[i + 1], (h->nblobs - i - 1) * sizeof(h->blobs[0]));
	h->nblobs--;
}

bool hotspot_code__may_read(struct hotspot *h, uint64_t now_ns)
{
	return ledger__may_read(h->mem.ledger, now_ns);
}

static const struct hotspot_heap *heap_of(const struct hotspot *h, uint64_t pc)
{
	size_t i;

	for (i = 0; i < h->nheaps; i++)
		if (pc >= h->heaps[i].low && pc < h->heaps[i].high)
			return &h->heaps[i];
	return NULL;
}

/* Reads the blob holding pc from the code heaps as they were last read. */
static int find_blob(struct hotspot *h, uint64_t pc, struct hotspot_blob *b)
{
	const struct hotspot_heap *hp = heap_of(h, pc);
	uint64_t start;
	uint8_t used;
	int err;

	if (!hp)
		return -ENOENT;
	err = block_start(h, hp, pc, &start);
	if (err)
		return err;
	/* a block's payload (the blob) follows its HeapBlock header; the
	 * header says whether the block is in use */
	err = memsource__read(&h->mem, start + (uint64_t)h->vm.heapblock_used, &used, 1);
	if (err)
		return err;
	if (!used)
		return -ENOENT;
	return read_blob(h, start + h->vm.heapblock_size, pc, b);
}

const struct hotspot_blob *hotspot_code__blob(struct hotspot *h, uint64_t pc, uint64_t now_ns)
{
	struct hotspot_blob b;
	size_t i;
	int err;

	if (!h->heaps_read_ns || (!h->nheaps && now_ns - h->heaps_read_ns >= HEAPS_REREAD_NS))
		(void)hotspot_code__read_heaps(h, now_ns);
	if (pc < h->cc_low || pc >= h->cc_high)
		return NULL;
	i = find_slot(h, pc);
	if (i < h->nblobs && h->blobs[i].addr <= pc) {
		struct hotspot_blob *c = &h->blobs[i];

		if (now_ns - c->checked_ns < HOTSPOT_RECHECK_NS)
			return c;
		/* old: is the same blob still there? A process that is gone
		 * (its samples are still being read) changes no more code. */
		err = read_blob(h, c->addr, pc, &b);
		if (err == -ESRCH || (err == 0 && b.end == c->end && b.kind == c->kind &&
				      b.compile_id == c->compile_id && b.method == c->method)) {
			c->checked_ns = now_ns;
			return c;
		}
		drop_blob(h, i);
	}
	if (!hotspot_code__may_read(h, now_ns))
		return NULL;
	if (find_blob(h, pc, &b) != 0) {
		/* the heaps may have grown, or been read while the JVM was
		 * still setting them up: read them again, once a second */
		if (now_ns - h->heaps_read_ns < HEAPS_REREAD_NS ||
		    hotspot_code__read_heaps(h, now_ns) != 0 || find_blob(h, pc, &b) != 0) {
			h->stats.failures++;
			return NULL;
		}
	}
	b.checked_ns = now_ns;
	return cache_blob(h, &b);
}

enum hotspot_code_kind hotspot__code_at(struct hotspot *h, uint64_t pc, uint64_t now_ns,
					struct hotspot_code *out)
{
	const struct hotspot_blob *b;

	h->stats.lookups++;
	memset(out, 0, sizeof(*out));
	/* the call stub's return address: Java returns there into the frame
	 * of the native code that called it (JavaCalls::call_helper) */
	if (pc == h->call_stub_return && pc) {
		out->kind = HOTSPOT_CALL_STUB;
		return out->kind;
	}
	b = hotspot_code__blob(h, pc, now_ns);
	if (!b)
		return HOTSPOT_NOT_CODE;
	out->kind = b->kind;
	out->code_begin = b->code_begin;
	out->code_end = b->code_end;
	out->frame_bytes = b->frame_bytes;
	out->frame_complete = b->frame_complete > 0 ? (uint32_t)b->frame_complete : 0;
	return out->kind;
}
