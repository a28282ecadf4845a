/* A Perl 5 process (5.16-5.40) read from outside: the subs its
 * interpreter runs now, from its context stacks (PL_curstackinfo ->
 * si_cxstack, each CXt_SUB context's CV), named "Package::sub (file.pl)",
 * with, for the innermost sub of each runops call, the pad it runs with
 * (PL_curpad while it runs: what a sample's registers prove it by).
 *
 * Everything comes from the process's memory through a memsource (never
 * written, signalled or stopped) and is hostile: every pointer is checked
 * before it is followed, every SV's type before it is taken for one,
 * every walk is bounded, every name is capped. Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_PERL_H
#define SMOLDER_RUNTIMES_PERL_H
#include <stdbool.h>
#include <stdint.h>

#include "runtimes/interp_place.h"
#include "runtimes/perl_layout.h"

struct perl;
struct memsource;
struct strtab;
struct strtab_remap;

/* Opens a reader of the interpreter whose pointer is at interp_ptr (a
 * threaded build's PL_curinterp), or, with interp_ptr 0, of a non-threaded
 * build's globals PL_curcop at curcop and PL_curstackinfo at curstackinfo
 * (all run-time addresses). m copied, l and names borrowed. lines: names
 * carry the line each sub runs, "inner (app.pl:12)". 0, or -ENOMEM. */
int perl__open(const struct memsource *m, uint64_t interp_ptr, uint64_t curcop,
	       uint64_t curstackinfo, const struct perl_layout *l, bool lines,
	       struct strtab *names, struct perl **out);
void perl__delete(struct perl *p);

/* Reads the subs the interpreter runs now, innermost first, into out:
 * each named; a sub that begins a runops call (called from C: call_sv, a
 * sort block, a callback) ends its group (entry_end); the innermost sub
 * of each group carries its pad's array as both its address and its
 * code (perl__proof). 0; -ENOENT when no sub runs; -EFAULT/-ESRCH/-EPROTO
 * when the memory could not be read or makes no sense (a process posing
 * as Perl, one exiting); -EBUSY past the ledger's read budget. */
int perl__read_stack(struct perl *p, uint64_t now_ns, struct interp_stack *out);

/* Which frame of the last read words[0..n) prove: the first word that
 * points into the pad array of the innermost sub of a runops call
 * (PL_curpad, or an entry's address), is one of the SVs in that pad (an
 * op's target, a lexical) or one of its ops. A sub that recurses is
 * proven by pads alone, its own or those of its outer calls at their
 * depths: the outermost such call a word points into. Returns the
 * frame's index, or -1. */
long perl__proof(const struct perl *p, const uint64_t *words, size_t n);

void perl__counters(const struct perl *p, struct runtime_counters *out);
int perl__remap_names(struct perl *p, struct strtab_remap *r);

/* The name cache (runtimes/perl_names.c), for perl.c. A sub is known by
 * its CV, the CV's body, the GV or HEK naming it, the stash, its file
 * pointer, the name HEK's head (hash, length, first bytes: read at every
 * use, so memory reused for another sub is named anew) and its line. */
struct perl_names;
#define PERL_HEAD_BYTES 16 /* HEK: hek_hash, hek_len, hek_key[0..8) */
struct perl_sub {
	uint64_t cv, body, gv, hek, stash, file;
	uint32_t line;       /* 0 without lines */
	uint8_t head[PERL_HEAD_BYTES];
};
struct perl_names *perl_names__new(void);
void perl_names__delete(struct perl_names *n);
/* The name id of sub: from the cache when the same sub was named before,
 * else read (the stash's name, the file). 0, a read's -errno, -EPROTO
 * for memory that makes no sense, -ENOMEM. */
int perl_names__name(struct perl_names *n, struct memsource *m, const struct perl_layout *l,
		     struct strtab *names, const struct perl_sub *sub, uint32_t *id);
int perl_names__remap(struct perl_names *n, struct strtab_remap *r);

#endif
