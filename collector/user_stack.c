/* The user half of a sample's stack: unwinding and naming. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/binary.h"
#include "collector/jvms.h"
#include "collector/proctable.h"
#include "collector/pythons.h"
#include "collector/perf_record.h"
#include "collector/user_stack.h"
#include "common/clock.h"
#include "runtimes/hotspot.h"
#include "symbolize/symbolizer.h"
#include "unwind/cfi.h"
#include "unwind/regs.h"

/* A pc in no known mapping triggers a /proc/PID/maps re-read, at most this
 * often per process. */
#define MAPS_REREAD_INTERVAL_NS 1000000000ull

struct user_stack {
	struct proctable *procs;
	struct symbolizer *sym;
	int dwarf;
	uint64_t regs_mask;
	size_t max_frames;
	struct unwind_frame *frames; /* max_frames, innermost first */
	struct process *cur;         /* the sample's, for find_module */
	struct jvms *jvms;           /* borrowed; NULL: no runtime readers */
	struct hotspot *jvm;         /* the sample's process's JVM, if it is one */
	int jvm_looked_up;           /* jvm is known for this sample */
	uint64_t now_ns;             /* the sample's unwinding time */
	/* CPython: NULL pythons, no interpreter readers */
	struct pythons *pythons;
	struct agent_stats *stats;   /* where Python samples are counted */
	bool keep_eval;              /* name eval-loop frames beside Python's */
	bool mono_times;             /* sample times are CLOCK_MONOTONIC */
	struct python_sample *py;    /* the sample's Python frames */
	bool py_seen;                /* the sample ran an eval loop */
	struct unwind_regs regs;     /* the sample's, for the eval frames */
	struct unwind_stack stack;
};

int user_stack__new(struct proctable *procs, struct symbolizer *sym, struct jvms *jvms, int dwarf,
		    uint64_t regs_mask, size_t max_frames, struct user_stack **out)
{
	struct user_stack *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->procs = procs;
	u->jvms = jvms;
	u->sym = sym;
	u->dwarf = dwarf;
	u->regs_mask = regs_mask;
	u->max_frames = max_frames;
	u->frames = calloc(max_frames ? max_frames : 1, sizeof(*u->frames));
	if (!u->frames) {
		free(u);
		return -ENOMEM;
	}
	*out = u;
	return 0;
}

int user_stack__set_pythons(struct user_stack *u, struct pythons *ps, bool keep_eval,
			    bool mono_times, struct agent_stats *st)
{
	if (!u->py) {
		u->py = calloc(1, sizeof(*u->py));
		if (!u->py)
			return -ENOMEM;
	}
	u->pythons = ps;
	u->keep_eval = keep_eval;
	u->mono_times = mono_times;
	u->stats = st;
	return 0;
}

void user_stack__delete(struct user_stack *u)
{
	if (!u)
		return;
	free(u->py);
	free(u->frames);
	free(u);
}

/* The process's JVM, looked up once per sample and only when a pc is in
 * code no binary holds. */
static struct hotspot *sample_jvm(struct user_stack *u)
{
	if (!u->jvm_looked_up) {
		u->jvm_looked_up = 1;
		u->now_ns = clock__mono_ns();
		u->jvm = u->jvms ? jvms__get(u->jvms, u->procs, u->cur, u->now_ns) : NULL;
	}
	return u->jvm;
}

/* How to step over a JVM's code at pc; false when the JVM does not know it. */
static bool describe_jvm_code(struct user_stack *u, struct hotspot *h, uint64_t pc,
			      struct unwind_module *out)
{
	struct hotspot_code c;
	int method_slot, sender_slot;

	switch (hotspot__code_at(h, pc, u->now_ns, &c)) {
	case HOTSPOT_COMPILED:
	case HOTSPOT_STUB:
		out->code = UNWIND_CODE_SIZED;
		out->frame_bytes = c.frame_bytes;
		out->frame_complete = c.code_begin + c.frame_complete;
		return true;
	case HOTSPOT_INTERPRETER:
		out->code = UNWIND_CODE_INTERPRETED;
		hotspot__interp_slots(h, &method_slot, &sender_slot);
		out->slot_method = method_slot;
		out->slot_sender_sp = sender_slot;
		return true;
	case HOTSPOT_CALL_STUB:
		out->code = UNWIND_CODE_FRAME_POINTER;
		return true;
	case HOTSPOT_FRAMELESS:
		out->code = UNWIND_CODE_FRAMELESS;
		return true;
	default:
		return false;
	}
}

/* The module holding pc for the unwinder. Executable memory that is no
 * binary (JIT code caches, anonymous or memfd mappings) is a module without
 * CFI: a JVM's code is stepped over as its reader describes it, other JIT
 * code by frame pointer, as JITs keep them. */
static int find_module(void *ctx, uint64_t pc, struct unwind_module *out)
{
	struct user_stack *u = ctx;
	struct proc_map *m = process__find_map(u->procs, u->cur, pc);
	struct binary *bin = m ? proc_map__binary(m) : NULL;
	struct hotspot *h;

	if (!m)
		return -ENOENT;
	out->owner = m;
	if (!bin) {
		out->cfi = NULL;
		out->bias = 0;
		out->entry = 0;
		out->roots = NULL;
		out->nroots = 0;
		if (!proc_map__path(m) && (h = sample_jvm(u)) != NULL)
			(void)describe_jvm_code(u, h, pc, out);
		return 0;
	}
	out->cfi = binary__cfi(bin);
	out->bias = proc_map__bias(m);
	if (u->pythons && pythons__is_eval(m, pc)) {
		out->keep_regs = true;
		u->py_seen = true;
	}
	out->entry = binary__entry(bin);
	out->nroots = binary__roots(bin, &out->roots);
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

/* Frame-pointer mode: the kernel walked the user stack by frame pointers;
 * user[0] is the sampled ip, the others are return addresses (looked up at
 * pc - 1: the call may be a function's last instruction). Through code built
 * without frame pointers the walk follows whatever %rbp holds, so a return
 * address in no executable mapping ends the stack there (counted as bad_pc)
 * instead of adding [unknown] roots. An ip in no mapping is UNWIND_NO_MAP:
 * the caller re-reads /proc/PID/maps, as in DWARF mode. */
static size_t from_callchain(struct user_stack *u, const struct callchain_parts *cc,
			     enum unwind_stop *why)
{
	size_t i, n = 0;

	*why = UNWIND_COMPLETE;
	for (i = 0; i < cc->user_nr; i++) {
		struct unwind_frame *f;
		uint64_t pc = cc->user[i];
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
		f = &u->frames[n++];
		f->pc = pc;
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
	u->jvm = NULL;
	u->jvm_looked_up = 0;
	u->py_seen = false;
	if (u->py)
		u->py->neval = 0;
	*why = UNWIND_COMPLETE;
	n = unwind_once(u, smp, cc, why);
	/* the ip in no mapping we know: the MMAP may not have been read yet, or
	 * the process predates us: look at /proc once */
	missed = *why == UNWIND_NO_MAP && (!u->dwarf || (n > 0 && !u->frames[0].owner));
	if (missed && proctable__reread_maps(u->procs, p, clock__mono_ns(), MAPS_REREAD_INTERVAL_NS))
		n = unwind_once(u, smp, cc, why);
	/* the Python stack is read now, before naming: the nearer to the
	 * sample, the less there is to reconcile */
	if (u->py_seen && u->dwarf && n > 0)
		(void)pythons__sample(u->pythons, u->procs, p, (int)smp->tid, u->frames, n,
				      *why == UNWIND_COMPLETE, &u->regs, &u->stack,
				      u->mono_times ? smp->time : 0, clock__mono_ns(), u->py, u->stats);
	return n;
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
	if (f->code != UNWIND_CODE_NATIVE && u->jvm) {
		code->jvm = u->jvm;
		code->exact = f->exact;
		code->java_method = f->code == UNWIND_CODE_INTERPRETED ? f->method : 0;
		code->jvm_now_ns = u->now_ns;
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

/* Appends the Python frames native eval call k ran, outermost first. */
static int append_python(struct user_stack *u, size_t k, uint32_t *stack, size_t cap, size_t *n)
{
	const struct cpython_placed *pl = &u->py->placed;
	size_t j = pl->count[k];

	while (j-- > 0) {
		if (*n >= cap)
			return -ENOSPC;
		stack[(*n)++] = pl->frames[pl->first[k] + j].name;
	}
	return 0;
}

int user_stack__append_names(struct user_stack *u, struct process *p, size_t nframes,
			     uint64_t now_ns, uint32_t *stack, size_t cap, size_t *n)
{
	struct symbolize_process proc;
	size_t i, k = u->py ? u->py->neval : 0;

	proc.pid = process__pid(p);
	proc.uid = process__uid(p);
	proc.jitdump = process__jitdump(p);
	for (i = nframes; i-- > 0;) {
		const struct unwind_frame *f = &u->frames[i];
		struct symbolize_code code;
		uint32_t ids[SYMBOLIZER_MAX_FRAMES_PER_PC];
		size_t m = 0;
		bool python = false;

		/* a native eval call is the Python frames it ran (and itself too
		 * when asked) */
		if (k > 0 && u->py->eval_frame[k - 1] == i) {
			k--;
			python = u->py->placed.count[k] > 0;
		}
		if (!python || u->keep_eval) {
			describe_code(u, f, &code);
			if (symbolizer__user(u->sym, &proc, f->pc, &code, now_ns, ids,
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
		if (python && append_python(u, k, stack, cap, n) < 0)
			return -ENOSPC;
	}
	return 0;
}
