/* The user half of a sample's stack: unwinding and naming. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/binary.h"
#include "collector/livestack.h"
#include "collector/perf_record.h"
#include "collector/proctable.h"
#include "collector/runtimes.h"
#include "collector/user_stack.h"
#include "common/clock.h"
#include "symbolize/symbolizer.h"
#include "unwind/cfi.h"
#include "unwind/regs.h"
#include "unwind/stackmem.h"

/* A pc in no known mapping triggers a /proc/PID/maps re-read, at most this
 * often per process. */
#define MAPS_REREAD_INTERVAL_NS 1000000000ull

struct user_stack {
	struct proctable *procs;
	struct symbolizer *sym;
	struct runtimes *rs;         /* borrowed; NULL: no runtime readers */
	int dwarf;
	bool mono_times;             /* sample times are CLOCK_MONOTONIC */
	bool keep_native;            /* name native frames beside the language
	                                frames they ran */
	uint64_t regs_mask;
	size_t max_frames;
	struct unwind_frame *frames; /* max_frames, innermost first */
	struct process *cur;         /* the sample's, for find_module */
	uint64_t now_ns;             /* the sample's unwinding time */
	bool kept;                   /* a frame kept its registers for a reader */
	struct unwind_regs regs;     /* the sample's, for the readers */
	struct unwind_stack stack;
	struct livestack *live;      /* the stack beyond the copy (DWARF mode) */
	struct runtime_stack *lang;  /* the sample's language frames */
	size_t max_walk;             /* the kernel's perf_event_max_stack */
	bool walk_joined;            /* the sample's stack goes on from the walk */
};

/* How many entries the kernel puts in a callchain at most. */
static size_t perf_max_stack(void)
{
	unsigned long v = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? (size_t)v : 127;
}

int user_stack__new(struct proctable *procs, struct symbolizer *sym, struct runtimes *rs, int dwarf,
		    uint64_t regs_mask, size_t max_frames, bool mono_times, struct user_stack **out)
{
	struct user_stack *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->procs = procs;
	u->rs = rs;
	u->sym = sym;
	u->dwarf = dwarf;
	u->mono_times = mono_times;
	u->keep_native = rs && runtimes__opts(rs)->keep_native;
	u->regs_mask = regs_mask;
	u->max_frames = max_frames;
	u->max_walk = perf_max_stack();
	u->frames = calloc(max_frames ? max_frames : 1, sizeof(*u->frames));
	u->lang = calloc(1, sizeof(*u->lang));
	if (!u->frames || !u->lang || (dwarf && livestack__new(rs, &u->live) < 0)) {
		user_stack__delete(u);
		return -ENOMEM;
	}
	*out = u;
	return 0;
}

void user_stack__delete(struct user_stack *u)
{
	if (!u)
		return;
	livestack__delete(u->live);
	free(u->lang);
	free(u->frames);
	free(u);
}

/* The module holding pc for the unwinder. Executable memory that is no
 * ELF (JIT code caches: anonymous, memfd or shared memory) is a module without
 * CFI: code a runtime reader knows is stepped over as it describes it,
 * other JIT code by frame pointer, as JITs keep them. */
static int find_module(void *ctx, uint64_t pc, struct unwind_module *out)
{
	struct user_stack *u = ctx;
	struct proc_map *m = process__find_map(u->procs, u->cur, pc);
	struct binary *bin = m ? proc_map__binary(m) : NULL;

	if (!m)
		return -ENOENT;
	out->owner = m;
	if (!bin || !binary__is_elf(bin)) {
		/* a file that is no ELF keeps the bias its frames are named by */
		if (bin)
			out->bias = proc_map__bias(m);
		if (u->rs) {
			if (!u->now_ns)
				u->now_ns = clock__mono_ns();
			(void)runtimes__describe_code(u->rs, u->cur, pc, proc_map__path(m),
						      u->now_ns, out);
			/* JIT code a reader reads the stack of, as an eval loop */
			u->kept |= out->keep_regs;
		}
		return 0;
	}
	out->cfi = binary__cfi(bin);
	out->bias = proc_map__bias(m);
	out->entry = binary__entry(bin);
	if (u->rs) {
		runtimes__describe_file(u->rs, bin, pc - out->bias, out);
		u->kept |= out->keep_regs;
	}
	return 0;
}

static size_t unwind_dwarf(struct user_stack *u, const struct perf_sample *smp, enum unwind_stop *why)
{
	size_t n = 0;

	if (unwind_regs__from_perf(&u->regs, u->regs_mask, smp->regs, smp->regs_nr) < 0)
		return 0;
	u->stack.base = u->regs.val[UNWIND_REG_SP];
	u->stack.data = smp->stack;
	u->stack.size = (size_t)smp->stack_dyn_size;
	if (unwind__dwarf(&u->regs, &u->stack, find_module, u, u->frames, u->max_frames, &n, why) < 0)
		return 0;
	return n;
}

/* Whether the code of frame f keeps the frame pointers the kernel's walk
 * follows: Go's does, in every function (its binaries are the ones whose
 * reader marks roots); C built at -O2, HotSpot's compiled code and
 * interpreters do not, or not everywhere. */
static bool keeps_frame_pointers(struct user_stack *u, const struct unwind_frame *f, bool leaf)
{
	struct unwind_module m;

	memset(&m, 0, sizeof(m));
	return find_module(u, leaf ? f->pc : f->pc - 1, &m) == 0 && m.nroots > 0;
}

/* Appends frames from the kernel's frame-pointer walk, walk[i0..nr), to
 * frames [0, n); with fp_code_only, up to the first in code that keeps no
 * frame pointers (the stack then ends truncated). walk[0] is the sampled
 * ip, the others are return addresses (looked up at pc - 1: the call may
 * be a function's last instruction). Through code built without frame pointers the walk follows
 * whatever %rbp holds, so a return address in no executable mapping ends
 * the stack there (counted as bad_pc) instead of adding [unknown] roots. An
 * ip in no mapping is UNWIND_NO_MAP: the caller re-reads /proc/PID/maps, as
 * in DWARF mode. Returns the new count. */
static size_t append_walk(struct user_stack *u, const uint64_t *walk, size_t nr, size_t i0, size_t n,
			  bool fp_code_only, enum unwind_stop *why)
{
	size_t i;

	*why = UNWIND_COMPLETE;
	for (i = i0; i < nr; i++) {
		struct unwind_frame *f;
		uint64_t pc = walk[i];
		uint64_t lookup = i ? pc - 1 : pc;
		struct proc_map *m;

		if (n == u->max_frames) {
			*why = UNWIND_DEPTH;
			break;
		}
		if (pc == 0 || (i > 0 && pc < 4096)) {
			*why = UNWIND_BAD_PC;
			break;
		}
		m = process__find_map(u->procs, u->cur, lookup);
		if (!m && i > 0) {
			*why = UNWIND_BAD_PC;
			break;
		}
		if (!m)
			*why = UNWIND_NO_MAP;
		f = &u->frames[n];
		memset(f, 0, sizeof(*f));
		f->pc = pc;
		/* past code that keeps frame pointers the walk may skip callers */
		if (fp_code_only && !keeps_frame_pointers(u, f, i == 0)) {
			*why = UNWIND_TRUNCATED;
			break;
		}
		n++;
		f->owner = m && proc_map__binary(m) ? m : NULL;
		f->vaddr = f->owner ? lookup - proc_map__bias(m) : 0;
		f->func_start = 0;
		f->signal = false; /* the kernel's walk does not say */
		if (f->owner) {
			struct cfi *c = binary__cfi(proc_map__binary(m));

			if (c)
				cfi__func_start(c, f->vaddr, &f->func_start);
		}
	}
	return n;
}

/* Frame-pointer mode: the kernel walked the user stack by frame pointers. */
static size_t from_callchain(struct user_stack *u, const struct callchain_parts *cc,
			     enum unwind_stop *why)
{
	return append_walk(u, cc->user, cc->user_nr, 0, 0, false, why);
}

/* Keeps of frames [0, n) unwound in DWARF mode what the sample proves
 * (unwind/stackmem.h: frames read beyond the copy, judged by the kernel's
 * frame-pointer walk where its code keeps frame pointers), and where the
 * stack is cut, goes on from the walk: it was taken with the sample, so the
 * return addresses it holds past the last frame it shares with the unwind
 * are the sample's callers, however the live stack has moved since. */
static size_t prove_deep(struct user_stack *u, const struct callchain_parts *cc, size_t n,
			 enum unwind_stop *why)
{
	const uint64_t *walk = cc ? cc->user : NULL;
	size_t walk_nr = cc ? cc->user_nr : 0, next, kept, i, deepest = 0;
	uint64_t copy_end = u->stack.base + u->stack.size;
	bool whole = cc && walk_nr + cc->kernel_nr < u->max_walk, trusted;

	/* the walk judges every frame beyond the copy where the deepest frame
	 * the copy gave runs code that keeps frame pointers everywhere (Go's);
	 * elsewhere it may skip callers, so it is only a witness of the frames
	 * read past a seam that moved (HotSpot's C2 threads write under their
	 * 16 KiB copy while their stack is read), never followed on its own */
	for (i = 1; i < n && u->frames[i].sp < copy_end + 8; i++)
		deepest = i;
	trusted = keeps_frame_pointers(u, &u->frames[deepest], deepest == 0);
	if (!trusted && !u->stack.far->seam_moved)
		walk_nr = 0;
	kept = stackmem__prove(&u->stack, u->frames, n, walk, walk_nr, whole, &next);
	if (!trusted)
		next = walk_nr;
	/* a frame cut where the walk did not see it; or bytes past a moved
	 * seam that gave no frame, only a CFA that does not climb */
	if (kept < n || (*why == UNWIND_BAD_PC && u->stack.far->seam_moved)) {
		n = kept;
		*why = UNWIND_TRUNCATED;
	}
	if (*why != UNWIND_TRUNCATED || next >= walk_nr)
		return n;
	n = append_walk(u, walk, walk_nr, next, n, true, why);
	u->walk_joined = true;
	/* a walk the kernel stopped at its bound does not reach the root */
	if (*why == UNWIND_COMPLETE && walk_nr + cc->kernel_nr >= u->max_walk)
		*why = UNWIND_TRUNCATED;
	/* nor one that ended short of a runtime's root (Go's goexit,
	 * mstart): a frame pointer lost on the way */
	if (*why == UNWIND_COMPLETE) {
		struct unwind_module m;
		const struct unwind_frame *last = &u->frames[n - 1];

		memset(&m, 0, sizeof(m));
		if (find_module(u, last->pc - 1, &m) == 0 && m.nroots &&
		    !unwind__at_root(&m, last->pc - 1 - m.bias, false))
			*why = UNWIND_TRUNCATED;
	}
	return n;
}

static size_t unwind_once(struct user_stack *u, const struct perf_sample *smp,
			  const struct callchain_parts *cc, enum unwind_stop *why)
{
	return u->dwarf ? unwind_dwarf(u, smp, why) : from_callchain(u, cc, why);
}

size_t user_stack__unwind(struct user_stack *u, struct process *p, const struct perf_sample *smp,
			  const struct callchain_parts *cc, enum unwind_stop *why)
{
	size_t n;
	int missed;

	u->cur = p;
	u->now_ns = 0;
	u->kept = false;
	u->walk_joined = false;
	u->lang->nsplices = 0;
	*why = UNWIND_COMPLETE;
	if (u->live) {
		livestack__attach(u->live, p, (int)smp->tid, &u->stack);
		/* the kernel's frame-pointer walk, taken with the sample, can
		 * prove frames read beyond a seam the thread has written to
		 * since (its own callers' frames, as Go's code does) */
		u->stack.far->prove_later = cc && cc->user_nr > 1;
	}
	n = unwind_once(u, smp, cc, why);
	/* the ip in no mapping we know: the MMAP may not have been read yet, or
	 * the process predates us: look at /proc once */
	missed = *why == UNWIND_NO_MAP && (!u->dwarf || (n > 0 && !u->frames[0].owner));
	if (missed && proctable__reread_maps(u->procs, p, clock__mono_ns(), MAPS_REREAD_INTERVAL_NS))
		n = unwind_once(u, smp, cc, why);
	if (u->live && n > 0 && (stackmem__used_far(&u->stack) || *why == UNWIND_TRUNCATED))
		n = prove_deep(u, cc, n, why);
	/* language stacks are read now, before naming: the nearer to the
	 * sample, the less there is to reconcile */
	if (u->kept && u->dwarf && n > 0) {
		struct runtime_sample s;

		memset(&s, 0, sizeof(s));
		s.pid = process__pid(p);
		s.tid = (int)smp->tid;
		s.sample_ns = u->mono_times ? smp->time : 0;
		s.now_ns = clock__mono_ns();
		s.regs = &u->regs;
		s.stack = &u->stack;
		s.frames = u->frames;
		s.nframes = n;
		s.rooted = *why == UNWIND_COMPLETE;
		s.user_chain = cc ? cc->user : NULL;
		s.user_chain_nr = cc ? cc->user_nr : 0;
		(void)runtimes__read_stacks(u->rs, p, &s, u->lang);
	}
	return n;
}

void user_stack__count(const struct user_stack *u, struct agent_stats *st)
{
	if (u->live && u->dwarf)
		livestack__count(u->live, &u->stack, u->walk_joined, st);
}

/* What the symbolizer needs to know of the code at an unwound frame. */
static void describe_code(struct user_stack *u, const struct unwind_frame *f,
			  struct symbolize_code *code)
{
	const struct proc_map *m = f->owner;
	struct binary *bin = m ? proc_map__binary(m) : NULL;

	memset(code, 0, sizeof(*code));
	code->signal_frame = f->signal;
	if (!m)
		return;
	if (f->code != UNWIND_CODE_NATIVE && f->runtime && u->rs &&
	    (code->instance = runtimes__instance(u->rs, u->cur, f->runtime, &code->reader)) != NULL) {
		code->exact = f->exact;
		code->slot = f->code == UNWIND_CODE_INTERPRETED ? f->method : 0;
		code->bcp = f->code == UNWIND_CODE_INTERPRETED ? f->bcp : 0;
		code->now_ns = u->now_ns ? u->now_ns : clock__mono_ns();
	}
	code->path = proc_map__path(m);
	if (!bin)
		return;
	code->module_frame = binary__unknown_frame(bin);
	if (binary__is_elf(bin))
		code->index = binary__symindex(bin);
	code->vaddr = f->vaddr;
	code->func_start = f->func_start;
}

/* Appends the language frames of splice k, outermost first. */
static int append_splice(struct user_stack *u, size_t k, uint32_t *stack, size_t cap, size_t *n)
{
	const struct runtime_splice *sp = &u->lang->at[k];
	size_t j;

	for (j = 0; j < sp->count; j++) {
		if (*n >= cap)
			return -ENOSPC;
		stack[(*n)++] = u->lang->ids[sp->first + j];
	}
	return 0;
}

/* Appends the names of frames [0, nframes) unwound, outermost first, with
 * the first k splices of language frames in their places. */
static int append_frames(struct user_stack *u, const struct symbolize_process *proc,
			 size_t nframes, size_t k, uint64_t now_ns, uint32_t *stack, size_t cap,
			 size_t *n)
{
	size_t i;

	/* language frames older than the native stack reaches (it was cut):
	 * the root of what is known */
	while (k > 0 && u->lang->at[k - 1].frame >= nframes)
		if (append_splice(u, --k, stack, cap, n) < 0)
			return -ENOSPC;
	for (i = nframes; i-- > 0;) {
		const struct unwind_frame *f = &u->frames[i];
		struct symbolize_code code;
		uint32_t ids[SYMBOLIZER_MAX_FRAMES_PER_PC];
		size_t m = 0;
		bool spliced = false;

		/* a native frame that ran language frames is them (and itself
		 * too when asked); splices are innermost first */
		if (k > 0 && u->lang->at[k - 1].frame == i) {
			k--;
			spliced = u->lang->at[k].count > 0;
		}
		if (!spliced || u->keep_native) {
			describe_code(u, f, &code);
			if (symbolizer__user(u->sym, proc, f->pc, &code, now_ns, ids,
					     SYMBOLIZER_MAX_FRAMES_PER_PC, &m) < 0 || m == 0) {
				ids[0] = symbolizer__unknown(u->sym);
				m = 1;
			}
		}
		/* ids are innermost first: the function, then what was inlined into it */
		while (m-- > 0) {
			if (*n >= cap)
				return -ENOSPC;
			stack[(*n)++] = ids[m];
		}
		if (spliced && append_splice(u, k, stack, cap, n) < 0)
			return -ENOSPC;
	}
	return 0;
}

int user_stack__append_names(struct user_stack *u, struct process *p, size_t nframes,
			     uint64_t now_ns, uint32_t *stack, size_t cap, size_t *n)
{
	struct symbolize_process proc;
	size_t k = u->lang->nsplices, n0 = *n;
	int err;

	/* the language frames are the sample's just unwound, named once: a
	 * sample with no user stack that follows must not take them */
	u->lang->nsplices = 0;

	proc.pid = process__pid(p);
	proc.jitdump = process__jitdump(p);
	err = append_frames(u, &proc, nframes, k, now_ns, stack, cap, n);
	/* what readers read since the sample came from another image than
	 * the one it ran (an exec since): its native frames only, named
	 * without them (their instances are closed now) */
	if (u->rs && !runtimes__same_image(u->rs, p)) {
		*n = n0;
		err = append_frames(u, &proc, nframes, 0, now_ns, stack, cap, n);
	}
	return err;
}
