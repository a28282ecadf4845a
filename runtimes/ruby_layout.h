/* Where CRuby keeps what the Ruby reader reads, per version: the VM's
 * threads, an execution context's control frames, instruction sequences
 * and their line tables, method entries, strings, arrays and class names.
 * Every number is an offset into a structure of CRuby's headers for
 * x86-64 Linux; ruby_layout.c says which header and field each comes from.
 * Constant tables: thread-safe. */
#ifndef SMOLDER_RUNTIMES_RUBY_LAYOUT_H
#define SMOLDER_RUNTIMES_RUBY_LAYOUT_H
#include <stdbool.h>
#include <stdint.h>

/* How a VM's threads are listed. */
enum ruby_threads {
	RUBY_THREADS_CURRENT = 0, /* 2.0: the main thread and the one running */
	RUBY_THREADS_VM_LIST,     /* 2.5-2.7: vm->living_threads */
	RUBY_THREADS_RACTORS,     /* 3.x: each ractor's threads.set */
};

/* How an instruction sequence says which line an instruction is on. */
enum ruby_lines {
	RUBY_LINES_POSITIONED = 0, /* 2.0, 2.5: entries {position, line_no} */
	RUBY_LINES_SUCCINCT,       /* 2.6+: entries {line_no}, their positions
	                              an array or a succinct bit vector */
};

/* How an embedded String keeps its length. */
enum ruby_strings {
	RUBY_STR_LEN_IN_FLAGS = 0, /* <= 3.1: flags bits 14-18, chars at 16 */
	RUBY_STR_LEN_FIELD,        /* 3.2+: a long at 16, chars at 24 */
};

/* Where a class's name is. */
enum ruby_class_names {
	RUBY_CLASS_NAMES_NONE = 0, /* 2.0 (chained st_table ivars), 3.2 (shapes) */
	RUBY_CLASS_NAMES_IV_TBL,   /* 2.5-3.1: "__classpath__" in its iv_tbl */
	RUBY_CLASS_NAMES_FIELD,    /* 3.3: rb_classext_t.classpath */
};

struct ruby_layout {
	unsigned major, minor;

	/* the VM and its threads */
	int threads;                /* enum ruby_threads */
	uint32_t vm_main_thread;    /* 2.x */
	uint32_t vm_running_thread; /* 2.0 */
	uint32_t vm_living_threads; /* 2.5-2.7: a list_head */
	uint32_t vm_ractors;        /* 3.x: vm->ractor.set, a list_head */
	uint32_t ractor_node;       /* 3.x: rb_ractor_t.vmlr_node */
	uint32_t ractor_threads;    /* 3.x: rb_ractor_t.threads.set */
	uint32_t thread_node;       /* rb_thread_t.vmlt_node / lt_node */
	int32_t thread_ec;          /* rb_thread_t.ec; -1: the thread holds its
	                               context's fields itself (2.0) */
	int32_t thread_id;          /* rb_thread_t.thread_id (pthread_t); -1 */
	int32_t thread_nt, nt_tid;  /* 3.2+: rb_thread_t.nt, rb_native_thread.tid */
	uint32_t thread_head;       /* bytes of a thread read */

	/* an execution context (2.0: the thread) */
	uint32_t ec_stack, ec_stack_size, ec_cfp;

	/* control frames */
	uint32_t cfp_size, cfp_pc, cfp_iseq, cfp_ep;
	int32_t cfp_flag, cfp_me;   /* 2.0 only: the frame's flags and method
	                               entry; later in ep[0] and ep[-2] */
	uint64_t magic_mask, magic_cfunc, magic_ifunc, magic_dummy;
	uint64_t flag_finish;       /* VM_FRAME_FLAG_FINISH */
	uint64_t flag_local;        /* VM_ENV_FLAG_LOCAL; 0 (2.0): no env chain */

	/* instruction sequences: offsets into rb_iseq_constant_body, or into
	 * rb_iseq_t itself when iseq_body < 0 (2.0) */
	int32_t iseq_body;          /* rb_iseq_t.body */
	uint32_t body_size;         /* iseq_size (instructions, in words) */
	uint8_t body_size_bytes;    /* its width: 4, or 8 (2.0) */
	uint32_t body_encoded;      /* iseq_encoded */
	uint32_t body_path;         /* location.pathobj, 2.0: location.path */
	bool path_is_string;        /* 2.0: always a String */
	uint32_t body_base_label, body_label, body_first_lineno;
	uint8_t first_lineno_bytes; /* 8 (2.x-3.1), 4 (3.2+): compared, not used */
	uint32_t body_local_iseq;   /* local_iseq: the method a block is in */
	uint32_t body_head;         /* bytes of a body read: all of the above */
	int lines;                  /* enum ruby_lines */
	uint32_t lines_entries, lines_count, lines_positions, lines_succ;
	uint8_t lines_count_bytes;  /* 4, or 8 (2.0) */
	uint32_t entry_size, entry_line, entry_position;

	/* method entries (rb_method_entry_t, rb_method_definition_t) */
	uint32_t me_def, me_called_id, me_owner;
	bool def_type_bits;         /* 2.5+: the type is 4 bits of a bitfield */
	uint32_t def_original_id;
	uint32_t def_body;          /* the body union: cfunc.func, iseq.iseqptr, bmethod.proc */

	/* objects */
	int strings;                /* enum ruby_strings */
	uint32_t array_embed_len_mask; /* (flags >> 15) & mask */
	int class_names;            /* enum ruby_class_names */
	uint32_t class_ext;         /* RClass.ptr (iv_tbl) */
	uint32_t ext_iv_tbl;        /* rb_classext_t.iv_tbl */
	uint32_t class_classpath;   /* 3.3: RClass + classext.classpath */
	uint32_t class_attached;    /* 3.3: ... as.singleton_class.attached_object */
	uint32_t symbols_ids;       /* rb_symbols_t.ids; 0: IDs are not read */
};

/* The layout of Ruby major.minor, NULL for one the reader has none for
 * (2.1-2.4, 3.4 and later). */
const struct ruby_layout *ruby_layout__table(unsigned major, unsigned minor);

/* "3.1.2" (the binary's ruby_version) -> 3, 1. 0, or -EINVAL. */
int ruby_layout__parse_version(const char *s, unsigned *major, unsigned *minor);

/* Object types and flags every version shares (include/ruby/ruby.h,
 * internal/imemo.h, include/ruby/internal/fl_type.h). */
#define RUBY_T_MASK 0x1fu
#define RUBY_T_CLASS 0x02u
#define RUBY_T_MODULE 0x03u
#define RUBY_T_STRING 0x05u
#define RUBY_T_ARRAY 0x07u
#define RUBY_T_DATA 0x0cu
#define RUBY_T_IMEMO 0x1au
#define RUBY_T_ICLASS 0x1cu
#define RUBY_FL_SINGLETON (1u << 12)  /* FL_USER0 */
/* FL_USER1: set in a String that is not embedded (RSTRING_NOEMBED), in an
 * Array that is (RARRAY_EMBED_FLAG) */
#define RUBY_FL_USER1 (1u << 13)
#define RUBY_IMEMO_CREF 1u
#define RUBY_IMEMO_SVAR 2u
#define RUBY_IMEMO_MENT 6u
#define RUBY_IMEMO_ISEQ 7u
/* imemo type: (flags >> FL_USHIFT) & IMEMO_MASK */
#define RUBY_IMEMO_TYPE(flags) (((flags) >> 12) & 0x0fu)
/* enum rb_method_type_t: VM_METHOD_TYPE_ISEQ, _CFUNC, _BMETHOD */
#define RUBY_METHOD_ISEQ 0u
#define RUBY_METHOD_CFUNC 1u
#define RUBY_METHOD_BMETHOD 4u
/* struct RTypedData {basic, type, typed_flag, data}: where data is */
#define RUBY_TYPED_DATA_PTR 32u

#endif
