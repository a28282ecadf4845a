/* The CPython row of the runtime table: an interpreter binary recognised
 * by its exports, its eval loop marked for the unwinder, and a sample's
 * Python stack read and placed on the native eval-loop frames that ran it
 * (runtimes/cpython.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/cpython.h"
#include "runtimes/elf_symbols.h"
#include "runtimes/glibc.h"
#include "runtimes/interp_place.h"
#include "runtimes/pycmd.h"
#include "runtimes/readers.h"

/* An eval call whose Python frames the sample does not prove. */
#define UNPROVEN_NAME "[unproven]"

/* What an interpreter binary says, as ELF vaddrs. */
struct cpython_binary {
	uint64_t runtime;        /* _PyRuntime (3.7+), 0 if none */
	uint64_t interp_head;    /* interp_head (2.7, 3.6), 0 if not found */
	uint64_t tstate_current; /* _PyThreadState_Current (2.7, 3.6) */
	uint64_t code_type;      /* PyCode_Type */
	uint64_t eval_start, eval_end; /* _PyEval_EvalFrameDefault (3.6+), else
	                                  PyEval_EvalFrameEx (2.7) */
	unsigned major, minor;   /* what the file says it is; 0: it does not */
};

/* CPython's symbols, by what they are for. */
enum { PY_RUNTIME, PY_INTERP_HEAD, PY_TSTATE_CURRENT, PY_CODE_TYPE, PY_EVAL_DEFAULT, PY_EVAL_EX,
       PY_VERSION_HEX, PY_NSYMS };
static const char *const symbol_names[PY_NSYMS] = {
	[PY_RUNTIME] = "_PyRuntime",
	[PY_INTERP_HEAD] = "interp_head",
	[PY_TSTATE_CURRENT] = "_PyThreadState_Current",
	[PY_CODE_TYPE] = "PyCode_Type",
	[PY_EVAL_DEFAULT] = "_PyEval_EvalFrameDefault",
	[PY_EVAL_EX] = "PyEval_EvalFrameEx",
	[PY_VERSION_HEX] = "Py_Version",
};

struct found_symbols {
	GElf_Sym sym[PY_NSYMS];
	size_t found;
};

static int wanted_symbol(void *arg, const GElf_Sym *sym, const char *name)
{
	struct found_symbols *w = arg;
	size_t k;

	/* every name wanted starts with one of these: most symbols stop here */
	if (sym->st_shndx == SHN_UNDEF || (name[0] != '_' && name[0] != 'P' && name[0] != 'i'))
		return 0;
	for (k = 0; k < PY_NSYMS; k++)
		if (!w->sym[k].st_value && strcmp(name, symbol_names[k]) == 0) {
			w->sym[k] = *sym;
			w->found++;
		}
	return w->found == PY_NSYMS;
}

/* The version the file says it is: 3.11+ export Py_Version (PY_VERSION_HEX,
 * 0xMMmmPPxx), libpython names itself in its SONAME. Never the path a
 * process maps it by: one file is one version for every process, whoever
 * mapped it first and by whatever name. */
static void version_of(const struct runtime_file *f, const GElf_Sym *py_version, struct cpython_binary *b)
{
	uint32_t hex;
	char soname[64];

	if (py_version->st_value && py_version->st_size >= sizeof(hex) &&
	    elf_symbols__read(f->elf, py_version->st_value, &hex, sizeof(hex)) == 0 &&
	    (hex >> 24) == 3 && ((hex >> 16) & 0xff) >= 11 && ((hex >> 16) & 0xff) < 100) {
		b->major = hex >> 24;
		b->minor = (hex >> 16) & 0xff;
		return;
	}
	if (elf_symbols__soname(f->elf, soname, sizeof(soname)) == 0 &&
	    cpython_layout__version_from_name(soname, &b->major, &b->minor) != 0)
		b->major = b->minor = 0;
}

/* A binary exporting the eval loop and the interpreter's state: the
 * executable itself, or libpython. interp_head is static in 2.7 and 3.6,
 * so .symtab is searched too when .dynsym lacks the state. */
static int recognise(const struct runtime_file *f, void **data)
{
	struct found_symbols w;
	struct cpython_binary *b;
	const GElf_Sym *eval;

	memset(&w, 0, sizeof(w));
	elf_symbols__each(f->elf, SHT_DYNSYM, wanted_symbol, &w);
	if (!w.sym[PY_EVAL_DEFAULT].st_value && !w.sym[PY_EVAL_EX].st_value)
		return 0;
	if (!w.sym[PY_RUNTIME].st_value && !w.sym[PY_INTERP_HEAD].st_value)
		elf_symbols__each(f->elf, SHT_SYMTAB, wanted_symbol, &w);
	eval = w.sym[PY_EVAL_DEFAULT].st_value ? &w.sym[PY_EVAL_DEFAULT] : &w.sym[PY_EVAL_EX];
	if (!eval->st_size || !w.sym[PY_CODE_TYPE].st_value ||
	    (!w.sym[PY_RUNTIME].st_value && !w.sym[PY_INTERP_HEAD].st_value &&
	     !w.sym[PY_TSTATE_CURRENT].st_value))
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->runtime = w.sym[PY_RUNTIME].st_value;
	b->interp_head = w.sym[PY_INTERP_HEAD].st_value;
	b->tstate_current = w.sym[PY_TSTATE_CURRENT].st_value;
	b->code_type = w.sym[PY_CODE_TYPE].st_value;
	b->eval_start = eval->st_value;
	b->eval_end = eval->st_value + eval->st_size;
	version_of(f, &w.sym[PY_VERSION_HEX], b);
	*data = b;
	return 1;
}

static void free_data(void *data)
{
	free(data);
}

/* A frame in the eval loop keeps its callee-saved registers: they hold
 * what it was running when the sample was taken. */
static void describe_file(const void *data, uint64_t vaddr, struct unwind_module *out)
{
	const struct cpython_binary *b = data;

	/* a return address is inside the call, one past it may be the end */
	if (vaddr > b->eval_start && vaddr <= b->eval_end)
		out->keep_regs = true;
}

/* An instance: the interpreter's reader and one sample's scratch. */
struct instance {
	struct cpython *c;
	struct ledger *ledger;     /* the process's, for the marker's name */
	uint32_t unproven;         /* "[unproven]_[py]" */
	struct interp_sample es;   /* the sample's native eval calls */
	struct cpython_stack stack;
	struct interp_stack proof; /* stack, as the placer proves it */
	struct interp_placed placed;
};

static int open_instance(const struct runtime_process *p, void **out)
{
	const struct cpython_binary *b = p->data;
	struct runtime_process proc = *p;
	struct cpython_symbols sym;
	struct instance *in;
	int err;

	memset(&sym, 0, sizeof(sym));
	sym.runtime = b->runtime ? b->runtime + p->bias : 0;
	sym.interp_head = b->interp_head ? b->interp_head + p->bias : 0;
	sym.tstate_current = b->tstate_current ? b->tstate_current + p->bias : 0;
	sym.code_type = b->code_type + p->bias;
	/* a file that does not say (a static 3.10 or older): the name this
	 * process runs it by, which is this process's to choose and decides
	 * only how this process is read */
	sym.major = b->major;
	sym.minor = b->minor;
	if (!sym.major && cpython_layout__version_from_name(p->path, &sym.major, &sym.minor) != 0)
		sym.major = sym.minor = 0;
	sym.pthread_tid = glibc__pthread_tid_offset(&proc);
	in = calloc(1, sizeof(*in));
	if (!in)
		return -ENOMEM;
	in->ledger = p->mem.ledger;
	err = ledger__intern_frame(in->ledger, p->names, UNPROVEN_NAME, FRAME_SUFFIX_PYTHON, &in->unproven);
	if (!err)
		err = cpython__open(&p->mem, &sym, p->lines, p->names, &in->c);
	if (err) {
		free(in);
		return err;
	}
	*out = in;
	return 0;
}

static void close_instance(void *inst)
{
	struct instance *in = inst;

	if (!in)
		return;
	cpython__delete(in->c);
	free(in);
}

static int read_stack(void *inst, const struct runtime_sample *s, struct runtime_stack *out)
{
	struct instance *in = inst;
	int err;

	if (!interp_place__gather(s, &in->es))
		return 0;
	cpython__set_sample_stack(in->c, s->stack->base, s->stack->data, s->stack->size);
	err = cpython__read_stack(in->c, s->tid, s->now_ns, &in->stack);
	cpython__set_sample_stack(in->c, 0, NULL, 0);
	if (err)
		return err;
	cpython__proof(&in->stack, &in->proof);
	interp_place(&in->proof, in->es.ev, in->es.nev, s->rooted, &in->placed);
	interp_place__splice(&in->placed, &in->es, s->nframes, in->unproven, out);
	return 0;
}

/* Every interpreter is "python3" (or "python3.11", "python2.7") to the
 * kernel; its script or module tells two services apart. A script run by
 * its shebang has the script's name as its comm already. */
static bool labels(const char *comm)
{
	return strncmp(comm, "python", 6) == 0;
}

static int remap_names(void *inst, struct strtab_remap *r)
{
	struct instance *in = inst;

	return strtab_remap__id(r, &in->unproven) ? -ENOMEM : cpython__remap_names(in->c, r);
}

static void counters(const void *inst, struct runtime_counters *out)
{
	struct cpython_stats st;

	cpython__stats(((const struct instance *)inst)->c, &st);
	out->reads = st.reads;
	out->failures = st.failures;
}

const struct runtime_reader runtime_cpython = {
	.name = "cpython",
	.recognise = recognise,
	.free_data = free_data,
	.describe_file = describe_file,
	.open = open_instance,
	.close = close_instance,
	.read_stack = read_stack,
	.replays = true,
	.labels = labels,
	.label = pycmd__main,
	.remap_names = remap_names,
	.counters = counters,
};
