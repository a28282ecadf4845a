/* A CRuby VM laid out in memory by a version's layout
 * (runtimes/ruby_layout.h), for the Ruby reader's tests: one thread
 * running
 *
 *   <main> -> Object#outer -> Klass#run -> Other.spin -> Integer#times
 *     -> block in Other.spin
 *
 * in two native vm_exec calls: <main> to Integer#times in the outer
 * (<main> FINISH), the block in the inner (FINISH). Everything lives in
 * one region at RB_BASE; offsets into it are named O_*. */
#ifndef SMOLDER_TESTS_RUBY_IMAGE_H
#define SMOLDER_TESTS_RUBY_IMAGE_H
#include <stdint.h>
#include <string.h>

#include "runtimes/memsource.h"
#include "runtimes/ruby.h"

#define RB_BASE 0x10000000ull
#define RB_SIZE 0xc000u
#define RB_TID 4242
#define RB_PTHREAD_TID 0x2d0

#define O_GLOBALS 0x0000 /* the VM pointer, 2.0's current thread */
#define O_SYMBOLS 0x0100 /* rb_symbols_t; a decoy at 0x0180 */
#define O_VM 0x0200
#define O_RACTOR 0x0600
#define O_THREAD 0x0a00
#define O_PTHREAD 0x0b00
#define O_NT 0x0e00
#define O_EC 0x0e80
#define O_CLASSES 0x1400 /* 5 of 0x100 */
#define O_EXTS 0x1900    /* 5 of 0x20 */
#define O_TABLES 0x1a00  /* 5 st_tables of 0x60 */
#define O_MES 0x1c00     /* 4 of 0x40 */
#define O_DEFS 0x1e00    /* 4 of 0x40 */
#define O_ISEQS 0x2000   /* 8 of 0x20 */
#define O_BODIES 0x2100  /* 8 of 0x100 */
#define O_CODE 0x2a00    /* 8 of 0x100: 32 instructions each */
#define O_LINES 0x3200   /* 8 of 0x80 */
#define O_VMSTACK 0x4000 /* 1024 words */
#define O_IDS 0x6000     /* the ids Array, its two chunks' heads */
#define O_CHUNK0 0x7000  /* 1024 words each */
#define O_CHUNK1 0x9000
#define O_STRINGS 0xb000 /* 48 of 0x40 */

#define RB_STACK_WORDS 1024u
#define RB_NFRAMES 6 /* and the dummy */

/* iseqs */
enum { IS_MAIN, IS_OUTER, IS_RUN, IS_SPIN, IS_BLOCK, IS_OTHER, RB_NISEQS };
/* classes: Object, Klass, Other, Other's singleton class, Integer */
enum { CL_OBJECT, CL_KLASS, CL_OTHER, CL_OTHER_META, CL_INTEGER, RB_NCLASSES };
/* method entries */
enum { ME_OUTER, ME_RUN, ME_SPIN, ME_TIMES, RB_NMES };
/* ID serials of the names the image's symbol table holds */
#define SERIAL_CLASSPATH 1000
#define SERIAL_ATTACHED 1001
#define SERIAL_TIMES 1002
#define RB_ID(serial) ((uint64_t)(serial) << 4)

struct ruby_image {
	uint8_t b[RB_SIZE];
	struct memimage_region r;
	struct memimage img;
	const struct ruby_layout *l;
	int nstrings;
	uint64_t frame[RB_NFRAMES + 1]; /* control frames, innermost first */
	uint64_t ep[RB_NFRAMES];
	uint64_t iseq[RB_NISEQS], body[RB_NISEQS];
	uint64_t times_func;
};

static inline void rb_put64(struct ruby_image *im, uint32_t off, uint64_t v) { memcpy(im->b + off, &v, 8); }
static inline void rb_put32(struct ruby_image *im, uint32_t off, uint32_t v) { memcpy(im->b + off, &v, 4); }
static inline uint64_t rb_at(uint32_t off) { return RB_BASE + off; }
static inline uint32_t rb_off(uint64_t addr) { return (uint32_t)(addr - RB_BASE); }

/* An embedded String. */
static inline uint64_t rb_string(struct ruby_image *im, const char *s)
{
	uint32_t o = O_STRINGS + 0x40u * (uint32_t)im->nstrings++;
	uint64_t len = strlen(s);

	if (im->l->strings == RUBY_STR_LEN_IN_FLAGS) {
		rb_put64(im, o, RUBY_T_STRING | (len << 14));
		memcpy(im->b + o + 16, s, len);
	} else {
		rb_put64(im, o, RUBY_T_STRING);
		rb_put64(im, o + 16, len);
		memcpy(im->b + o + 24, s, len);
	}
	return rb_at(o);
}

/* A heap Array of n elements at `data`. */
static inline void rb_array(struct ruby_image *im, uint32_t o, uint32_t data, uint64_t n)
{
	rb_put64(im, o, RUBY_T_ARRAY);
	rb_put64(im, o + 16, n);
	rb_put64(im, o + 32, rb_at(data));
}

/* The symbol table: "+", "-" (operators, by their character), and the
 * names class paths and C methods are read by. */
static inline void rb_symbols(struct ruby_image *im)
{
	rb_put32(im, O_SYMBOLS, 2000);
	rb_put64(im, O_SYMBOLS + 16, rb_at(O_IDS));
	rb_array(im, O_IDS, O_IDS + 0x100, 2);
	rb_put64(im, O_IDS + 0x100, rb_at(O_IDS + 0x40));
	rb_put64(im, O_IDS + 0x108, rb_at(O_IDS + 0x80));
	rb_array(im, O_IDS + 0x40, O_CHUNK0, 1024);
	rb_array(im, O_IDS + 0x80, O_CHUNK1, 1024);
	rb_put64(im, O_CHUNK0 + 8 * (43 * 2), rb_string(im, "+"));
	rb_put64(im, O_CHUNK0 + 8 * (45 * 2), rb_string(im, "-"));
	rb_put64(im, O_CHUNK1 + 8 * ((SERIAL_CLASSPATH - 512) * 2), rb_string(im, "__classpath__"));
	rb_put64(im, O_CHUNK1 + 8 * ((SERIAL_ATTACHED - 512) * 2), rb_string(im, "__attached__"));
	rb_put64(im, O_CHUNK1 + 8 * ((SERIAL_TIMES - 512) * 2), rb_string(im, "times"));
	/* a decoy: a table whose "+" is something else */
	rb_put32(im, O_SYMBOLS + 0x80, 2000);
	rb_put64(im, O_SYMBOLS + 0x80 + 16, rb_at(O_STRINGS));
}

/* Class i named `path` (its iv_tbl, or 3.3's classpath); the singleton
 * class of `attached` when that is not 0. */
static inline uint64_t rb_class(struct ruby_image *im, int i, const char *path, uint64_t attached)
{
	const struct ruby_layout *l = im->l;
	uint32_t o = O_CLASSES + 0x100u * (uint32_t)i, ext = O_EXTS + 0x20u * (uint32_t)i;
	uint32_t tbl = O_TABLES + 0x60u * (uint32_t)i;

	rb_put64(im, o, RUBY_T_CLASS | (attached ? RUBY_FL_SINGLETON : 0));
	if (l->class_names == RUBY_CLASS_NAMES_FIELD) {
		if (attached)
			rb_put64(im, o + l->class_attached, attached);
		else
			rb_put64(im, o + l->class_classpath, rb_string(im, path));
	} else if (l->class_names == RUBY_CLASS_NAMES_IV_TBL) {
		rb_put64(im, o + l->class_ext, rb_at(ext));
		rb_put64(im, ext + l->ext_iv_tbl, rb_at(tbl));
		/* st_table: entries_start 32, entries_bound 40, entries 48 */
		rb_put64(im, tbl + 16, 1);
		rb_put64(im, tbl + 32, 0);
		rb_put64(im, tbl + 40, 1);
		rb_put64(im, tbl + 48, rb_at(tbl + 0x40));
		rb_put64(im, tbl + 0x40, 12345);
		rb_put64(im, tbl + 0x48, RB_ID(attached ? SERIAL_ATTACHED : SERIAL_CLASSPATH));
		rb_put64(im, tbl + 0x50, attached ? attached : rb_string(im, path));
	}
	return rb_at(o);
}

/* Method entry i of class owner; a C method when func is not 0. */
static inline uint64_t rb_method_entry(struct ruby_image *im, int i, uint64_t owner, uint64_t func,
				       uint64_t serial)
{
	const struct ruby_layout *l = im->l;
	uint32_t o = O_MES + 0x40u * (uint32_t)i, d = O_DEFS + 0x40u * (uint32_t)i;

	if (l->cfp_flag < 0)
		rb_put64(im, o, RUBY_T_IMEMO | ((uint64_t)RUBY_IMEMO_MENT << 12));
	rb_put64(im, o + l->me_def, rb_at(d));
	rb_put64(im, o + l->me_called_id, RB_ID(serial));
	rb_put64(im, o + l->me_owner, owner);
	if (l->cfp_flag < 0)
		rb_put64(im, o + 8, owner); /* defined_class */
	rb_put32(im, d, func ? RUBY_METHOD_CFUNC : 0);
	rb_put64(im, d + l->def_original_id, RB_ID(serial));
	rb_put64(im, d + l->def_body, func);
	return rb_at(o);
}

/* Method entry me runs instruction sequence is (a Ruby method's). */
static inline void rb_method_runs(struct ruby_image *im, int me, int is)
{
	rb_put64(im, O_DEFS + 0x40u * (uint32_t)me + im->l->def_body, im->iseq[is]);
}

/* Instruction sequence `is` is a block, rescue or eval in method `in`. */
static inline void rb_iseq_in(struct ruby_image *im, int is, int in)
{
	rb_put64(im, rb_off(im->body[is]) + im->l->body_local_iseq, im->iseq[in]);
}

/* Instruction sequence i labelled label (base label base), of 32
 * instructions, whose line table says lines 10 + k for each 8-word part. */
static inline void rb_iseq(struct ruby_image *im, int i, const char *label, const char *base)
{
	const struct ruby_layout *l = im->l;
	uint32_t body = O_BODIES + 0x100u * (uint32_t)i, lines = O_LINES + 0x80u * (uint32_t)i;
	uint32_t k;

	im->body[i] = rb_at(body);
	im->iseq[i] = l->iseq_body < 0 ? im->body[i] : rb_at(O_ISEQS + 0x20u * (uint32_t)i);
	if (l->iseq_body >= 0) {
		rb_put64(im, O_ISEQS + 0x20u * (uint32_t)i, RUBY_T_IMEMO | ((uint64_t)RUBY_IMEMO_ISEQ << 12));
		rb_put64(im, O_ISEQS + 0x20u * (uint32_t)i + (uint32_t)l->iseq_body, im->body[i]);
	}
	if (l->body_size_bytes == 4)
		rb_put32(im, body + l->body_size, 32);
	else
		rb_put64(im, body + l->body_size, 32);
	rb_put64(im, body + l->body_encoded, rb_at(O_CODE + 0x100u * (uint32_t)i));
	rb_put64(im, body + l->body_label, rb_string(im, label));
	rb_put64(im, body + l->body_base_label, rb_string(im, base));
	rb_put64(im, body + l->body_path, rb_string(im, "/srv/app/lib/app.rb"));
	rb_put32(im, body + l->body_first_lineno, 10);
	rb_put64(im, body + l->body_local_iseq, im->iseq[i]); /* a method's own */
	/* four entries, at positions 0, 8, 16, 24 */
	rb_put64(im, body + l->lines_entries, rb_at(lines));
	if (l->lines_count_bytes == 4)
		rb_put32(im, body + l->lines_count, 4);
	else
		rb_put64(im, body + l->lines_count, 4);
	for (k = 0; k < 4; k++) {
		rb_put32(im, lines + k * l->entry_size + l->entry_line, 10 + k);
		if (l->lines == RUBY_LINES_POSITIONED)
			rb_put32(im, lines + k * l->entry_size + l->entry_position, 8 * k);
		else
			rb_put32(im, lines + 0x40 + 4 * k, 8 * k); /* positions */
	}
	if (l->lines == RUBY_LINES_SUCCINCT)
		rb_put64(im, body + l->lines_positions, rb_at(lines + 0x40));
}

/* Control frame k (innermost 0) running iseq `is` (-1: a C method) at
 * instruction `insn`, with its environment's words: its method entry
 * candidate, the environment it was made in (0: none, a local one), its
 * flags (magic | frame flags). */
static inline void rb_frame(struct ruby_image *im, int k, int is, uint32_t insn, uint64_t me_cref,
			    uint64_t prev_ep, uint64_t flags)
{
	const struct ruby_layout *l = im->l;
	uint32_t f = rb_off(im->frame[k]), ep = rb_off(im->ep[k]);

	if (is >= 0) {
		rb_put64(im, f + l->cfp_pc, rb_at(O_CODE + 0x100u * (uint32_t)is) + 8 * insn);
		rb_put64(im, f + l->cfp_iseq, im->iseq[is]);
	} else {
		rb_put64(im, f + l->cfp_iseq, me_cref); /* a C frame's "iseq" is its me */
	}
	rb_put64(im, f + l->cfp_ep, im->ep[k]);
	if (l->cfp_flag >= 0) {
		rb_put64(im, f + (uint32_t)l->cfp_flag, flags);
		rb_put64(im, f + (uint32_t)l->cfp_me, me_cref);
		return;
	}
	rb_put64(im, ep - 16, me_cref);
	rb_put64(im, ep - 8, prev_ep ? prev_ep | 1 : 0);
	rb_put64(im, ep, flags | (prev_ep ? 0 : l->flag_local));
}

/* The thread, its context, and how it is found from the VM. */
static inline void rb_thread(struct ruby_image *im)
{
	const struct ruby_layout *l = im->l;
	uint32_t ctx = l->thread_ec >= 0 ? O_EC : O_THREAD;
	uint64_t node = rb_at(O_THREAD + l->thread_node);

	rb_put64(im, O_GLOBALS, rb_at(O_VM));
	if (l->thread_ec >= 0)
		rb_put64(im, O_THREAD + (uint32_t)l->thread_ec, rb_at(O_EC));
	if (l->thread_id >= 0) {
		rb_put64(im, O_THREAD + (uint32_t)l->thread_id, rb_at(O_PTHREAD));
		rb_put32(im, O_PTHREAD + RB_PTHREAD_TID, RB_TID);
	} else {
		rb_put64(im, O_THREAD + (uint32_t)l->thread_nt, rb_at(O_NT));
		rb_put32(im, O_NT + (uint32_t)l->nt_tid, RB_TID);
	}
	rb_put64(im, ctx + l->ec_stack, rb_at(O_VMSTACK));
	rb_put64(im, ctx + l->ec_stack_size, RB_STACK_WORDS);
	rb_put64(im, ctx + l->ec_cfp, im->frame[0]);
	switch (l->threads) {
	case RUBY_THREADS_CURRENT:
		rb_put64(im, O_VM + l->vm_main_thread, rb_at(O_THREAD));
		break;
	case RUBY_THREADS_VM_LIST:
		/* a list_head whose one node is the thread's */
		rb_put64(im, O_VM + l->vm_living_threads, node);
		rb_put64(im, O_VM + l->vm_living_threads + 8, node);
		rb_put64(im, O_THREAD + l->thread_node, rb_at(O_VM + l->vm_living_threads));
		break;
	default:
		/* the VM's ractors: one; its threads: one */
		rb_put64(im, O_VM + l->vm_ractors, rb_at(O_RACTOR + l->ractor_node));
		rb_put64(im, O_RACTOR + l->ractor_node, rb_at(O_VM + l->vm_ractors));
		rb_put64(im, O_RACTOR + l->ractor_threads, node);
		rb_put64(im, O_THREAD + l->thread_node, rb_at(O_RACTOR + l->ractor_threads));
		break;
	}
}

static inline void rb_build(struct ruby_image *im, unsigned major, unsigned minor)
{
	const struct ruby_layout *l;
	uint64_t object, klass, other, meta, integer, me[RB_NMES];
	uint64_t end = rb_at(O_VMSTACK) + 8ull * RB_STACK_WORDS, method, block, cfunc, eval, dummy;
	int k;

	memset(im, 0, sizeof(*im));
	im->l = l = ruby_layout__table(major, minor);
	if (!l)
		return;
	for (k = 0; k <= RB_NFRAMES; k++)
		im->frame[k] = end - (uint64_t)(RB_NFRAMES + 1 - k) * l->cfp_size;
	for (k = 0; k < RB_NFRAMES; k++)
		im->ep[k] = rb_at(O_VMSTACK + 0x100u + 0x40u * (uint32_t)k);
	rb_symbols(im);
	object = rb_class(im, CL_OBJECT, "Object", 0);
	klass = rb_class(im, CL_KLASS, "Klass", 0);
	other = rb_class(im, CL_OTHER, "Other", 0);
	meta = rb_class(im, CL_OTHER_META, NULL, other);
	integer = rb_class(im, CL_INTEGER, "Integer", 0);
	im->times_func = 0x7f0000123450ull;
	me[ME_OUTER] = rb_method_entry(im, ME_OUTER, object, 0, 1100);
	me[ME_RUN] = rb_method_entry(im, ME_RUN, klass, 0, 1101);
	me[ME_SPIN] = rb_method_entry(im, ME_SPIN, meta, 0, 1102);
	me[ME_TIMES] = rb_method_entry(im, ME_TIMES, integer, im->times_func, SERIAL_TIMES);
	rb_iseq(im, IS_MAIN, "<main>", "<main>");
	rb_iseq(im, IS_OUTER, "outer", "outer");
	rb_iseq(im, IS_RUN, "run", "run");
	rb_iseq(im, IS_SPIN, "spin", "spin");
	rb_iseq(im, IS_BLOCK, "block in spin", "spin");
	rb_iseq(im, IS_OTHER, "other", "other");
	rb_iseq_in(im, IS_BLOCK, IS_SPIN);
	rb_method_runs(im, ME_OUTER, IS_OUTER);
	rb_method_runs(im, ME_RUN, IS_RUN);
	rb_method_runs(im, ME_SPIN, IS_SPIN);
	if (l->cfp_flag >= 0) {
		method = 0x11;
		block = 0x21;
		cfunc = 0x61;
		eval = 0x91;
		dummy = 0x41; /* 2.0's root: a TOP frame with no iseq */
	} else {
		method = 0x11110001;
		block = 0x22220001;
		cfunc = 0x55550001;
		eval = 0x77770001;
		dummy = 0x79990001;
	}
	/* 2.0's block frames carry their method's entry themselves */
	rb_frame(im, 0, IS_BLOCK, 5, l->cfp_flag >= 0 ? me[ME_SPIN] : 0, im->ep[2], block | l->flag_finish);
	rb_frame(im, 1, -1, 0, me[ME_TIMES], 0, cfunc);
	rb_frame(im, 2, IS_SPIN, 12, me[ME_SPIN], 0, method);
	rb_frame(im, 3, IS_RUN, 20, me[ME_RUN], 0, method);
	rb_frame(im, 4, IS_OUTER, 3, me[ME_OUTER], 0, method);
	rb_frame(im, 5, IS_MAIN, 30, 0, 0, eval | l->flag_finish);
	if (l->cfp_flag >= 0)
		rb_put64(im, rb_off(im->frame[RB_NFRAMES]) + (uint32_t)l->cfp_flag, dummy);
	else
		rb_put64(im, rb_off(im->frame[RB_NFRAMES]) + l->cfp_ep, 0);
	rb_thread(im);
	im->r.addr = RB_BASE;
	im->r.bytes = im->b;
	im->r.len = RB_SIZE;
	im->img.regions = &im->r;
	im->img.n = 1;
}

/* What the image's binary would say. */
static inline void rb_symbols_of(const struct ruby_image *im, struct ruby_symbols *sym)
{
	memset(sym, 0, sizeof(*sym));
	sym->vm_ptr = rb_at(O_GLOBALS);
	sym->symbol_tables[0] = rb_at(O_SYMBOLS + 0x80); /* the decoy first */
	sym->symbol_tables[1] = rb_at(O_SYMBOLS);
	sym->nsymbol_tables = 2;
	sym->major = im->l->major;
	sym->minor = im->l->minor;
	sym->pthread_tid = RB_PTHREAD_TID;
}

#endif
