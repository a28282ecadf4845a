/* Fuzz target: the unwinder (unwind/unwind.c, unwind/dwarf_expr.c, and the
 * rule decoding of unwind/cfi.c) on hostile registers and stack bytes, which
 * come from the sampled process. Byte 0 picks the mode:
 *  - even: unwind__dwarf and unwind__fp over the input's registers and stack,
 *    with pcs mapped into this program's own .text so that real CFI rows
 *    (of this executable, loaded once) are evaluated; bit 1 of the stack's
 *    base makes the copy the first half of the stack bytes and the whole
 *    of them the live stack beyond it (unwind/stackmem.c);
 *  - odd: dwarf_expr__eval of input-made ops (17 bytes each). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"
#include "unwind/cfi.h"
#include "unwind/dwarf_expr.h"
#include "unwind/stackmem.h"
#include "unwind/unwind.h"

#define MAX_FRAMES 128
#define MAX_OPS 300

static struct cfi *self_cfi;
static uint64_t text_lo, text_size;
static int owner_cfi, owner_fp;

static void load_self(void)
{
	static int done;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;
	int fd;

	if (done)
		return;
	done = 1;
	elf_version(EV_CURRENT);
	/* Kept open for the life of the process: the cfi borrows the Elf. */
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	FUZZ_CHECK(e && elf_getshdrstrndx(e, &shstrndx) == 0);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && strcmp(name, ".text") == 0) {
			text_lo = sh.sh_addr;
			text_size = sh.sh_size;
		}
	}
	FUZZ_CHECK(text_size > 0);
	FUZZ_CHECK(cfi__new(e, &self_cfi) == 0);
}

/* Every pc is "mapped": the top nibble 0xf is unmapped, 0xe a binary
 * without CFI, anything else lands in our .text at pc % size. */
/* The live stack: the input's stack bytes at the copy's base. */
static const uint8_t *live;
static size_t live_size;
static uint64_t live_base;

static ssize_t read_live(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < live_base || addr - live_base >= live_size)
		return 0;
	if (len > live_size - (addr - live_base))
		len = live_size - (addr - live_base);
	memcpy(buf, live + (addr - live_base), len);
	return (ssize_t)len;
}

static int find(void *ctx, uint64_t pc, struct unwind_module *out)
{
	(void)ctx;
	if ((pc >> 60) == 0xf)
		return -ENOENT;
	if ((pc >> 60) == 0xe) {
		out->cfi = NULL;
		out->bias = 0;
		out->owner = &owner_fp;
		return 0;
	}
	out->cfi = self_cfi;
	out->bias = pc - (text_lo + pc % text_size);
	out->owner = &owner_cfi;
	return 0;
}

static void fuzz_ops(const uint8_t *data, size_t size)
{
	static Dwarf_Op ops[MAX_OPS];
	struct unwind_regs regs;
	struct unwind_stack stack;
	struct dwarf_expr_ctx ctx;
	uint64_t out;
	size_t nops = 0;

	/* header: 17 registers' low bytes pattern, valid mask, cfa */
	if (size < 4 + 8 + 8)
		return;
	memset(&regs, 0, sizeof(regs));
	memcpy(&regs.valid, data, 4);
	for (nops = 0; nops < UNWIND_NREGS; nops++)
		regs.val[nops] = 0x7ffd0000ull + nops * 8;
	memcpy(&ctx.cfa, data + 4, 8);
	memcpy(&stack.base, data + 12, 8);
	data += 20;
	size -= 20;
	ctx.cfa_valid = stack.base & 1;
	stack.base &= ~(uint64_t)1;
	/* the stack: the first 64 bytes after the header (or fewer) */
	stack.data = data;
	stack.size = size < 64 ? size : 64;
	stack.far = NULL;
	ctx.regs = &regs;
	ctx.stack = &stack;
	data += stack.size;
	size -= stack.size;
	nops = 0;
	while (size >= 17 && nops < MAX_OPS) {
		memset(&ops[nops], 0, sizeof(ops[nops]));
		ops[nops].atom = data[0];
		memcpy(&ops[nops].number, data + 1, 8);
		memcpy(&ops[nops].number2, data + 9, 8);
		/* offsets are what branches resolve against: keep them the
		 * byte-ish positions libdw would give, from the number bytes */
		ops[nops].offset = nops * 3;
		data += 17;
		size -= 17;
		nops++;
	}
	(void)dwarf_expr__eval(ops, nops, &ctx, &out);
}

static void fuzz_unwind(const uint8_t *data, size_t size)
{
	static struct unwind_frame frames[MAX_FRAMES];
	struct unwind_regs regs;
	static uint8_t farbuf[64 << 10];
	struct stackmem_far far;
	struct unwind_stack stack;
	enum unwind_stop stop;
	size_t n, i, max;
	int with_far;

	if (size < 1 + 8 + sizeof(regs.val) + 4)
		return;
	load_self();
	max = (size_t)data[0] % (MAX_FRAMES + 1);
	memcpy(&stack.base, data + 1, 8);
	memcpy(regs.val, data + 9, sizeof(regs.val));
	memcpy(&regs.valid, data + 9 + sizeof(regs.val), 4);
	data += 13 + sizeof(regs.val);
	size -= 13 + sizeof(regs.val);
	stack.data = data;
	stack.size = size;
	stack.far = NULL;
	with_far = (stack.base & 2) != 0;
	/* the stack usually starts at sp: let bit 0 of base say so */
	if (stack.base & 1)
		stack.base = regs.val[UNWIND_REG_SP];
	if (with_far) {
		memset(&far, 0, sizeof(far));
		far.read = read_live;
		far.buf = farbuf;
		far.cap = sizeof(farbuf);
		live = data;
		live_size = size;
		live_base = stack.base;
		stack.size = size / 2;
		stack.far = &far;
	}

	if (unwind__dwarf(&regs, &stack, find, NULL, frames, max, &n, &stop) == 0) {
		FUZZ_CHECK(n <= max && stop < UNWIND_NSTOP);
		FUZZ_CHECK(unwind__stop_name(stop) != NULL);
		for (i = 0; i < n; i++)
			FUZZ_CHECK(frames[i].owner == NULL || frames[i].owner == &owner_cfi ||
				   frames[i].owner == &owner_fp);
	}
	if (unwind__fp(&regs, &stack, find, NULL, frames, max, &n, &stop) == 0)
		FUZZ_CHECK(n <= max && stop < UNWIND_NSTOP);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_ops(data + 1, size - 1);
	else
		fuzz_unwind(data + 1, size - 1);
	return 0;
}
