/* The Perl reader's own state, shared by runtimes/perl.c (the stack
 * walk, names and proof) and runtimes/perl_slabs.c (the op slabs a sub's
 * ops live in). Nothing outside the reader includes it. */
#ifndef SMOLDER_RUNTIMES_PERL_STATE_H
#define SMOLDER_RUNTIMES_PERL_STATE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtimes/interp_place.h"
#include "runtimes/memsource.h"
#include "runtimes/perl.h"
#include "runtimes/perl_layout.h"
#include "runtimes/prefetch.h"

/* Stack infos (one per nesting of Perl's own stacks: sort blocks, magic,
 * callbacks from C) followed at most, and contexts looked at in a read:
 * deeper recursion keeps its innermost subs. */
#define SI_MAX 64
/* Bytes of a stack info read: its pointers, si_cxix and si_cxmax */
#define SI_BYTES 0x28
#define CX_SCAN_MAX 4096
#define CX_BATCH 64
#define CX_BYTES_MAX 0x80
/* A context index past this is no stack of a running program. */
#define CXIX_MAX (1 << 20)
/* Contexts above the last read's top read ahead with it: a program whose
 * subs return and call again between two samples moves its top by a few. */
#define CX_AHEAD 16
/* Bytes of a CV's body read: up to xcv_flags; of a GV's: up to xgv_stash. */
#define CV_BODY 0x60
#define GV_BODY 0x30
/* A pad of more entries than this is memory posing as one. */
#define PAD_FILL_MAX (1 << 16)
/* Pads read for proof in a read (the innermost sub of each runops call),
 * and the entries of each read: a sub's lexicals, its ops' targets and
 * (threaded builds) its constants come first. */
#define PROOF_PADS 8
#define PAD_SVS 128
/* Op slabs of a sub followed at most: they double up to 2048 pointers,
 * so this is a sub of some 100 000 ops. */
#define SLABS_MAX 16
/* 5.32+: a slab's header before its slots */
#define SLAB_HEAD 0x28
/* 5.18-5.31: a slab's header (opslab_first, _next, _freed, _refcnt), and
 * its smallest and largest sizes (op.c: 64 to 2048 pointers) */
#define LINKED_SLAB_HEAD 0x20
#define LINKED_SLAB_MIN 512
#define LINKED_SLAB_MAX 16384
/* Bytes of 5.18-5.31 slabs read in one stack read at most: a real sub's
 * chain is walked once (cached), a dozen slabs for a sub of thousands of
 * ops; memory posing as subs with new slabs at every read costs this. */
#define LINKED_WALK_BYTES (256u << 10)

struct pad {
	size_t frame;
	uint64_t lo, hi;          /* the pad's array: PL_curpad while it runs */
	uint64_t sv[PAD_SVS];     /* its entries, sorted */
	size_t nsv;
	uint64_t slab_lo[SLABS_MAX], slab_hi[SLABS_MAX]; /* its ops' slabs' slots */
	size_t nslabs;
	/* the sub runs again further out in its runops call (recursion):
	 * its ops and the SVs its pads share (constants) tell no call from
	 * another, only its pad's own array does */
	bool recursive;
	/* recursive, its SVs left only where another depth's pad has
	 * another SV: a lexical of this depth proves this depth's call */
	bool unique_svs;
	uint64_t padl_arr, padl_max; /* its sub's PadlistARRAY, xpadl_max */
};

/* A frame of a recursion further out than its innermost call, with the
 * pad of the depth it runs at (runtimes/perl.h: recursion_pads). */
struct depth_pad {
	size_t frame;
	uint64_t lo, hi;
};

struct raw {
	uint64_t cv, cop, retop;
	int32_t depth;
};

/* A sub's op slabs, known by its CV's body and root op: a live sub's
 * slabs neither move nor grow (ops are allocated while it compiles). */
#define SLAB_CACHE 64
struct slabs {
	uint64_t body, root;
	uint64_t lo[SLABS_MAX], hi[SLABS_MAX];
	size_t n;
};

/* Where the last read found the stack's head (0: not yet). */
struct head {
	uint64_t interp, si, cxstack;
	int32_t cxix, cxmax;
	/* the contexts read ahead at cxstack: lo..hi */
	uint64_t window_stack;
	int32_t window_lo, window_hi;
};

struct perl {
	struct memsource mem;
	uint64_t interp_ptr, curcop, curstackinfo;
	const struct perl_layout *l;
	struct head last;
	struct prefetch pre;
	bool lines;
	struct strtab *names;
	struct perl_names *cache;
	uint64_t failures;
	/* one read's scratch */
	struct raw raw[INTERP_MAX_FRAMES];
	uint8_t cx[CX_BATCH][CX_BYTES_MAX];
	uint8_t head[INTERP_MAX_FRAMES][24];
	uint8_t body[INTERP_MAX_FRAMES][CV_BODY];
	uint8_t gbody[INTERP_MAX_FRAMES][GV_BODY];
	struct perl_sub subs[INTERP_MAX_FRAMES];
	struct pad pads[PROOF_PADS];
	size_t npads;
	struct depth_pad deep[INTERP_MAX_FRAMES];
	size_t ndeep;
	struct slabs slab_cache[SLAB_CACHE];
	uint64_t slab_words[LINKED_SLAB_MAX / 8]; /* a 5.18-5.31 slab, walked */
	size_t walk_bytes; /* left to this stack read for such slabs */
};

static inline bool plausible(uint64_t p)
{
	return p >= 4096 && p < (1ull << 47) && (p & 7) == 0;
}

static inline uint64_t u64_at(const uint8_t *b, uint32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static inline uint32_t u32_at(const uint8_t *b, uint32_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* The slabs the ops of frame k's sub live in, into pd (5.18+; none
 * before). 0 or -errno. */
int perl_slabs__of(struct perl *p, size_t k, struct pad *pd);

#endif
