/* The Perl row of the runtime table: a perl binary or libperl.so
 * recognised by its exports, its version read from its own constants,
 * its runops loop marked for the unwinder, and a sample's subs read from
 * the context stacks and placed on the native runops calls that ran them
 * by what the sample's registers prove (runtimes/perl.h,
 * runtimes/interp_place.h). */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/elf_symbols.h"
#include "runtimes/perl.h"
#include "runtimes/perlcmd.h"
#include "runtimes/readers.h"

#define UNPROVEN_NAME "[unproven]"

struct perl_binary {
	/* ELF vaddrs: PL_curinterp (threaded), else PL_curcop and
	 * PL_curstackinfo (the globals of a non-threaded build) */
	uint64_t curinterp, curcop, curstackinfo;
	uint64_t runops_start, runops_end; /* Perl_runops_standard */
	uint8_t revision, version, subversion;
	/* PL_curcop's offset in the interpreter as Perl_pp_nextstate sets
	 * it; 0: not shown (runtimes/perl_layout.h) */
	uint16_t curcop_in_code;
};

enum { S_CURINTERP, S_CURCOP, S_CURSI, S_RUNOPS, S_REV, S_VER, S_SUBVER, S_NEXTSTATE, S_N };
static const char *const symbol_names[S_N] = {
	[S_CURINTERP] = "PL_curinterp",
	[S_CURCOP] = "PL_curcop",
	[S_CURSI] = "PL_curstackinfo",
	[S_RUNOPS] = "Perl_runops_standard",
	[S_REV] = "PL_revision",
	[S_VER] = "PL_version",
	[S_SUBVER] = "PL_subversion",
	[S_NEXTSTATE] = "Perl_pp_nextstate",
};

struct found {
	GElf_Sym sym[S_N];
};

static int wanted(void *arg, const GElf_Sym *sym, const char *name)
{
	struct found *w = arg;
	size_t k;

	if (sym->st_shndx == SHN_UNDEF || name[0] != 'P')
		return 0;
	for (k = 0; k < S_N; k++)
		if (!w->sym[k].st_value && strcmp(name, symbol_names[k]) == 0)
			w->sym[k] = *sym;
	return 0;
}

/* PL_curcop's offset as the binary's Perl_pp_nextstate sets it, 0 when
 * it does not show. */
static uint16_t curcop_in_code(const struct runtime_file *f, const GElf_Sym *sym)
{
	uint8_t code[96];
	size_t n = sym->st_size < sizeof(code) ? sym->st_size : sizeof(code);

	if (!sym->st_value || GELF_ST_TYPE(sym->st_info) != STT_FUNC || !n ||
	    elf_symbols__read(f->elf, sym->st_value, code, n) != 0)
		return 0;
	return perl_layout__curcop_in_code(code, n);
}

/* A binary defining the runops loop and the interpreter (perl, or
 * libperl.so of an embedding program), with its version: PL_revision,
 * PL_version, PL_subversion (perl.h, since 5.15) in its read-only data. */
static int recognise(const struct runtime_file *f, void **data)
{
	struct found w;
	struct perl_binary *b;
	const GElf_Sym *loop;

	memset(&w, 0, sizeof(w));
	elf_symbols__each(f->elf, SHT_DYNSYM, wanted, &w);
	loop = &w.sym[S_RUNOPS];
	if (!loop->st_value || !loop->st_size || GELF_ST_TYPE(loop->st_info) != STT_FUNC ||
	    (!w.sym[S_CURINTERP].st_value && (!w.sym[S_CURCOP].st_value || !w.sym[S_CURSI].st_value)))
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->curinterp = w.sym[S_CURINTERP].st_value;
	b->curcop = w.sym[S_CURCOP].st_value;
	b->curstackinfo = w.sym[S_CURSI].st_value;
	b->runops_start = loop->st_value;
	b->runops_end = loop->st_value + loop->st_size;
	/* no version: open refuses it */
	if (!w.sym[S_REV].st_value || !w.sym[S_VER].st_value || !w.sym[S_SUBVER].st_value ||
	    elf_symbols__read(f->elf, w.sym[S_REV].st_value, &b->revision, 1) != 0 ||
	    elf_symbols__read(f->elf, w.sym[S_VER].st_value, &b->version, 1) != 0 ||
	    elf_symbols__read(f->elf, w.sym[S_SUBVER].st_value, &b->subversion, 1) != 0)
		b->revision = 0;
	b->curcop_in_code = curcop_in_code(f, &w.sym[S_NEXTSTATE]);
	*data = b;
	return 1;
}

static void free_data(void *data)
{
	free(data);
}

/* The unwinder keeps the registers of every frame of perl's own code: a
 * runops call keeps only the interpreter in a register, but the ops it
 * calls (and what they call: crypt, an XSUB) hold the running sub's pad,
 * its SVs or its ops in theirs, and those are the sample's proof of
 * what the call ran. */
static void describe_file(const void *data, uint64_t vaddr, struct unwind_module *out)
{
	(void)data;
	(void)vaddr;
	out->keep_regs = true;
}

/* Words of one runops call looked at for its proof at most. */
#define CALL_WORDS (UNWIND_NREGS + 8 * UNWIND_NKEPT)

struct instance {
	struct perl *perl;
	uint64_t runops_start, runops_end; /* ELF vaddrs of Perl_runops_standard */
	uint32_t unproven; /* "[unproven]_[pl]" */
	struct perl_layout layout; /* the version's row, curcop as the code has it */
	struct interp_stack stack;
	struct interp_sample es;
	struct interp_placed placed;
	uint64_t words[INTERP_MAX_FRAMES][2];
	uint64_t seen[CALL_WORDS];
};

static int open_instance(const struct runtime_process *p, void **out)
{
	const struct perl_binary *b = p->data;
	const struct perl_layout *l = perl_layout__by_version(b->revision, b->version);
	struct instance *in;
	int err;

	if (!l)
		return -ENOTSUP;
	in = calloc(1, sizeof(*in));
	if (!in)
		return -ENOMEM;
	/* the build's own interpreter offsets where its code shows them */
	in->layout = *l;
	if (b->curcop_in_code) {
		in->layout.i_curcop = b->curcop_in_code;
		in->layout.i_curstackinfo = b->curcop_in_code + PERL_I_CURCOP_TO_CURSI;
	}
	in->runops_start = b->runops_start;
	in->runops_end = b->runops_end;
	err = ledger__intern_frame(p->mem.ledger, p->names, UNPROVEN_NAME, FRAME_SUFFIX_PERL,
				   &in->unproven);
	if (!err)
		err = perl__open(&p->mem, b->curinterp ? b->curinterp + p->bias : 0,
				 b->curinterp ? 0 : b->curcop + p->bias,
				 b->curinterp ? 0 : b->curstackinfo + p->bias, &in->layout, p->lines, p->names,
				 &in->perl);
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
	perl__delete(in->perl);
	free(in);
}

static void add_word(struct instance *in, size_t *n, uint64_t w)
{
	if (*n < CALL_WORDS)
		in->seen[(*n)++] = w;
}

/* One runops call found at native frame i: what its words (the sample's
 * registers and the kept registers of perl's frames inside it, in
 * seen[0..n)) prove, in the placer's terms: the frame proven as its
 * address and a word into its code, the pair the placer proves by; a
 * call nothing proves is handed no words. */
static void add_call(struct instance *in, size_t i, size_t n)
{
	struct interp_sample *es = &in->es;
	size_t k = es->nev++;
	long q = perl__proof(in->perl, in->seen, n);

	es->at[k] = i;
	es->ev[k].words = NULL;
	es->ev[k].nbytes = 0;
	es->ev[k].regs = in->words[k];
	es->ev[k].nregs = 0;
	es->ev[k].witness = es->ev[k].witness_frame = 0;
	if (q < 0)
		return;
	in->words[k][0] = in->stack.f[q].addr;
	in->words[k][1] = in->stack.f[q].code_lo;
	es->ev[k].nregs = 2;
}

/* The sample's runops calls, innermost first, each with its proof. A
 * runops call keeps only the interpreter in a register; while it runs a
 * sub, the ops it calls load the sub's pad (PL_curpad), its SVs (an op's
 * target, a lexical) and its ops (PL_op) into registers, and keep them
 * in callee-saved ones across what they call. So a call's words are the
 * sample's registers (the innermost call's), and the kept registers of
 * every frame of perl's code from the call out to the next. Stack slots
 * are not looked at: a slot a returned op left may hold an earlier sub's. */
static void gather(struct instance *in, const struct runtime_sample *s)
{
	size_t i, r, n = 0;

	in->es.nev = 0;
	if (s->regs)
		for (r = 0; r < UNWIND_NREGS; r++)
			if (s->regs->valid & (1u << r))
				add_word(in, &n, s->regs->val[r]);
	for (i = 0; i < s->nframes && in->es.nev < INTERP_MAX_FRAMES; i++) {
		const struct unwind_frame *f = &s->frames[i];

		if (f->runtime != s->tag || !f->keeps)
			continue;
		for (r = 0; i > 0 && r < UNWIND_NKEPT; r++)
			if (f->kept & (1u << r))
				add_word(in, &n, f->kept_regs[r]);
		if (f->vaddr >= in->runops_start && f->vaddr < in->runops_end) {
			add_call(in, i, n);
			n = 0;
		}
	}
}

/* Only the main interpreter (PL_curinterp) is read: another ithread's
 * runs elsewhere, and its samples keep their native frames. */
static int read_stack(void *inst, const struct runtime_sample *s, struct runtime_stack *out)
{
	struct instance *in = inst;
	int err;

	if (s->tid != s->pid)
		return -ENOENT;
	err = perl__read_stack(in->perl, s->now_ns, &in->stack);
	if (err)
		return err;
	gather(in, s);
	if (!in->es.nev)
		return 0;
	interp_place(&in->stack, in->es.ev, in->es.nev, s->rooted, &in->placed);
	interp_place__splice(&in->placed, &in->es, s->nframes, in->unproven, out);
	return 0;
}

/* perl, perl5.36.0, and a script started by its #! line (the kernel names
 * the process after the script: "work.pl"); perlcmd still checks that
 * argv[0] is perl's. */
static bool labels(const char *comm)
{
	size_t n = strlen(comm);

	return strncmp(comm, "perl", 4) == 0 || (n > 3 && strcmp(comm + n - 3, ".pl") == 0);
}

static int remap_names(void *inst, struct strtab_remap *r)
{
	struct instance *in = inst;

	return strtab_remap__id(r, &in->unproven) ? -ENOMEM : perl__remap_names(in->perl, r);
}

static void counters(const void *inst, struct runtime_counters *out)
{
	perl__counters(((const struct instance *)inst)->perl, out);
}

const struct runtime_reader runtime_perl = {
	.name = "perl",
	.recognise = recognise,
	.free_data = free_data,
	.describe_file = describe_file,
	.open = open_instance,
	.close = close_instance,
	.read_stack = read_stack,
	.labels = labels,
	.label = perlcmd__label,
	.remap_names = remap_names,
	.counters = counters,
};
