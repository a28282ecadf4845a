/* Perl 5's layouts, per version (runtimes/perl_layout.h).
 *
 * Sources: the headers of github.com/Perl/perl5 at each v5.N.0 tag, for
 * x86-64 (pointers, IV, STRLEN, SSize_t of 8 bytes; I32, U32 of 4):
 *  - intrpvar.h, the PerlInterpreter struct of threaded builds (one
 *    PERLVAR per field, in order): curcop and curstackinfo follow
 *    stack_sp, op, curpad, stack_base, stack_max (0..0x20), savestack,
 *    savestack_ix, savestack_max, scopestack, scopestack_ix,
 *    scopestack_max (0x28..0x44), tmps_stack, tmps_ix, tmps_floor,
 *    tmps_max (0x48..0x60), then 5.24-5.32: sub_generation (U32) 0x68,
 *    markstack, _ptr, _max 0x70..0x80, hash_rand_bits_enabled (U8) 0x88,
 *    hash_rand_bits 0x90, strtab 0x98, multideref_pc 0xa0, curpm 0xa8,
 *    (5.26+: curpm_under 0xb0), tainting, tainted, delaymagic, localizing,
 *    in_eval (bytes), defgv, dowarn, utf8cache, defstash, curstash,
 *    curcop, curstack, curstackinfo: curcop 0xd8 and curstackinfo 0xe8 in
 *    5.24, 0xe0 and 0xf0 in 5.26-5.32; 5.34 moved markstack before
 *    sub_generation and dowarn, utf8cache before localizing, so from 5.34
 *    markstack 0x68..0x78, sub_generation 0x80, hash_rand_bits 0x88,
 *    strtab 0x90, multideref_pc 0x98, curpm 0xa0, curpm_under 0xa8, the
 *    bytes 0xb0..0xb7, defgv 0xb8, defstash 0xc0, curstash 0xc8, curcop
 *    0xd0, curstack 0xd8, curstackinfo 0xe0 (5.36's Perl_runops_standard
 *    clears `tainted` at 0xb1; the OpenTelemetry profiler's Perl tracer
 *    has 0xe0/0xf0 and 0xd0/0xe0 for 5.28-5.40 too).
 *  - cop.h, struct stackinfo: si_stack 0, si_cxstack 8, si_prev 0x10,
 *    si_next 0x18, si_cxix 0x20 (I32), si_cxmax 0x24 (I32), in every
 *    row (gdb: 0x20 and 0x24 on 5.16.3 and 5.22.4 too).
 *  - cop.h, struct block (5.24+): blku_type (U8) 0, gimme 1, u16 2,
 *    oldsaveix 4, oldsp 8, oldmarksp 0xc, oldcop 0x10, oldpm 0x18,
 *    old_tmpsfloor 0x20, oldscopesp 0x28, the union blk_u at 0x30;
 *    struct block_sub: retop 0x30, then 5.24-5.30 prevcomppad 0x38, cv
 *    0x40, olddepth 0x48; 5.32+ old_cxsubix 0x38, prevcomppad 0x40, cv
 *    0x48, olddepth 0x50. sizeof(PERL_CONTEXT) (the union of struct block
 *    and struct subst) 0x60, 0x68 from 5.32. CXt_SUB is 9 from 5.24
 *    (8 before, with another block: no row). CXTYPEMASK 0xf.
 *  - cop.h, struct cop: BASEOP (op_next, op_sibparent, op_ppaddr,
 *    op_targ, the type and flag bits: 0x24 bytes), cop_line (line_t) 0x24.
 *  - sv.h: an SV's head is sv_any 0, sv_refcnt 8, sv_flags 12, sv_u 16;
 *    SVt_PVGV 9, SVt_PVAV 11, SVt_PVHV 12, SVt_PVCV 13 in every row;
 *    _XPV_HEAD (xmg_stash, xmg_u, xpv_cur, xpv_len_u) is 0x20 bytes;
 *    struct xpvgv: xiv_u.xivu_namehek 0x20, xnv_u.xgv_stash 0x28.
 *  - sv.h (cv.h before 5.22 moved it), _XPVCV_COMMON after _XPV_HEAD:
 *    xcv_stash 0x20, xcv_start_u 0x28, xcv_root_u 0x30, xcv_gv_u 0x38
 *    (a HEK when CVf_NAMED 0x8000), xcv_file 0x40, xcv_padlist_u 0x48,
 *    xcv_outside 0x50, xcv_outside_seq 0x58, xcv_flags (U32) 0x5c.
 *  - pad.h, struct padlist: xpadl_max 0, xpadl_arr 8 (PAD *s by depth);
 *    a pad is an AV whose AvARRAY is its sv_u, AvFILLp xav_fill 0x10.
 *  - hv.h: XPVHV xhv_keys 0x10, xhv_max 0x18; struct xpvhv_aux:
 *    xhv_name_u 0, xhv_backreferences 8, xhv_eiter 0x10, xhv_riter 0x18,
 *    xhv_name_count 0x1c; HvAUX is &HvARRAY(hv)[HvMAX(hv) + 1] before
 *    5.36 and the xhv_aux of struct xpvhv_with_aux (0x20) from 5.36.
 *    HEK: hek_hash 0, hek_len 4, hek_key 8.
 *  - op.h, from 5.32: struct opslot is opslot_size, opslot_offset (U16s,
 *    in pointers; the op at 8); OpMySLAB(o) is the slot less
 *    opslot_offset pointers less STRUCT_OFFSET(opslab, opslab_slots);
 *    struct opslab: opslab_next 0, opslab_head 8, opslab_freed 0x10,
 *    opslab_refcnt 0x18, opslab_freed_size (U16) 0x20, opslab_size (U16,
 *    in pointers, with the header) 0x22, opslab_free_space 0x24, then
 *    (readonly-ops builds) a bool and padding: opslab_slots 0x28. A CV's
 *    root op (xcv_root_u, 0x30) finds the chain of its slabs. Before 5.32
 *    a slot is opslot_next, opslot_slab (the head) and opslab_size is in
 *    PERL_DEBUG_READONLY_OPS builds only: a slab's extent is walked
 *    (below, 5.18-5.31).
 *
 * 5.16-5.22, from the v5.16.3, v5.18.4, v5.20.3 and v5.22.4 headers, each
 * row checked against gdb's view of that release built here with
 * -Dusethreads (offsetof on its DWARF), and the 5.16.3 and 5.22.4 builds
 * read running:
 *  - intrpvar.h: curcop, curstack, curstackinfo in a row as later, after
 *    fields that moved from release to release: 5.16 keeps statbuf,
 *    statcache (Stat_t, 144 bytes) and timesbuf (struct tms) and a
 *    scopestack_name before them (curcop 0x250, curstackinfo 0x260);
 *    5.18 has 32-bit tmps indices (0xb0, 0xc0); 5.20 made them SSize_t
 *    (0xd0, 0xe0); 5.22 added sawalias and multideref_pc (0xd8, 0xe8).
 *  - cop.h, struct block (5.16-5.22): blku_type 0, gimme 1, u16 2,
 *    oldsp (I32) 4, oldcop 8, oldmarksp 0x10, oldscopesp 0x14, oldpm
 *    0x18, blk_u at 0x20; struct block_sub: retop 0x20, cv 0x28,
 *    savearray 0x30, argarray 0x38, olddepth (I32) 0x40, oldcomppad 0x48.
 *    sizeof(PERL_CONTEXT) 0x50, 0x58 in 5.22 (a larger block_loop).
 *    CXt_SUB 8. olddepth is CvDEPTH before the call, as later.
 *  - the XPVCV, XPVGV, HEK, stash aux and COP fields read are where the
 *    table's later rows have them (xcv_flags a U16 at 0x5c before 5.22;
 *    5.16 has no CVf_NAMED, its bit unused). 5.16's CvPADLIST is an AV
 *    of pads by depth (AvFILLp the deepest, AvARRAY the pads); struct
 *    padlist (xpadl_max 0, xpadl_alloc 8) came with 5.18.
 *  - op.h/op.c 5.18-5.31: struct opslot is opslot_next, opslot_slab (set
 *    to the sub's first slab for every slot), the op at 0x10; struct
 *    opslab is opslab_first 0, opslab_next 8, opslab_freed 0x10,
 *    opslab_refcnt 0x18, the slots from 0x20 (PERL_DEBUG_READONLY_OPS
 *    builds add opslab_size and a bool). S_new_slab callocs a slab of
 *    64 pointers (PERL_SLAB_SIZE), each next twice the last up to 2048,
 *    and sets opslab_first to its last pointer: a sentinel whose
 *    opslot_next stays 0; each new slot is carved below opslab_first and
 *    links to it. The first slab stays the chain's head, each new slab
 *    inserted after it. No op slabs before 5.18. */
#include "config.h"

#include <stddef.h>

#include "runtimes/perl_layout.h"
#include "runtimes/x86_insn.h"

#define COMMON .si_cxstack = 8, .si_prev = 0x10, .si_cxix = 0x20, .si_cxmax = 0x24, .cop_line = 0x24, \
	.cv_stash = 0x20, .cv_gv = 0x38, .cv_file = 0x40, .cv_padlist = 0x48, .cv_flags = 0x5c, \
	.gv_namehek = 0x20, .gv_stash = 0x28, .aux_name_count = 0x1c, .cv_root = 0x30
/* struct block and block_sub: 5.24+, and 5.16-5.22 */
#define BLOCK .cx_oldcop = 0x10, .cx_retop = 0x30, .cxt_sub = 9
#define OLD_BLOCK .cx_oldcop = 8, .cx_retop = 0x20, .cx_cv = 0x28, .cx_olddepth = 0x40, .cxt_sub = 8
#define SLABS .slab_size = 0x22, .slab_slots = 0x28
#define LINKED_SLOTS .slots_linked = true

/* newest first: a version takes the first row at or below it */
static const struct perl_layout layouts[] = {
	{ 36, 0xd0, 0xe0, .cx_size = 0x68, .cx_cv = 0x48, .cx_olddepth = 0x50, .hv_aux = 0x20, COMMON, BLOCK, SLABS },
	{ 34, 0xd0, 0xe0, .cx_size = 0x68, .cx_cv = 0x48, .cx_olddepth = 0x50, COMMON, BLOCK, SLABS },
	{ 32, 0xe0, 0xf0, .cx_size = 0x68, .cx_cv = 0x48, .cx_olddepth = 0x50, COMMON, BLOCK, SLABS },
	{ 26, 0xe0, 0xf0, .cx_size = 0x60, .cx_cv = 0x40, .cx_olddepth = 0x48, COMMON, BLOCK, LINKED_SLOTS },
	{ 24, 0xd8, 0xe8, .cx_size = 0x60, .cx_cv = 0x40, .cx_olddepth = 0x48, COMMON, BLOCK, LINKED_SLOTS },
	{ 22, 0xd8, 0xe8, .cx_size = 0x58, COMMON, OLD_BLOCK, LINKED_SLOTS },
	{ 20, 0xd0, 0xe0, .cx_size = 0x50, COMMON, OLD_BLOCK, LINKED_SLOTS },
	{ 18, 0xb0, 0xc0, .cx_size = 0x50, COMMON, OLD_BLOCK, LINKED_SLOTS },
	{ 16, 0x250, 0x260, .cx_size = 0x50, .padlist_av = true, COMMON, OLD_BLOCK },
};

const struct perl_layout *perl_layout__by_version(unsigned revision, unsigned version)
{
	size_t i;

	/* odd versions are development releases of the next even one; 5.41+
	 * is newer than any header read */
	if (revision != 5 || version > 40)
		return NULL;
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (version >= layouts[i].minor)
			return &layouts[i];
	return NULL;
}

#define BIT(r) (1u << (unsigned)(r))
/* Instructions of Perl_pp_nextstate looked at, at most. */
#define NEXTSTATE_INSNS 16

uint16_t perl_layout__curcop_in_code(const uint8_t *code, size_t n)
{
	unsigned interp = BIT(7) /* rdi: pTHX */, op = 0, k;
	size_t at = 0;

	for (k = 0; k < NEXTSTATE_INSNS && at < n; k++) {
		struct x86_insn in;
		int len = x86_insn__decode(code + at, n - at, &in);
		unsigned dst = in.dst >= 0 ? BIT(in.dst) : 0, src = in.src >= 0 ? BIT(in.src) : 0;

		if (!len || in.flow != X86_NEXT)
			return 0;
		at += (size_t)len;
		if (in.op == X86_OP_STORE && (interp & dst) && (op & src) && in.imm > 0 &&
		    in.imm < PERL_I_MAX)
			return (uint16_t)in.imm;
		interp &= ~in.writes;
		op &= ~in.writes;
		if (in.op == X86_OP_MOV) {
			interp = (interp & src) ? interp | dst : interp & ~dst;
			op = (op & src) ? op | dst : op & ~dst;
		} else if (in.op == X86_OP_LOAD) {
			unsigned was_interp = interp & src;

			interp &= ~dst;
			op &= ~dst;
			if (was_interp && in.imm == PERL_I_OP)
				op |= dst;
		} else if (in.op == X86_OP_POP || in.op == X86_OP_LEA || in.op == X86_OP_LEAVE) {
			interp &= ~dst;
			op &= ~dst;
		}
	}
	return 0;
}
