/* The HotSpot row of the runtime table: libjvm.so recognised by the
 * self-description tables it exports, its code cache described to the
 * unwinder as frames of known shape (a blob's kind, and what its code
 * says at the pc), those frames named from its own
 * metadata (runtimes/hotspot.h), and a Java process labelled by what its
 * command line runs. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/elf_symbols.h"
#include "runtimes/hotspot.h"
#include "runtimes/javacmd.h"
#include "runtimes/readers.h"
#include "runtimes/x86_frame.h"

struct hotspot_binary {
	uint64_t sym[HS_NSYMBOLS]; /* ELF vaddrs of the exported tables */
};

static int recognise(const struct runtime_file *f, void **data)
{
	struct hotspot_binary *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	/* the struct table is what makes it readable; the others are checked
	 * when an instance reads them */
	if (elf_symbols__objects(f->elf, hotspot_vm__symbol_names, HS_NSYMBOLS, b->sym) <= 0 ||
	    !b->sym[HS_SYM_STRUCTS]) {
		free(b);
		return 0;
	}
	*data = b;
	return 1;
}

static void free_data(void *data)
{
	free(data);
}

/* A JVM's code lives in anonymous memory; libjvm.so is where to look. */
static bool maybe_host(const char *basename)
{
	return strcmp(basename, "libjvm.so") == 0;
}

static int open_instance(const struct runtime_process *p, void **inst)
{
	const struct hotspot_binary *b = p->data;
	uint64_t sym[HS_NSYMBOLS];
	struct hotspot *h;
	size_t k;
	int err;

	for (k = 0; k < HS_NSYMBOLS; k++)
		sym[k] = b->sym[k] ? b->sym[k] + p->bias : 0;
	err = hotspot__open(&p->mem, sym, p->lines, p->names, &h);
	if (err)
		return err;
	*inst = h;
	return 0;
}

static void close_instance(void *inst)
{
	hotspot__delete(inst);
}

/* DWARF's numbers of the general registers, in the encoding's order
 * (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8..r15). */
static const uint8_t dwarf_reg[16] = { 0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15 };
/* The template interpreter's bytecode pointer on x86-64 (rbcp, r13), in
 * DWARF's numbering. */
#define DWARF_R13 13

/* The shape of the frame at pc as its code says, over what the blob's
 * kind says; unchanged when the code said nothing. */
static void frame_at(struct hotspot *h, uint64_t pc, uint64_t now_ns, struct unwind_module *out)
{
	struct x86_frame f;

	if (hotspot__frame_at(h, pc, now_ns, &f) != 0)
		return;
	if (f.kind == X86_FRAME_RBP) {
		out->code = UNWIND_CODE_FRAME_POINTER;
	} else if (f.kind == X86_FRAME_SP) {
		out->code = UNWIND_CODE_SIZED;
		out->frame_bytes = (uint32_t)f.ra + 8;
		out->sized_at_pc = true;
		out->caller_bp = f.bp == X86_BP_LIVE   ? UNWIND_BP_LIVE
				 : f.bp == X86_BP_LOST ? UNWIND_BP_LOST
						       : UNWIND_BP_BELOW_RA;
		out->base = f.base == X86_BASE_SAVED ? UNWIND_BASE_SAVED
			    : f.base == X86_BASE_REG ? UNWIND_BASE_REG
						     : UNWIND_BASE_SP;
		out->base_at = f.base == X86_BASE_REG ? dwarf_reg[f.base_at & 15] : f.base_at;
	}
}

static int describe_code(void *inst, uint64_t pc, const char *path, uint64_t now_ns,
			 struct unwind_module *out)
{
	struct hotspot *h = inst;
	struct hotspot_code c;
	int method_slot, sender_slot, bcp_slot;

	/* the code heap, wherever it is mapped, is what says */
	(void)path;
	switch (hotspot__code_at(h, pc, now_ns, &c)) {
	case HOTSPOT_COMPILED:
	case HOTSPOT_STUB:
		out->code = UNWIND_CODE_SIZED;
		out->frame_bytes = c.frame_bytes;
		out->frame_complete = c.code_begin + c.frame_complete;
		frame_at(h, pc, now_ns, out);
		return 0;
	case HOTSPOT_STUB_ROUTINES:
		/* an rbp frame, but where its code says otherwise */
		out->code = UNWIND_CODE_FRAME_POINTER;
		frame_at(h, pc, now_ns, out);
		return 0;
	case HOTSPOT_INTERPRETER:
		out->code = UNWIND_CODE_INTERPRETED;
		hotspot__interp_slots(h, &method_slot, &sender_slot, &bcp_slot);
		out->slot_method = method_slot;
		out->slot_sender_sp = sender_slot;
		/* the frame's line is only asked for with lines */
		if (hotspot__lines(h)) {
			out->slot_bcp = bcp_slot;
			out->reg_bcp = DWARF_R13 + 1;
		}
		return 0;
	case HOTSPOT_CALL_STUB:
		out->code = UNWIND_CODE_FRAME_POINTER;
		return 0;
	case HOTSPOT_FRAMELESS:
		out->code = UNWIND_CODE_FRAMELESS;
		frame_at(h, pc, now_ns, out);
		return 0;
	default:
		return -ENOENT;
	}
}

static int name_frame(void *inst, const struct runtime_frame *f, uint32_t *ids, size_t max,
		      size_t *n)
{
	return hotspot__names(inst, f->pc, f->exact, f->slot, f->bcp, f->now_ns, ids, max, n);
}

/* Every JVM is "java" to the kernel; its main class tells two apart. */
static bool labels(const char *comm)
{
	return strcmp(comm, "java") == 0;
}

static int remap_names(void *inst, struct strtab_remap *r)
{
	return hotspot__remap_names(inst, r);
}

static void counters(const void *inst, struct runtime_counters *out)
{
	struct hotspot_stats st;

	hotspot__stats(inst, &st);
	out->reads = st.reads;
	out->failures = st.failures;
}

const struct runtime_reader runtime_hotspot = {
	.name = "hotspot",
	.recognise = recognise,
	.free_data = free_data,
	.maybe_host = maybe_host,
	.open = open_instance,
	.close = close_instance,
	.describe_code = describe_code,
	.name_frame = name_frame,
	.labels = labels,
	.label = javacmd__main,
	.remap_names = remap_names,
	.counters = counters,
};
