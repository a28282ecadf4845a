/* Where Perl 5 (5.16-5.40, x86-64) keeps what the Perl reader reads: per
 * version, the interpreter's current COP and stack info, a stack info's
 * context array, a sub context's fields, a CV's, a GV's, a stash's name
 * and a COP's line. Each number is documented in perl_layout.c with the
 * header and field it comes from. Versions before 5.16 (no version bytes
 * in the binary) have no row: their processes are refused, not guessed. */
#ifndef SMOLDER_RUNTIMES_PERL_LAYOUT_H
#define SMOLDER_RUNTIMES_PERL_LAYOUT_H
#include <stdbool.h>
#include <stdint.h>

struct perl_layout {
	unsigned minor;                  /* 5.minor: the first release of the row */
	/* PerlInterpreter (intrpvar.h), threaded builds */
	uint16_t i_curcop, i_curstackinfo;
	/* PERL_SI (cop.h, struct stackinfo) */
	uint16_t si_cxstack, si_prev, si_cxix, si_cxmax;
	/* PERL_CONTEXT (cop.h, struct block / struct block_sub) */
	uint16_t cx_size, cx_oldcop, cx_retop, cx_cv, cx_olddepth;
	uint8_t cxt_sub;                 /* CXt_SUB in the low 4 bits of cx_type */
	/* COP (cop.h) */
	uint16_t cop_line;
	/* SV head (sv.h): sv_any 0, sv_flags 12, sv_u 16 */
	/* XPVCV (cv.h, _XPVCV_COMMON) */
	uint16_t cv_stash, cv_gv, cv_file, cv_padlist, cv_flags;
	/* XPVGV (sv.h): name HEK, stash */
	uint16_t gv_namehek, gv_stash;
	/* the stash's struct xpvhv_aux (hv.h): in the body at hv_aux (5.36+),
	 * else after the bucket array (HvARRAY[HvMAX + 1]); 0: the latter */
	uint16_t hv_aux;
	uint16_t aux_name_count;
	/* op slabs (op.h), 5.32+: an op's slot header (opslot_size,
	 * opslot_offset: U16s) is the 8 bytes before it, its slab
	 * (opslab_next 0, opslab_head 8, opslab_size U16) opslab_slots bytes
	 * before the slot offset pointers to it; 0: the slabs' extent is not
	 * kept (before 5.32 opslab_size exists only in debugging builds) */
	uint16_t cv_root, slab_size, slab_slots;
	/* 5.18-5.31: an op's slot is opslot_next, opslot_slab (the sub's
	 * first slab) and the op, so the slab pointer is 8 bytes before the
	 * op; a slab (opslab_first 0, opslab_next 8, its slots from 0x20)
	 * keeps no size, and its end is found by walking its slots from
	 * opslab_first along their opslot_next (each slot's first word) to
	 * the sentinel that ends a new slab (its last pointer, 0) */
	bool slots_linked;
	/* 5.16: a CV's padlist (xcv_padlist) is an AV of pads by depth, not
	 * a struct padlist (5.18+) */
	bool padlist_av;
};

#define PERL_SV_ANY 0
#define PERL_SV_FLAGS 12
#define PERL_SV_U 16
#define PERL_SVTYPE_MASK 0xffu
#define PERL_SVT_PVGV 9
#define PERL_SVT_PVAV 11
#define PERL_SVT_PVHV 12
#define PERL_SVT_PVCV 13
#define PERL_SVF_OOK 0x02000000u  /* a hash with an aux struct (sv.h) */
#define PERL_CVF_ISXSUB 0x0008u   /* cv.h */
#define PERL_CVF_NAMED 0x8000u    /* xcv_gv_u holds a HEK, not a GV (cv.h) */
#define PERL_XHV_MAX 0x18         /* XPVHV: xmg_stash, xmg_u, xhv_keys, xhv_max */
#define PERL_XAV_FILL 0x10        /* XPVAV: xmg_stash, xmg_u, xav_fill */
#define PERL_PADLIST_ARRAY 8      /* PADLIST: xpadl_max, xpadl_arr (pad.h) */
#define PERL_HEK_LEN 4            /* HEK: hek_hash, hek_len, hek_key (hv.h) */
#define PERL_HEK_KEY 8

/* The layout of Perl 5.minor, NULL for one without a row. */
const struct perl_layout *perl_layout__by_version(unsigned revision, unsigned version);

/* PL_op's offset in the interpreter of every row, and a bound past the
 * fields any row reads. */
#define PERL_I_OP 8
#define PERL_I_MAX 0x1000
/* curstack lies between curcop and curstackinfo in every row */
#define PERL_I_CURCOP_TO_CURSI 0x10

/* PL_curcop's offset in the interpreter as a threaded build's own code
 * sets it: Perl_pp_nextstate (n bytes of it at code) begins with
 * PL_curcop = (COP *)PL_op, a load of the op through the interpreter
 * (rdi, or a copy of it) and a store of it. The rows' offsets are those
 * of a default build; fields before curcop come and go with build
 * options (5.18+: hash_rand_bits only with PERL_HASH_RANDOMIZE_KEYS, its
 * _enabled byte only with USE_PERL_PERTURB_KEYS), so the code holds the
 * build's own. 0 when the code does not show it: a non-threaded build
 * (whose globals are read instead), or another compiler's order. */
uint16_t perl_layout__curcop_in_code(const uint8_t *code, size_t n);

#endif
