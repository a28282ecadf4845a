/* The V8 row of the runtime table: node recognised by the postmortem
 * metadata it exports (runtimes/v8_layout.h), V8's code -- its builtins in
 * the binary, the code it compiles into memory no file holds -- stepped
 * over by frame pointer with each frame's rbp kept, a sample's JavaScript
 * frames read from those frames (runtimes/v8.h), and a node process
 * labelled by its main script (runtimes/nodecmd.h). */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/elf_symbols.h"
#include "runtimes/nodecmd.h"
#include "runtimes/readers.h"
#include "runtimes/v8.h"

struct v8_binary {
	struct v8_layout l;
	/* V8's builtins, compiled into the binary (the interpreter, its
	 * bytecode handlers, the entry trampolines): ELF vaddrs, 0 when the
	 * symbol table that says where they are was stripped */
	uint64_t builtins_start, builtins_end;
};

/* Builtins are local symbols "Builtins_NAME" of .symtab, laid out
 * together (the embedded blob mksnapshot wrote). */
static int builtin(void *arg, const GElf_Sym *sym, const char *name)
{
	struct v8_binary *b = arg;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || strncmp(name, "Builtins_", 9) != 0 || !sym->st_value)
		return 0;
	if (!b->builtins_start || sym->st_value < b->builtins_start)
		b->builtins_start = sym->st_value;
	if (sym->st_value + sym->st_size > b->builtins_end)
		b->builtins_end = sym->st_value + sym->st_size;
	return 0;
}

static int recognise(const struct runtime_file *f, void **data)
{
	struct v8_binary *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	if (v8_layout__read(f->elf, &b->l) != 0) {
		free(b);
		return 0;
	}
	elf_symbols__each(f->elf, SHT_SYMTAB, builtin, b);
	/* a blob of builtins is tens of MiB at most */
	if (b->builtins_end - b->builtins_start > (256u << 20))
		b->builtins_start = b->builtins_end = 0;
	*data = b;
	return 1;
}

static void free_data(void *data)
{
	free(data);
}

/* node's executable, or the libnode.so some distributions link it with. */
static bool maybe_host(const char *basename)
{
	return strncmp(basename, "node", 4) == 0 || strncmp(basename, "libnode.so", 10) == 0;
}

/* A builtin's frame keeps its rbp: the frame pointer of the JavaScript
 * frame it runs in (bytecode handlers run in the interpreter's frame) or
 * of its own frame, which says what it is. */
static void describe_file(const void *data, uint64_t vaddr, struct unwind_module *out)
{
	const struct v8_binary *b = data;

	/* a return address is inside its call: one past the end may be */
	if (vaddr >= b->builtins_start && vaddr <= b->builtins_end && b->builtins_start)
		out->keep_regs = true;
}

/* Anonymous code in a node process is V8's: baseline, optimized and
 * regular expression code, all of it with frame pointers. */
static int describe_code(void *inst, uint64_t pc, const char *path, uint64_t now_ns,
			 struct unwind_module *out)
{
	(void)inst;
	(void)pc;
	(void)now_ns;
	if (path)
		return -ENOENT;
	out->code = UNWIND_CODE_FRAME_POINTER;
	out->keep_regs = true;
	return 0;
}

static int open_instance(const struct runtime_process *p, void **inst)
{
	const struct v8_binary *b = p->data;
	struct v8 *v;
	int err = v8__open(&p->mem, &b->l, p->lines, p->names, &v);

	if (err)
		return err;
	*inst = v;
	return 0;
}

static void close_instance(void *inst)
{
	v8__delete(inst);
}

static int read_stack(void *inst, const struct runtime_sample *s, struct runtime_stack *out)
{
	return v8__read_stack(inst, s, out);
}

/* Every node is "node" to the kernel (unless it set its title); its main
 * script tells two apart. */
static bool labels(const char *comm)
{
	return strcmp(comm, "node") == 0 || strcmp(comm, "nodejs") == 0;
}

static int remap_names(void *inst, struct strtab_remap *r)
{
	return v8__remap_names(inst, r);
}

static void counters(const void *inst, struct runtime_counters *out)
{
	struct v8_stats st;

	v8__stats(inst, &st);
	out->reads = st.reads;
	out->failures = st.failures;
}

const struct runtime_reader runtime_v8 = {
	.name = "v8",
	.recognise = recognise,
	.free_data = free_data,
	.maybe_host = maybe_host,
	.describe_file = describe_file,
	.open = open_instance,
	.close = close_instance,
	.describe_code = describe_code,
	.read_stack = read_stack,
	.labels = labels,
	.label = nodecmd__main,
	.remap_names = remap_names,
	.counters = counters,
};
