/* The PHP row of the runtime table: a Zend engine binary (php, php-fpm,
 * php-cgi, libphp.so) recognised by its exports and its version read from
 * its own build id, its executor loop marked for the unwinder, and a
 * sample's PHP frames read and placed on the native execute_ex calls that
 * ran them (runtimes/php.h, runtimes/interp_place.h). opcache's JIT code
 * runs in execute_ex's frame: it is stepped as execute_ex and read like
 * it. */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/elf_symbols.h"
#include "runtimes/php.h"
#include "runtimes/phpcmd.h"
#include "runtimes/readers.h"

/* An execute_ex call whose PHP frames the sample does not prove. */
#define UNPROVEN_NAME "[unproven]"
/* Read-only data searched for the build id at most: php's is 1-2 MiB. */
#define RODATA_MAX (64u << 20)
/* zend_vm_kind()'s value for the hybrid VM (Zend/zend_vm_opcodes.h) */
#define ZEND_VM_KIND_HYBRID 4
/* The VM's frame register, r14, by its DWARF number */
#define REG_FRAME 14

struct php_binary {
	uint64_t executor_globals;       /* ELF vaddr, 0 in thread-safe builds */
	uint64_t exec_start, exec_end;   /* execute_ex */
	uint32_t api;                    /* ZEND_MODULE_API_NO; 0: unknown */
	int zts;
	/* the hybrid VM: its handlers are labels of execute_ex, and the JIT's
	 * code, jumped to from them, runs in execute_ex's frame */
	bool hybrid;
};

enum { S_EG, S_EXECUTE_EX, S_EXECUTE, S_EG_OFFSET, S_EG_ID, S_VM_KIND, S_N };
static const char *const symbol_names[S_N] = {
	[S_EG] = "executor_globals",
	[S_EXECUTE_EX] = "execute_ex",
	[S_EXECUTE] = "execute",
	[S_EG_OFFSET] = "executor_globals_offset",
	[S_EG_ID] = "executor_globals_id",
	[S_VM_KIND] = "zend_vm_kind",
};

struct found {
	GElf_Sym sym[S_N];
};

static int wanted(void *arg, const GElf_Sym *sym, const char *name)
{
	struct found *w = arg;
	size_t k;

	if (sym->st_shndx == SHN_UNDEF || (name[0] != 'e' && name[0] != 'z'))
		return 0;
	for (k = 0; k < S_N; k++)
		if (!w->sym[k].st_value && strcmp(name, symbol_names[k]) == 0)
			w->sym[k] = *sym;
	return 0;
}

/* ZEND_MODULE_BUILD_ID ("API20220829,NTS") from .rodata. */
static void build_id(Elf *elf, struct php_binary *b)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".rodata") != 0 || sh.sh_size > RODATA_MAX)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf &&
		    php_layout__build_id(d->d_buf, d->d_size, &b->api, &b->zts) == 0)
			return;
	}
}

/* Whether the binary's zend_vm_kind() returns the hybrid VM's kind: its
 * code is "mov eax, imm32; ret" in every build that has one. */
static bool hybrid_vm(Elf *elf, const GElf_Sym *kind)
{
	uint8_t code[6];
	uint32_t v;

	if (!kind->st_value || kind->st_size < sizeof(code) ||
	    elf_symbols__read(elf, kind->st_value, code, sizeof(code)) != 0 || code[0] != 0xb8 ||
	    code[5] != 0xc3)
		return false;
	memcpy(&v, code + 1, sizeof(v));
	return v == ZEND_VM_KIND_HYBRID;
}

/* A binary defining the executor and its globals: the executable (php,
 * php-fpm, php-cgi) or libphp.so of a web server's module. */
static int recognise(const struct runtime_file *f, void **data)
{
	struct found w;
	struct php_binary *b;
	const GElf_Sym *loop;

	memset(&w, 0, sizeof(w));
	elf_symbols__each(f->elf, SHT_DYNSYM, wanted, &w);
	loop = w.sym[S_EXECUTE_EX].st_value ? &w.sym[S_EXECUTE_EX] : &w.sym[S_EXECUTE];
	if (!loop->st_value || !loop->st_size || GELF_ST_TYPE(loop->st_info) != STT_FUNC ||
	    (!w.sym[S_EG].st_value && !w.sym[S_EG_OFFSET].st_value && !w.sym[S_EG_ID].st_value))
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->executor_globals = w.sym[S_EG].st_value;
	b->exec_start = loop->st_value;
	b->exec_end = loop->st_value + loop->st_size;
	build_id(f->elf, b);
	b->hybrid = loop == &w.sym[S_EXECUTE_EX] && hybrid_vm(f->elf, &w.sym[S_VM_KIND]);
	if (!b->executor_globals)
		b->zts = 1;
	*data = b;
	return 1;
}

static void free_data(void *data)
{
	free(data);
}

/* execute_ex keeps the frame it runs and its instruction in callee-saved
 * registers (r14, r15 in the hybrid VM of GCC builds): the unwinder keeps
 * them for each of its calls. */
static void describe_file(const void *data, uint64_t vaddr, struct unwind_module *out)
{
	const struct php_binary *b = data;

	if (vaddr > b->exec_start && vaddr <= b->exec_end)
		out->keep_regs = true;
}

/* A file whose name says a PHP process's code from it may be opcache's
 * JIT: the PHP binary hosts it. */
static bool maybe_host(const char *basename)
{
	return strncmp(basename, "php", 3) == 0 || strncmp(basename, "libphp", 6) == 0;
}

/* The names opcache's shared memory is mapped under, by memory model
 * (its JIT writes its code there): shared anonymous memory ("mmap", the
 * default), a System V segment ("shm"), a POSIX one ("posix"). */
static bool opcache_memory(const char *path)
{
	return path && (strncmp(path, "/dev/zero", 9) == 0 || strncmp(path, "/SYSV", 5) == 0 ||
			strncmp(path, "/dev/shm/ZendAccelerator", 24) == 0);
}

struct instance {
	struct php *php;
	bool zts;          /* read from the VM's frame register, not the globals */
	uint64_t host_pc;  /* execute_ex, where the JIT's code runs; 0: no JIT */
	bool lines;
	uint32_t unproven; /* "[unproven]_[php]" */
	struct interp_stack stack;
	struct interp_sample es;
	struct interp_placed placed;
};

/* Thread-safe builds keep each thread's globals in its TLS block: they are
 * read from the VM's frame register instead (php__read_stack_from), which
 * only the hybrid VM keeps in a register; PHP 5's engine is another. The
 * rest is refused (-ENOTSUP), never guessed. */
static int open_instance(const struct runtime_process *p, void **out)
{
	const struct php_binary *b = p->data;
	const struct php_layout *l = php_layout__by_api(b->api);
	struct instance *in;
	int err;

	if (!l || (b->zts && !b->hybrid))
		return -ENOTSUP;
	in = calloc(1, sizeof(*in));
	if (!in)
		return -ENOMEM;
	in->zts = b->zts;
	in->lines = p->lines;
	in->host_pc = b->hybrid ? b->exec_start + p->bias : 0;
	err = ledger__intern_frame(p->mem.ledger, p->names, UNPROVEN_NAME, FRAME_SUFFIX_PHP,
				   &in->unproven);
	if (!err)
		err = php__open(&p->mem, b->zts ? 0 : b->executor_globals + p->bias, l, p->lines, p->names,
				&in->php);
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
	php__delete(in->php);
	free(in);
}

/* opcache's JIT code, in the hybrid VM: jumped to from execute_ex's
 * handlers and back, it runs in execute_ex's frame, with the frame it
 * runs in r14 and, where it keeps it there, its instruction in r15 (the
 * VM's registers); its helpers are called, never its PHP functions. So
 * it is stepped as execute_ex's body and read as an execute_ex call. In
 * a build of another VM, the JIT's code has frames of its own: not
 * described. */
static int describe_code(void *inst, uint64_t pc, const char *path, uint64_t now_ns,
			 struct unwind_module *out)
{
	struct instance *in = inst;

	(void)pc;
	(void)now_ns;
	if (!in->host_pc || !opcache_memory(path))
		return -ENOENT;
	out->code = UNWIND_CODE_HOSTED;
	out->host_pc = in->host_pc;
	out->host_sp_delta = 0;
	out->keep_regs = true;
	return 0;
}

/* The r14 of native frame i (the VM's frame register): the sample's for
 * the leaf, the one the unwinder recovered for a caller. */
static bool frame_register(const struct runtime_sample *s, size_t i, uint64_t *r14)
{
	unsigned r;

	if (i == 0) {
		if (!s->regs || !(s->regs->valid & (1u << REG_FRAME)))
			return false;
		*r14 = s->regs->val[REG_FRAME];
		return true;
	}
	for (r = 0; r < UNWIND_NKEPT; r++)
		if (unwind_kept_regnos[r] == REG_FRAME && (s->frames[i].kept & (1u << r))) {
			*r14 = s->frames[i].kept_regs[r];
			return true;
		}
	return false;
}

/* What proves the frame a JIT call ran: the trace its pc is in, when one
 * of the frame's function's instructions starts it (runtimes/php_jit.h). */
static void jit_witnesses(struct instance *in, const struct runtime_sample *s)
{
	size_t k;

	for (k = 0; k < in->es.nev; k++) {
		const struct unwind_frame *f = &s->frames[in->es.at[k]];
		uint64_t r14, opline;

		if (f->code != UNWIND_CODE_HOSTED || !frame_register(s, in->es.at[k], &r14))
			continue;
		if (php__jit_witness(in->php, r14, f->exact ? f->pc : f->pc - 1, s->now_ns,
				     &opline) == 0) {
			in->es.ev[k].witness = opline;
			in->es.ev[k].witness_frame = r14;
		}
	}
}

/* Each proven frame at the line its call's instruction register was at:
 * the frame running saves its instruction to memory only before calls
 * and helpers, so what the read found lags behind the sample. A frame
 * JIT code ran keeps the line the read found: the instruction its trace
 * starts at is not where it was. */
static void lines_at_sample(struct instance *in)
{
	struct interp_placed *pl = &in->placed;
	size_t k;

	for (k = 0; k < in->es.nev; k++) {
		struct interp_frame *f;

		if (pl->state[k] != INTERP_PROVEN || pl->proven_at[k] >= pl->n ||
		    pl->code_word[k] == in->es.ev[k].witness)
			continue;
		f = &pl->frames[pl->proven_at[k]];
		if (php__name_at(in->php, f->addr, pl->code_word[k], &f->name) != 0)
			continue; /* the line the read found stands */
	}
}

/* A thread-safe build's read: from the frame register of the innermost
 * executor call that has one (the sample's for the leaf, the unwinder's
 * for a caller). 0, or -ENOENT when none has. */
static int read_from_register(struct instance *in, const struct runtime_sample *s)
{
	size_t k;
	uint64_t r14;

	for (k = 0; k < in->es.nev; k++)
		if (frame_register(s, in->es.at[k], &r14))
			return php__read_stack_from(in->php, r14, s->now_ns, &in->stack);
	in->stack.n = 0;
	return -ENOENT;
}

static int read_stack(void *inst, const struct runtime_sample *s, struct runtime_stack *out)
{
	struct instance *in = inst;
	int err;

	if (!interp_place__gather(s, &in->es))
		return 0;
	if (in->zts)
		err = read_from_register(in, s);
	else
		err = php__read_stack(in->php, s->now_ns, &in->stack);
	if (err)
		return err;
	if (in->host_pc)
		jit_witnesses(in, s);
	interp_place(&in->stack, in->es.ev, in->es.nev, s->rooted, &in->placed);
	if (in->lines)
		lines_at_sample(in);
	interp_place__splice(&in->placed, &in->es, s->nframes, in->unproven, out);
	return 0;
}

/* php, php8.2, php-fpm8.2, php-cgi: the kernel's name says only "PHP". */
static bool labels(const char *comm)
{
	return strncmp(comm, "php", 3) == 0;
}

static int remap_names(void *inst, struct strtab_remap *r)
{
	struct instance *in = inst;

	return strtab_remap__id(r, &in->unproven) ? -ENOMEM : php__remap_names(in->php, r);
}

static void counters(const void *inst, struct runtime_counters *out)
{
	php__counters(((const struct instance *)inst)->php, out);
}

const struct runtime_reader runtime_php = {
	.name = "php",
	.recognise = recognise,
	.free_data = free_data,
	.maybe_host = maybe_host,
	.describe_file = describe_file,
	.open = open_instance,
	.close = close_instance,
	.describe_code = describe_code,
	.read_stack = read_stack,
	.labels = labels,
	.label = phpcmd__label,
	.remap_names = remap_names,
	.counters = counters,
};
