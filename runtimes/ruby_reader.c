/* The CRuby row of the runtime table: libruby (or a static ruby) recognised
 * by its exports and the version it carries, its instruction loop
 * (vm_exec_core) marked for the unwinder, and a sample's Ruby stack read and
 * placed on the native vm_exec_core frames that ran it (runtimes/ruby.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/elf_symbols.h"
#include "runtimes/glibc.h"
#include "runtimes/readers.h"
#include "runtimes/ruby.h"
#include "runtimes/rubycmd.h"

/* An instruction loop smaller than this is not CRuby's (3.1's is 17 KiB;
 * rb_vm_exec's other callees are under 2 KiB). */
#define LOOP_MIN_BYTES 4096
/* rb_vm_exec is read up to this many bytes for its calls. */
#define CALLER_MAX_BYTES 4096
/* .data is read up to this for the symbol table's candidates. */
#define DATA_MAX_BYTES (4u << 20)
/* An eval call whose Ruby frames the sample does not prove. */
#define UNPROVEN_NAME "[unproven]"
/* r14 and r15 among the unwinder's kept registers (rbx, rbp, r12..r15). */
#define KEPT_PC 4
#define KEPT_CFP 5
#define REG_PC 14
#define REG_CFP 15

/* What a Ruby binary says, as ELF vaddrs. */
struct ruby_binary {
	uint64_t vm_ptr, current_thread;
	uint64_t loop_start, loop_end; /* vm_exec_core */
	uint64_t symbol_tables[RUBY_SYMBOL_TABLES_MAX];
	size_t nsymbol_tables;
	unsigned major, minor;
};

enum { RB_VERSION, RB_VM_PTR, RB_VM, RB_THREAD, RB_VM_EXEC, RB_LOOP, RB_SYMBOLS, RB_SYMBOLS_OLD, RB_NSYMS };
static const char *const symbol_names[RB_NSYMS] = {
	[RB_VERSION] = "ruby_version",
	[RB_VM_PTR] = "ruby_current_vm_ptr",     /* 2.5+ */
	[RB_VM] = "ruby_current_vm",             /* 2.0 */
	[RB_THREAD] = "ruby_current_thread",     /* 2.0 */
	[RB_VM_EXEC] = "rb_vm_exec",             /* 2.6+ */
	[RB_LOOP] = "vm_exec_core",              /* static: .symtab only */
	[RB_SYMBOLS] = "ruby_global_symbols",    /* 2.7+, hidden */
	[RB_SYMBOLS_OLD] = "global_symbols",     /* 2.5, 2.6: static */
};

struct found_symbols {
	GElf_Sym sym[RB_NSYMS];
};

static int wanted_symbol(void *arg, const GElf_Sym *sym, const char *name)
{
	struct found_symbols *w = arg;
	size_t k;

	if (sym->st_shndx == SHN_UNDEF || (name[0] != 'r' && name[0] != 'v' && name[0] != 'g'))
		return 0;
	for (k = 0; k < RB_NSYMS; k++)
		if (!w->sym[k].st_value && strcmp(name, symbol_names[k]) == 0)
			w->sym[k] = *sym;
	return 0;
}

/* The functions of a file by where their code starts: .eh_frame_hdr's
 * table, sorted by initial location (found through PT_GNU_EH_FRAME, as
 * the unwinder finds it). */
struct fde_table {
	const uint8_t *t;
	size_t n;
	uint64_t vaddr;
};

#define EH_PE_TABLE 0x3b /* DW_EH_PE_datarel | DW_EH_PE_sdata4 */

static int fde_table(Elf *elf, struct fde_table *out)
{
	size_t phnum, i;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return -ENOENT;
	for (i = 0; i < phnum && i < 4096; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		const uint8_t *b;
		uint32_t count;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		/* version 1, eh_frame_ptr sdata4 (pcrel), count udata4, table */
		if (!d || !d->d_buf || d->d_size < 12)
			return -ENOENT;
		b = d->d_buf;
		if (b[0] != 1 || b[1] != 0x1b || b[2] != 0x03 || b[3] != EH_PE_TABLE)
			return -ENOENT;
		memcpy(&count, b + 8, sizeof(count));
		if (count > (d->d_size - 12) / 8)
			return -ENOENT;
		out->t = b + 12;
		out->n = count;
		out->vaddr = ph.p_vaddr;
		return 0;
	}
	return -ENOENT;
}

static uint64_t fde_start(const struct fde_table *f, size_t i)
{
	int32_t rel;

	memcpy(&rel, f->t + i * 8, sizeof(rel));
	return f->vaddr + (uint64_t)(int64_t)rel;
}

/* The extent of the function whose FDE starts at vaddr: up to the next
 * function's start. -ENOENT when no FDE starts there. */
static int function_at(const struct fde_table *f, uint64_t vaddr, uint64_t *end)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t s = fde_start(f, mid);

		if (s == vaddr) {
			if (mid + 1 >= f->n)
				return -ENOENT;
			*end = fde_start(f, mid + 1);
			return *end > vaddr ? 0 : -ENOENT;
		}
		if (s < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* A stripped binary's instruction loop: of the functions rb_vm_exec calls
 * (each E8 rel32 whose target starts an FDE), the largest. */
static int loop_from_caller(Elf *elf, const GElf_Sym *caller, uint64_t *start, uint64_t *end)
{
	uint8_t code[CALLER_MAX_BYTES];
	size_t len = caller->st_size < sizeof(code) ? (size_t)caller->st_size : sizeof(code), i;
	struct fde_table f;
	uint64_t best = 0;

	if (len < 5 || elf_symbols__read(elf, caller->st_value, code, len) != 0 || fde_table(elf, &f) != 0)
		return -ENOENT;
	for (i = 0; i + 5 <= len; i++) {
		int32_t rel;
		uint64_t target, e;

		if (code[i] != 0xe8)
			continue;
		memcpy(&rel, code + i + 1, sizeof(rel));
		target = caller->st_value + i + 5 + (uint64_t)(int64_t)rel;
		if (function_at(&f, target, &e) == 0 && e - target > best) {
			best = e - target;
			*start = target;
			*end = e;
		}
	}
	return best >= LOOP_MIN_BYTES ? 0 : -ENOENT;
}

/* Candidates for the symbol table in a stripped binary: rb_symbols_t is
 * initialised {tNEXT_ID - 1} (symbol.c), so in .data it is a small last_id
 * followed by three null words. */
static void symbol_table_candidates(Elf *elf, struct ruby_binary *b)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		size_t off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_WRITE) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".data") != 0 ||
		    sh.sh_size > DATA_MAX_BYTES || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		for (off = 0; off + 32 <= d->d_size && b->nsymbol_tables < RUBY_SYMBOL_TABLES_MAX; off += 8) {
			const uint8_t *p = (const uint8_t *)d->d_buf + off;
			uint32_t last;
			size_t z;

			memcpy(&last, p, sizeof(last));
			if (last < 0x80 || last >= 0x10000)
				continue;
			for (z = 4; z < 32 && p[z] == 0; z++)
				;
			if (z == 32)
				b->symbol_tables[b->nsymbol_tables++] = sh.sh_addr + off;
		}
	}
}

static void version_of(Elf *elf, const GElf_Sym *v, struct ruby_binary *b)
{
	char s[16];
	size_t n = v->st_size && v->st_size < sizeof(s) ? (size_t)v->st_size : sizeof(s) - 1;

	memset(s, 0, sizeof(s));
	if (!v->st_value || elf_symbols__read(elf, v->st_value, s, n) != 0)
		return;
	s[sizeof(s) - 1] = '\0';
	if (ruby_layout__parse_version(s, &b->major, &b->minor) != 0)
		b->major = b->minor = 0;
}

/* A binary exporting the VM's pointer and the version, whose instruction
 * loop can be found: libruby, or a ruby linked with it statically. */
static int recognise(const struct runtime_file *f, void **data)
{
	struct found_symbols w;
	struct ruby_binary *b;
	uint64_t start = 0, end = 0;
	const GElf_Sym *vm;

	memset(&w, 0, sizeof(w));
	elf_symbols__each(f->elf, SHT_DYNSYM, wanted_symbol, &w);
	vm = w.sym[RB_VM_PTR].st_value ? &w.sym[RB_VM_PTR] : &w.sym[RB_VM];
	if (!w.sym[RB_VERSION].st_value || !vm->st_value)
		return 0;
	elf_symbols__each(f->elf, SHT_SYMTAB, wanted_symbol, &w);
	if (w.sym[RB_LOOP].st_value && w.sym[RB_LOOP].st_size >= LOOP_MIN_BYTES) {
		start = w.sym[RB_LOOP].st_value;
		end = start + w.sym[RB_LOOP].st_size;
	} else if (!w.sym[RB_VM_EXEC].st_value || loop_from_caller(f->elf, &w.sym[RB_VM_EXEC], &start, &end) != 0) {
		return 0;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->vm_ptr = vm->st_value;
	b->current_thread = w.sym[RB_THREAD].st_value;
	b->loop_start = start;
	b->loop_end = end;
	if (w.sym[RB_SYMBOLS].st_value)
		b->symbol_tables[b->nsymbol_tables++] = w.sym[RB_SYMBOLS].st_value;
	else if (w.sym[RB_SYMBOLS_OLD].st_value)
		b->symbol_tables[b->nsymbol_tables++] = w.sym[RB_SYMBOLS_OLD].st_value;
	else
		symbol_table_candidates(f->elf, b);
	version_of(f->elf, &w.sym[RB_VERSION], b);
	*data = b;
	return 1;
}

static void free_data(void *data)
{
	free(data);
}

/* A frame in the instruction loop keeps its callee-saved registers: r14
 * and r15 hold what it runs. */
static void describe_file(const void *data, uint64_t vaddr, struct unwind_module *out)
{
	const struct ruby_binary *b = data;

	if (vaddr > b->loop_start && vaddr <= b->loop_end)
		out->keep_regs = true;
}

/* An instance: the VM's reader and one sample's scratch. */
struct instance {
	struct ruby *r;
	uint32_t unproven;         /* "[unproven]_[rb]" */
	size_t nloop;
	size_t loop_frame[RUBY_MAX_FRAMES]; /* native vm_exec_core calls, innermost first */
	struct ruby_native ev[RUBY_MAX_FRAMES];
	uint64_t called[1024];     /* native functions the loop calls ran */
	struct ruby_stack stack;
	struct ruby_placed placed;
};

static int open_instance(const struct runtime_process *p, void **out)
{
	const struct ruby_binary *b = p->data;
	struct runtime_process proc = *p;
	struct ruby_symbols sym;
	struct instance *in;
	size_t i;
	int err;

	memset(&sym, 0, sizeof(sym));
	sym.vm_ptr = b->vm_ptr + p->bias;
	sym.current_thread = b->current_thread ? b->current_thread + p->bias : 0;
	for (i = 0; i < b->nsymbol_tables; i++)
		sym.symbol_tables[i] = b->symbol_tables[i] + p->bias;
	sym.nsymbol_tables = b->nsymbol_tables;
	sym.major = b->major;
	sym.minor = b->minor;
	sym.pthread_tid = glibc__pthread_tid_offset(&proc);
	in = calloc(1, sizeof(*in));
	if (!in)
		return -ENOMEM;
	err = ledger__intern_frame(p->mem.ledger, p->names, UNPROVEN_NAME, FRAME_SUFFIX_RUBY, &in->unproven);
	if (!err)
		err = ruby__open(&p->mem, &sym, p->lines, p->names, &in->r);
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
	ruby__delete(in->r);
	free(in);
}

/* The run-time start of native frame f's function, 0 when unknown. */
static uint64_t function_start(const struct unwind_frame *f)
{
	uint64_t at = f->exact ? f->pc : f->pc - 1;

	if (!f->func_start || !f->owner || at < f->vaddr)
		return 0;
	return f->func_start + (at - f->vaddr);
}

/* What native loop call k had: its r14 and r15 (every sampled register
 * for the leaf, those the unwinder kept for the others), and the starts
 * of the functions between it and the call inside it. */
static void loop_call(struct instance *in, const struct runtime_sample *s, size_t k, size_t *ncalled)
{
	struct ruby_native *ev = &in->ev[k];
	size_t i = in->loop_frame[k], from = k ? in->loop_frame[k - 1] + 1 : 0, j;
	const uint32_t want = (1u << REG_PC) | (1u << REG_CFP);

	memset(ev, 0, sizeof(*ev));
	if (i == 0) {
		if ((s->regs->valid & want) == want) {
			ev->have_regs = true;
			ev->pc = s->regs->val[REG_PC];
			ev->cfp = s->regs->val[REG_CFP];
		}
	} else if ((s->frames[i].kept & ((1u << KEPT_PC) | (1u << KEPT_CFP))) ==
		   ((1u << KEPT_PC) | (1u << KEPT_CFP))) {
		ev->have_regs = true;
		ev->pc = s->frames[i].kept_regs[KEPT_PC];
		ev->cfp = s->frames[i].kept_regs[KEPT_CFP];
	}
	ev->called = in->called + *ncalled;
	for (j = from; j < i && *ncalled < sizeof(in->called) / sizeof(in->called[0]); j++) {
		in->called[(*ncalled)++] = function_start(&s->frames[j]);
		ev->ncalled++;
	}
}

/* One splice of ids at native frame `frame`. */
static void add_splice(uint32_t frame, const uint32_t *ids, size_t n, struct runtime_stack *out)
{
	struct runtime_splice *sp;

	if (!n || out->nsplices == RUNTIME_MAX_SPLICES || out->nids + n > RUNTIME_MAX_IDS)
		return;
	sp = &out->at[out->nsplices++];
	sp->frame = frame;
	sp->first = (uint16_t)out->nids;
	sp->count = (uint16_t)n;
	memcpy(out->ids + out->nids, ids, n * sizeof(*ids));
	out->nids += n;
}

/* Native loop call k's frames as splices: at the call, its Ruby frames
 * outermost first (or the marker when unproven); each C method matched
 * with the native frame running its C function, at that frame. At nloop:
 * the frames older than the native stack reached. */
static void splice_call(const struct instance *in, size_t k, size_t nframes, struct runtime_stack *out)
{
	const struct ruby_placed *pl = &in->placed;
	size_t i = pl->first[k] + pl->count[k], n = 0;
	size_t base = k && k <= in->nloop ? in->loop_frame[k - 1] + 1 : 0;
	uint32_t ids[RUBY_MAX_FRAMES];

	if (k < in->nloop && pl->state[k] == RUBY_UNPROVEN) {
		add_splice((uint32_t)in->loop_frame[k], &in->unproven, 1, out);
		return;
	}
	while (i-- > pl->first[k]) {
		if (k < in->nloop && pl->native[i] >= 0)
			add_splice((uint32_t)(base + (size_t)pl->native[i]), &pl->frames[i].name, 1, out);
		else
			ids[n++] = pl->frames[i].name;
	}
	add_splice((uint32_t)(k < in->nloop ? in->loop_frame[k] : nframes), ids, n, out);
}

static int read_stack(void *inst, const struct runtime_sample *s, struct runtime_stack *out)
{
	struct instance *in = inst;
	const struct ruby_placed *pl = &in->placed;
	size_t i, k, ncalled = 0;
	int err;

	in->nloop = 0;
	for (i = 0; i < s->nframes && in->nloop < RUBY_MAX_FRAMES; i++)
		if (s->frames[i].keeps && s->frames[i].runtime == s->tag)
			in->loop_frame[in->nloop++] = i;
	if (!in->nloop)
		return 0;
	err = ruby__read_stack(in->r, s->tid, s->now_ns, &in->stack);
	if (err)
		return err;
	for (k = 0; k < in->nloop; k++)
		loop_call(in, s, k, &ncalled);
	ruby__place(&in->stack, in->ev, in->nloop, s->rooted, &in->placed);
	out->confirmed += pl->confirmed;
	out->chained += pl->chained;
	out->unproven += pl->unproven;
	for (k = 0; k <= in->nloop; k++)
		splice_call(in, k, s->nframes, out);
	return 0;
}

/* Every Ruby is "ruby" to the kernel (ruby3.1, ruby2.7 when run by that
 * name); its main script, or the title it set, tells two apart. A script
 * run by its #! line is already named by the script, but servers started
 * so (puma, unicorn, bundle exec) set a title their workers share. */
static bool labels(const char *comm)
{
	static const char *const names[] = { "ruby", "puma", "unicorn", "bundle" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(comm, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

static int remap_names(void *inst, struct strtab_remap *r)
{
	struct instance *in = inst;

	return strtab_remap__id(r, &in->unproven) ? -ENOMEM : ruby__remap_names(in->r, r);
}

static void counters(const void *inst, struct runtime_counters *out)
{
	struct ruby_stats st;

	ruby__stats(((const struct instance *)inst)->r, &st);
	out->reads = st.reads;
	out->failures = st.failures;
}

const struct runtime_reader runtime_ruby = {
	.name = "ruby",
	.recognise = recognise,
	.free_data = free_data,
	.describe_file = describe_file,
	.open = open_instance,
	.close = close_instance,
	.read_stack = read_stack,
	.labels = labels,
	.label = rubycmd__main,
	.remap_names = remap_names,
	.counters = counters,
};
