/* Which PHP function opcache's tracing JIT ran at a sample
 * (runtimes/php_jit.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/memsource.h"
#include "runtimes/php_jit.h"
#include "runtimes/php_layout.h"

#define PAGE 4096u
#define SCAN_PAGES (PHP_JIT_SCAN_BYTES / PAGE)
/* The longest trace start: mov rax, imm64 (10 bytes); mov dword [rax],
 * imm32 (6 bytes). */
#define START_BYTES 16
/* Trace numbers opcache hands out (jit_max_root_traces + side traces). */
#define TRACE_NUM_MAX (1u << 16)
/* Instructions whose handlers are read at once. */
#define OPS_CHUNK 128
#define CACHE_SLOTS 128

/* What a scan found: code [lo, hi] holds no trace start above `start`
 * (lo itself when there is one; 0: none within reach of hi, and lo is
 * hi). Every pc in it has the same answer, so the samples of one trace
 * scan once. */
struct span_slot {
	uint64_t lo, hi, start, ns;
};

struct fn_slot {
	uint64_t opcodes, start, opline, ns; /* opline 0: not the function's */
};

struct php_jit {
	uint64_t eg;
	struct span_slot spans[CACHE_SLOTS];
	size_t next_span;         /* the slot the next scan replaces */
	struct fn_slot fns[CACHE_SLOTS];
	uint64_t scans, hits;
	uint8_t code[SCAN_PAGES * PAGE + START_BYTES];
	uint8_t ops[OPS_CHUNK * 64];
};

struct php_jit *php_jit__new(uint64_t eg)
{
	struct php_jit *j = calloc(1, sizeof(*j));

	if (j)
		j->eg = eg;
	return j;
}

void php_jit__delete(struct php_jit *j)
{
	free(j);
}

void php_jit__counts(const struct php_jit *j, uint64_t *scans, uint64_t *hits)
{
	*scans = j->scans;
	*hits = j->hits;
}

static size_t slot_of(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

	return (size_t)(h >> 57) % CACHE_SLOTS;
}

static bool fresh(uint64_t ns, uint64_t now_ns)
{
	return ns && now_ns >= ns && now_ns - ns < PHP_JIT_TTL_NS;
}

static bool in_eg(const struct php_jit *j, uint64_t a)
{
	return a >= j->eg && a - j->eg < PHP_JIT_EG_SPAN;
}

/* Whether a trace starts at b[0..avail): a store of a trace number into
 * the executor globals, through rax or at an absolute address. */
static bool trace_start(const struct php_jit *j, const uint8_t *b, size_t avail)
{
	uint64_t addr;
	uint32_t num, disp;

	if (avail >= 16 && b[0] == 0x48 && b[1] == 0xb8 && b[10] == 0xc7 && b[11] == 0x00) {
		memcpy(&addr, b + 2, 8);
		memcpy(&num, b + 12, 4);
		return in_eg(j, addr) && num >= 1 && num < TRACE_NUM_MAX;
	}
	if (avail >= 11 && b[0] == 0xc7 && b[1] == 0x04 && b[2] == 0x25) {
		memcpy(&disp, b + 3, 4);
		memcpy(&num, b + 7, 4);
		return in_eg(j, disp) && num >= 1 && num < TRACE_NUM_MAX;
	}
	return false;
}

/* The nearest trace start at or below pc, read from the code: 0 with
 * *start (0: none within reach), or -EFAULT when pc's own page does not
 * read. */
static int scan(struct php_jit *j, struct memsource *m, uint64_t pc, uint64_t *start)
{
	uint64_t page = pc & ~(uint64_t)(PAGE - 1), base, addrs[SCAN_PAGES + 1];
	size_t lens[SCAN_PAGES + 1], i, lo, hi, off;
	void *bufs[SCAN_PAGES + 1];
	bool ok[SCAN_PAGES + 1];
	int got;

	*start = 0;
	if (page < (uint64_t)(SCAN_PAGES - 1) * PAGE)
		return -EFAULT;
	base = page - (uint64_t)(SCAN_PAGES - 1) * PAGE;
	for (i = 0; i < SCAN_PAGES; i++) {
		addrs[i] = base + i * PAGE;
		lens[i] = PAGE;
		bufs[i] = j->code + i * PAGE;
	}
	/* a start at the pc itself may run into the next page */
	addrs[SCAN_PAGES] = page + PAGE;
	lens[SCAN_PAGES] = START_BYTES;
	bufs[SCAN_PAGES] = j->code + SCAN_PAGES * PAGE;
	j->scans++;
	got = memsource__readv(m, addrs, lens, bufs, ok, SCAN_PAGES + 1);
	if (got < 0)
		return got;
	if (!ok[SCAN_PAGES - 1])
		return -EFAULT;
	/* what was read whole, contiguous down from pc's page */
	hi = ok[SCAN_PAGES] ? sizeof(j->code) : SCAN_PAGES * PAGE;
	for (i = SCAN_PAGES - 1; i > 0 && ok[i - 1]; i--)
		;
	lo = i * PAGE;
	for (off = (size_t)(pc - base) + 1; off-- > lo;)
		if (trace_start(j, j->code + off, hi - off)) {
			*start = base + off;
			break;
		}
	return 0;
}

/* The instruction of the function whose handler is start: 0 with *opline
 * (0: none), or a read's -errno. */
static int handler_of(struct php_jit *j, struct memsource *m, const struct php_layout *l,
		      uint64_t opcodes, uint32_t last, uint64_t start, uint64_t *opline)
{
	size_t n = last < PHP_JIT_OPS_MAX ? last : PHP_JIT_OPS_MAX, done, k;

	*opline = 0;
	if (l->zop_size < 8 || l->zop_size > sizeof(j->ops) / OPS_CHUNK)
		return -EPROTO;
	for (done = 0; done < n; done += OPS_CHUNK) {
		size_t c = n - done < OPS_CHUNK ? n - done : OPS_CHUNK;
		int err = memsource__read(m, opcodes + done * l->zop_size, j->ops, c * l->zop_size);

		if (err)
			return err;
		for (k = 0; k < c; k++) {
			uint64_t h;

			/* zend_op.handler is its first word */
			memcpy(&h, j->ops + k * l->zop_size, 8);
			if (h == start) {
				*opline = opcodes + (done + k) * l->zop_size;
				return 0;
			}
		}
	}
	return 0;
}

/* The trace start of pc from the spans scanned: true with *start. */
static bool known_start(struct php_jit *j, uint64_t pc, uint64_t now_ns, uint64_t *start)
{
	size_t i;

	for (i = 0; i < CACHE_SLOTS; i++) {
		const struct span_slot *sp = &j->spans[i];

		if (pc >= sp->lo && pc <= sp->hi && fresh(sp->ns, now_ns)) {
			*start = sp->start;
			return true;
		}
	}
	return false;
}

/* Remembers a scan from pc: its trace's span grows to pc. */
static void remember_span(struct php_jit *j, uint64_t pc, uint64_t start, uint64_t now_ns)
{
	struct span_slot *sp = NULL;
	size_t i;

	for (i = 0; start && i < CACHE_SLOTS; i++)
		if (j->spans[i].start == start && fresh(j->spans[i].ns, now_ns) &&
		    j->spans[i].hi < pc) {
			sp = &j->spans[i];
			break;
		}
	if (!sp) {
		sp = &j->spans[j->next_span];
		j->next_span = (j->next_span + 1) % CACHE_SLOTS;
		sp->lo = start ? start : pc;
		sp->ns = now_ns ? now_ns : 1;
		sp->start = start;
	}
	sp->hi = pc;
}

int php_jit__witness(struct php_jit *j, struct memsource *m, const struct php_layout *l,
		     uint64_t pc, uint64_t opcodes, uint32_t last, uint64_t now_ns,
		     uint64_t *opline)
{
	struct fn_slot *fs;
	uint64_t start;
	int err;

	*opline = 0;
	if (known_start(j, pc, now_ns, &start)) {
		j->hits++;
	} else {
		err = scan(j, m, pc, &start);
		if (err)
			return err;
		remember_span(j, pc, start, now_ns);
	}
	if (!start)
		return -ENOENT;
	fs = &j->fns[slot_of(opcodes, start)];
	if (fs->opcodes == opcodes && fs->start == start && fresh(fs->ns, now_ns)) {
		j->hits++;
	} else {
		uint64_t at;

		err = handler_of(j, m, l, opcodes, last, start, &at);
		if (err)
			return err;
		fs->opcodes = opcodes;
		fs->start = start;
		fs->opline = at;
		fs->ns = now_ns ? now_ns : 1;
	}
	*opline = fs->opline;
	return *opline ? 0 : -ENOENT;
}
