/* CRuby's layouts, per version, for x86-64 Linux.
 *
 * Offsets are of the structures in vm_core.h (rb_vm_t, rb_thread_t,
 * rb_execution_context_t, rb_control_frame_t, rb_iseq_constant_body),
 * ractor_core.h (rb_ractor_t), thread_pthread.h (rb_native_thread),
 * method.h (rb_method_entry_t, rb_method_definition_t), iseq.h
 * (iseq_insn_info_entry) and internal/class.h (struct RClass,
 * rb_classext_t) of each release, computed with the x86-64 System V rules
 * from the declarations as bindgen reproduces them (rbspy's ruby-structs:
 * 2.0.0-p648, 2.5.9, 2.6.10, 2.7.8, 3.0.7, 3.1.2, 3.2.2, 3.3.0), and for
 * 3.1 read back from Debian's ruby 3.1.2 running (the thread list, context,
 * frames, bodies, method entries and class names). local_iseq's offsets
 * were computed by compiling those bindings (offset_of!). Patch releases of a
 * minor version do not move these fields. The constants the frames carry
 * (VM_FRAME_MAGIC_*, VM_FRAME_FLAG_FINISH, VM_ENV_FLAG_LOCAL) are vm_core.h's:
 * 2.0's `flag` field (magic in the low byte, FINISH 0x200), 2.4+'s ep[0]
 * (magic 0x7fff0001, FINISH 0x20, LOCAL 0x2). 2.1 to 2.4 are not here: no
 * supported distribution ships them. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "runtimes/ruby_layout.h"

/* 2.4+ (vm_core.h, enum vm_frame_env_flags) */
#define MAGIC_MASK_24 0x7fff0001ull
#define MAGIC_CFUNC_24 0x55550001ull
#define MAGIC_IFUNC_24 0x66660001ull
#define MAGIC_DUMMY_24 0x79990001ull
#define FLAG_FINISH_24 0x20ull
#define FLAG_LOCAL_24 0x2ull

/* The fields 2.5 to 3.3 share: rb_method_entry_t {flags, defined_class,
 * def, called_id, owner}, rb_method_definition_t {type:4 ..., body (cfunc:
 * {func, invoker, argc}), original_id}, rb_iseq_t {flags, wrapper, body},
 * rb_iseq_constant_body {type, iseq_size, iseq_encoded, ..., location
 * {pathobj 64, base_label 72, label 80, first_lineno 88}, ..., local_iseq}. */
#define SHARED_25 \
	.ec_stack = 0, .ec_stack_size = 8, .ec_cfp = 16, /* rb_execution_context_t */ \
	.cfp_pc = 0, .cfp_iseq = 16, .cfp_ep = 32, .cfp_flag = -1, .cfp_me = -1, \
	.magic_mask = MAGIC_MASK_24, .magic_cfunc = MAGIC_CFUNC_24, .magic_ifunc = MAGIC_IFUNC_24, \
	.magic_dummy = MAGIC_DUMMY_24, .flag_finish = FLAG_FINISH_24, .flag_local = FLAG_LOCAL_24, \
	.iseq_body = 16, .body_size = 4, .body_size_bytes = 4, .body_encoded = 8, \
	.body_path = 64, .body_base_label = 72, .body_label = 80, .body_first_lineno = 88, \
	.me_def = 16, .me_called_id = 24, .me_owner = 32, \
	.def_type_bits = true, .def_original_id = 32, .def_body = 8, \
	.symbols_ids = 16 /* rb_symbols_t {last_id, str_sym, ids, dsymbol_fstr_hash} */

/* A line table of 2.6 to 3.1: its place in the body, and its entries;
 * then local_table 152, catch_table 160, parent_iseq 168, local_iseq 176. */
#define LINES_26(entry_bytes) \
	.lines = RUBY_LINES_SUCCINCT, .lines_entries = 120, .lines_positions = 128, \
	.lines_count = 136, .lines_count_bytes = 4, .lines_succ = 144, .entry_size = (entry_bytes), \
	.entry_line = 0, .body_local_iseq = 176, .body_head = 184, .first_lineno_bytes = 8

/* Strings with their embedded length in their flags, arrays with theirs in
 * 2 bits, class names in the class's iv_tbl: 2.5 to 3.1. */
#define OBJECTS_25 \
	.strings = RUBY_STR_LEN_IN_FLAGS, .array_embed_len_mask = 3, \
	.class_names = RUBY_CLASS_NAMES_IV_TBL, .class_ext = 24, .ext_iv_tbl = 8 \
	/* struct RClass {basic, super, ptr 24}; rb_classext_t {iv_index_tbl, iv_tbl 8} */

#define LAYOUT_26(mi) { \
		.major = 2, .minor = (mi), \
		.threads = RUBY_THREADS_VM_LIST, \
		.vm_main_thread = 192, .vm_living_threads = 312, \
		.thread_node = 0, .thread_ec = 32, .thread_id = 72, .thread_nt = -1, .nt_tid = -1, \
		.thread_head = 80, .cfp_size = 56, SHARED_25, LINES_26(8), OBJECTS_25, \
	}

#define LAYOUT_30(mi, frame_bytes) { \
		.major = 3, .minor = (mi), \
		.threads = RUBY_THREADS_RACTORS, \
		.vm_ractors = 8, .ractor_node = 568, .ractor_threads = 304, \
		.thread_node = 0, .thread_ec = 40, .thread_id = 80, .thread_nt = -1, .nt_tid = -1, \
		.thread_head = 88, .cfp_size = (frame_bytes), SHARED_25, LINES_26(12), OBJECTS_25, \
	}

/* 3.2 and 3.3: the body's line table 8 bytes earlier (first_lineno an
 * int): insns_info {body 112, positions 120, size 128, succ_index_table
 * 136}, and so local_iseq at 168; strings keep their length as a field
 * (variable width allocation), arrays theirs in 7 bits of their flags. */
#define LINES_32 \
	.lines = RUBY_LINES_SUCCINCT, .lines_entries = 112, .lines_positions = 120, \
	.lines_count = 128, .lines_count_bytes = 4, .lines_succ = 136, .entry_size = 12, \
	.entry_line = 0, .body_local_iseq = 168, .body_head = 176, .first_lineno_bytes = 4, \
	.strings = RUBY_STR_LEN_FIELD, .array_embed_len_mask = 0x7f

static const struct ruby_layout layouts[] = {
	{
		/* 2.0.0: the thread is its own context; rb_iseq_t holds what
		 * later versions keep in the body; frames carry flag and me */
		.major = 2, .minor = 0,
		.threads = RUBY_THREADS_CURRENT,
		.vm_main_thread = 280, .vm_running_thread = 288, /* rb_vm_t */
		.thread_ec = -1, .thread_id = 128, .thread_nt = -1, .nt_tid = -1,
		.thread_head = 136,
		.ec_stack = 16, .ec_stack_size = 24, .ec_cfp = 32, /* rb_thread_t.stack... */
		/* rb_control_frame_t {pc, sp, iseq, flag, self, klass, ep,
		 * block_iseq, proc, me}: 80 bytes */
		.cfp_size = 80, .cfp_pc = 0, .cfp_iseq = 16, .cfp_ep = 48, .cfp_flag = 24, .cfp_me = 72,
		.magic_mask = 0xff, .magic_cfunc = 0x61, .magic_ifunc = 0x81, .magic_dummy = 0,
		.flag_finish = 0x200, .flag_local = 0,
		/* rb_iseq_t {type, location {path 8, absolute_path 16,
		 * base_label 24, label 32, first_lineno 40}, iseq 48,
		 * iseq_encoded 56, iseq_size 64, mark_ary, coverage,
		 * line_info_table 88, line_info_size 96} */
		.iseq_body = -1, .body_size = 64, .body_size_bytes = 8, .body_encoded = 56,
		.body_path = 8, .path_is_string = true, .body_base_label = 24, .body_label = 32,
		.body_first_lineno = 40, .first_lineno_bytes = 8,
		.body_local_iseq = 248, .body_head = 256, /* ..., parent_iseq 240, local_iseq 248 */
		.lines = RUBY_LINES_POSITIONED, .lines_entries = 88, .lines_count = 96,
		.lines_count_bytes = 8, .entry_size = 8, .entry_line = 4, .entry_position = 0,
		/* rb_method_entry_t {flag, mark, def 8, called_id 16, klass 24};
		 * rb_method_definition_t {type 0, original_id 8, body 16} */
		.me_def = 8, .me_called_id = 16, .me_owner = 24,
		.def_type_bits = false, .def_original_id = 8, .def_body = 16,
		.strings = RUBY_STR_LEN_IN_FLAGS, .array_embed_len_mask = 3,
		.class_names = RUBY_CLASS_NAMES_NONE, .symbols_ids = 0,
	},
	{
		.major = 2, .minor = 5,
		.threads = RUBY_THREADS_VM_LIST,
		.vm_main_thread = 280, .vm_living_threads = 320,
		/* rb_thread_t {vmlt_node 0, self, vm, ec 32, ..., thread_id 72} */
		.thread_node = 0, .thread_ec = 32, .thread_id = 72, .thread_nt = -1, .nt_tid = -1,
		.thread_head = 80,
		.cfp_size = 48, /* {pc, sp, iseq, self, ep, block_code} */
		SHARED_25,
		.first_lineno_bytes = 8,
		/* insns_info 112 ({position, line_no, events}: 12), insns_info_size 200 */
		.lines = RUBY_LINES_POSITIONED, .lines_entries = 112, .lines_count = 200,
		.lines_count_bytes = 4, .entry_size = 12, .entry_line = 4, .entry_position = 0,
		.body_local_iseq = 144, .body_head = 208, /* local_table 120, catch_table, parent_iseq, local_iseq */
		OBJECTS_25,
	},
	/* 2.6 and 2.7: frames gain __bp__; line tables become {line_no,
	 * events} entries with their positions apart (insns_info {body 120,
	 * positions 128, size 136, succ_index_table 144}) */
	LAYOUT_26(6),
	LAYOUT_26(7),
	/* 3.0 and 3.1: threads belong to ractors: rb_vm_t.ractor {sync...,
	 * set 8 (ractors by vmlr_node 568), main_ractor 32};
	 * rb_ractor_t.threads {..., set 304 (threads by lt_node 0)};
	 * rb_thread_t {lt_node, self, ractor, vm, ec 40, ..., thread_id 80};
	 * iseq_insn_info_entry {line_no, node_id, events}; 3.1's frames add
	 * jit_return (YJIT) */
	LAYOUT_30(0, 56),
	LAYOUT_30(1, 64),
	{
		/* 3.2: the native thread apart (rb_thread_t.nt 40 ->
		 * rb_native_thread {id, thread_id, tid 16}); ec 48; class ivars
		 * in shapes (not read) */
		.major = 3, .minor = 2,
		.threads = RUBY_THREADS_RACTORS,
		.vm_ractors = 8, .ractor_node = 568, .ractor_threads = 304,
		.thread_node = 0, .thread_ec = 48, .thread_id = -1, .thread_nt = 40, .nt_tid = 16,
		.thread_head = 56,
		.cfp_size = 64,
		SHARED_25, LINES_32,
		.class_names = RUBY_CLASS_NAMES_NONE,
	},
	{
		/* 3.3: rb_ractor_t.threads.set 256, vmlr_node 432;
		 * rb_native_thread {serial, vm, thread_id, tid 24}; frames lose
		 * __bp__; classes embed their rb_classext_t after struct RClass
		 * (32 bytes), whose classpath is at 32 + 120 and
		 * singleton_class.attached_object at 32 + 96 */
		.major = 3, .minor = 3,
		.threads = RUBY_THREADS_RACTORS,
		.vm_ractors = 8, .ractor_node = 432, .ractor_threads = 256,
		.thread_node = 0, .thread_ec = 48, .thread_id = -1, .thread_nt = 40, .nt_tid = 24,
		.thread_head = 56,
		.cfp_size = 56,
		SHARED_25, LINES_32,
		.class_names = RUBY_CLASS_NAMES_FIELD, .class_classpath = 152, .class_attached = 128,
	},
};

const struct ruby_layout *ruby_layout__table(unsigned major, unsigned minor)
{
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].major == major && layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

static int number(const char **p, unsigned *out)
{
	unsigned v = 0;
	int digits = 0;

	while (**p >= '0' && **p <= '9' && digits < 4) {
		v = v * 10 + (unsigned)(**p - '0');
		(*p)++;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	*out = v;
	return 0;
}

int ruby_layout__parse_version(const char *s, unsigned *major, unsigned *minor)
{
	unsigned ma, mi;

	if (!s || number(&s, &ma) != 0 || *s++ != '.' || number(&s, &mi) != 0 || *s != '.')
		return -EINVAL;
	*major = ma;
	*minor = mi;
	return 0;
}
