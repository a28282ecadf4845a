/* CPython interpreters by pid, and the Python half of a sample. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/binary.h"
#include "collector/proctable.h"
#include "collector/pythons.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "profile/agent_stats.h"
#include "runtimes/memsource.h"

struct python {
	struct cpython *c;     /* NULL: not (yet) an interpreter we can read */
	uint64_t next_try_ns;  /* when c is NULL */
};

struct pythons {
	struct strtab *names;
	bool lines;
	struct u64map *by_pid; /* pid -> struct python * */
	uint64_t opened, failed;
	struct cpython_stats gone; /* of readers closed */
};

struct pythons *pythons__new(struct strtab *names, bool lines)
{
	struct pythons *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->names = names;
	ps->lines = lines;
	ps->by_pid = u64map__new(16);
	if (!ps->by_pid) {
		free(ps);
		return NULL;
	}
	return ps;
}

static void close_python(struct pythons *ps, struct python *py)
{
	if (py->c) {
		struct cpython_stats st;

		cpython__stats(py->c, &st);
		ps->gone.reads += st.reads;
		ps->gone.failures += st.failures;
		cpython__delete(py->c);
	}
	free(py);
}

void pythons__delete(struct pythons *ps)
{
	size_t pos = 0;
	uint64_t pid, v;

	if (!ps)
		return;
	while (u64map__next(ps->by_pid, &pos, &pid, &v))
		close_python(ps, (struct python *)(uintptr_t)v);
	u64map__delete(ps->by_pid);
	free(ps);
}

void pythons__forget(struct pythons *ps, int pid)
{
	uint64_t v;

	if (!ps || !u64map__get(ps->by_pid, (uint64_t)pid, &v))
		return;
	u64map__del(ps->by_pid, (uint64_t)pid);
	close_python(ps, (struct python *)(uintptr_t)v);
}

bool pythons__is_eval(struct proc_map *m, uint64_t pc)
{
	struct binary *bin = m ? proc_map__binary(m) : NULL;
	const struct binary_cpython *py = bin ? binary__cpython(bin) : NULL;
	uint64_t v;

	if (!py)
		return false;
	/* a return address is inside the call, one past it may be the end */
	v = pc - proc_map__bias(m);
	return v > py->eval_start && v <= py->eval_end;
}

static bool is_threads_lib(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	return base && (strncmp(base, "libc.so.", 8) == 0 || strncmp(base, "libpthread.so.", 14) == 0 ||
			strncmp(base, "libc-2.", 7) == 0 || strncmp(base, "libpthread-2.", 13) == 0);
}

/* offsetof(struct pthread, tid) in p's glibc, from the descriptor its thread
 * debugger reads (_thread_db_pthread_tid: bits, count, offset); -1. */
static int32_t pthread_tid_offset(struct pythons *ps, struct proctable *pt, struct process *p,
				  struct memsource *mem)
{
	static const char *const name[] = { "_thread_db_pthread_tid" };
	size_t i, n = process__nmaps(p);

	for (i = 0; i < n; i++) {
		const struct proc_map *cm = process__map(p, i);
		uint64_t start, end, pgoff, at;
		uint32_t desc[3];
		struct proc_map *m;
		struct binary *bin;

		if (!proc_map__path(cm) || !is_threads_lib(strtab__str(ps->names, proc_map__path(cm))))
			continue;
		proc_map__range(cm, &start, &end, &pgoff);
		m = process__find_map(pt, p, start);
		bin = m ? proc_map__binary(m) : NULL;
		if (!bin || binary__find_symbols(bin, name, 1, &at) != 1)
			continue;
		if (memsource__read(mem, at + proc_map__bias(m), desc, sizeof(desc)) == 0 &&
		    desc[0] == 32 && desc[1] == 1 && desc[2] < 4096 && desc[2] % 4 == 0)
			return (int32_t)desc[2];
	}
	return -1;
}

/* Opens the reader of the interpreter whose eval loop m maps. */
static struct cpython *open_python(struct pythons *ps, struct proctable *pt, struct process *p,
				   struct proc_map *m)
{
	struct binary *bin = proc_map__binary(m);
	const struct binary_cpython *info = bin ? binary__cpython(bin) : NULL;
	uint64_t bias = proc_map__bias(m);
	struct cpython_symbols sym;
	struct memsource mem;
	struct cpython *c;

	if (!info)
		return NULL;
	memset(&sym, 0, sizeof(sym));
	sym.runtime = info->runtime ? info->runtime + bias : 0;
	sym.interp_head = info->interp_head ? info->interp_head + bias : 0;
	sym.tstate_current = info->tstate_current ? info->tstate_current + bias : 0;
	sym.code_type = info->code_type + bias;
	if (cpython_layout__version_from_name(binary__path(bin), &sym.major, &sym.minor) != 0)
		sym.major = sym.minor = 0;
	memsource__process(&mem, process__pid(p));
	sym.pthread_tid = pthread_tid_offset(ps, pt, p, &mem);
	if (cpython__open(&mem, &sym, ps->lines, ps->names, &c) != 0) {
		ps->failed++;
		return NULL;
	}
	ps->opened++;
	return c;
}

static struct python *entry(struct pythons *ps, struct process *p)
{
	uint64_t pid = (uint64_t)process__pid(p), v;
	struct python *py;

	if (u64map__get(ps->by_pid, pid, &v))
		return (struct python *)(uintptr_t)v;
	py = calloc(1, sizeof(*py));
	if (!py || u64map__put(ps->by_pid, pid, (uint64_t)(uintptr_t)py) != 0) {
		free(py);
		return NULL;
	}
	return py;
}

static struct cpython *reader(struct pythons *ps, struct proctable *pt, struct process *p,
			      struct proc_map *m, uint64_t now_ns)
{
	struct python *py = entry(ps, p);

	if (!py)
		return NULL;
	if (py->c || now_ns < py->next_try_ns)
		return py->c;
	py->c = open_python(ps, pt, p, m);
	if (!py->c)
		py->next_try_ns = now_ns + PYTHONS_RETRY_NS;
	return py->c;
}

/* The copied words of frame i's own stack: [its sp, its caller's sp). */
static void frame_words(const struct unwind_frame *frames, size_t n, size_t i,
			const struct unwind_stack *stack, struct cpython_native *ev)
{
	uint64_t lo = frames[i].sp, hi = i + 1 < n ? frames[i + 1].sp : lo + 512;

	ev->words = NULL;
	ev->nbytes = 0;
	if (lo < stack->base || hi <= lo || lo - stack->base >= stack->size)
		return;
	if (hi - lo > PYTHONS_FRAME_WORDS_MAX)
		hi = lo + PYTHONS_FRAME_WORDS_MAX;
	if (hi - stack->base > stack->size)
		hi = stack->base + stack->size;
	ev->words = stack->data + (lo - stack->base);
	ev->nbytes = (size_t)(hi - lo);
}

size_t pythons__sample(struct pythons *ps, struct proctable *pt, struct process *p, int tid,
		       const struct unwind_frame *frames, size_t n, bool rooted,
		       const struct unwind_regs *regs, const struct unwind_stack *stack,
		       uint64_t sample_ns, uint64_t now_ns, struct python_sample *out,
		       struct agent_stats *st)
{
	struct cpython_native ev[CPYTHON_MAX_FRAMES];
	uint64_t leaf_regs[UNWIND_NREGS], kept[CPYTHON_MAX_FRAMES][UNWIND_NKEPT];
	struct proc_map *interp = NULL;
	struct cpython *c;
	size_t i, k, nleaf = 0, used = 0;
	int err;

	out->neval = 0;
	/* the unwinder's module lookup found them (user_stack.c asks
	 * pythons__is_eval once per frame) and kept their registers */
	for (i = 0; i < n && out->neval < CPYTHON_MAX_FRAMES; i++)
		if (frames[i].keeps && frames[i].owner) {
			interp = frames[i].owner;
			out->eval_frame[out->neval++] = i;
		}
	if (!out->neval)
		return 0;
	c = reader(ps, pt, p, interp, now_ns);
	if (c)
		cpython__set_sample_stack(c, stack->base, stack->data, stack->size);
	err = c ? cpython__read_stack(c, tid, now_ns, &out->stack) : -ENOTSUP;
	if (c)
		cpython__set_sample_stack(c, 0, NULL, 0);
	if (err) {
		if (err == -ENOENT)
			st->python_no_thread++;
		else
			st->python_unreadable++;
		out->neval = 0;
		return 0;
	}
	for (k = 0; k < out->neval; k++) {
		i = out->eval_frame[k];
		frame_words(frames, n, i, stack, &ev[k]);
		if (i == 0) {
			/* the sampled frame: every register is its own */
			unsigned r;

			for (r = 0; r < UNWIND_NREGS; r++)
				if (regs->valid & (1u << r))
					leaf_regs[nleaf++] = regs->val[r];
			ev[k].regs = leaf_regs;
			ev[k].nregs = nleaf;
		} else {
			unsigned r;
			size_t m = 0;

			for (r = 0; r < UNWIND_NKEPT; r++)
				if (frames[i].kept & (1u << r))
					kept[k][m++] = frames[i].kept_regs[r];
			ev[k].regs = kept[k];
			ev[k].nregs = m;
		}
	}
	cpython__learn(c, ev, out->neval);
	cpython__place(c, tid, &out->stack, ev, out->neval, rooted, &out->placed);
	cpython__remember(c, tid, &out->placed, out->neval);
	st->python_stacks++;
	if (sample_ns && now_ns > sample_ns) {
		st->python_lag_ns += now_ns - sample_ns;
		if (now_ns - sample_ns > st->python_lag_max_ns)
			st->python_lag_max_ns = now_ns - sample_ns;
	}
	if (out->stack.last_known)
		st->python_last_known++;
	st->python_confirmed += out->placed.confirmed;
	st->python_corrected += out->placed.corrected;
	st->python_unanchored += out->placed.unanchored;
	for (k = 0; k < out->neval; k++)
		used += out->placed.count[k] != 0;
	return used;
}

int pythons__remap_names(struct pythons *ps, struct strtab_remap *r)
{
	size_t pos = 0;
	uint64_t pid, v;
	int err;

	if (r->commit)
		ps->names = r->to;
	while (u64map__next(ps->by_pid, &pos, &pid, &v)) {
		struct python *py = (struct python *)(uintptr_t)v;

		if (py->c && (err = cpython__remap_names(py->c, r)) != 0)
			return err;
	}
	return 0;
}

void pythons__stats(const struct pythons *ps, struct pythons_stats *out)
{
	size_t pos = 0;
	uint64_t pid, v;

	memset(out, 0, sizeof(*out));
	out->opened = ps->opened;
	out->failed = ps->failed;
	out->reads = ps->gone.reads;
	out->failures = ps->gone.failures;
	while (u64map__next(ps->by_pid, &pos, &pid, &v)) {
		struct python *py = (struct python *)(uintptr_t)v;
		struct cpython_stats st;

		if (!py->c)
			continue;
		out->pythons++;
		cpython__stats(py->c, &st);
		out->reads += st.reads;
		out->failures += st.failures;
	}
}
