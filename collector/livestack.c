/* A sampled thread's live stack beyond the copy: budgeted process_vm_readv. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/livestack.h"
#include "collector/runtimes.h"
#include "common/clock.h"
#include "profile/agent_stats.h"
#include "runtimes/accountant.h"
#include "runtimes/procmem.h"
#include "unwind/stackmem.h"
#include "unwind/unwind.h"

struct livestack {
	struct runtimes *rs;
	struct stackmem_far far;
	/* the sample's */
	struct process *p;
	int tid;
	struct ledger *ledger; /* p's, looked up at the first read */
	uint64_t reads, bytes;
};

int livestack__new(struct runtimes *rs, struct livestack **out)
{
	struct livestack *ls = calloc(1, sizeof(*ls));

	if (!ls)
		return -ENOMEM;
	/* pages a shallow stack never reads are never touched */
	ls->far.buf = malloc(LIVESTACK_MAX_BYTES);
	if (!ls->far.buf) {
		free(ls);
		return -ENOMEM;
	}
	ls->far.cap = LIVESTACK_MAX_BYTES;
	ls->rs = rs;
	*out = ls;
	return 0;
}

void livestack__delete(struct livestack *ls)
{
	if (!ls)
		return;
	free(ls->far.buf);
	free(ls);
}

static ssize_t read_live(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct livestack *ls = ctx;
	uint64_t t0;
	ssize_t got;

	if (ls->rs && !ls->ledger && !(ls->ledger = runtimes__stack_ledger(ls->rs, ls->p)))
		return -ENOMEM;
	t0 = clock__mono_ns();
	if (!ledger__may_read(ls->ledger, t0))
		return -EDQUOT;
	got = procmem__read_some(ls->tid, addr, buf, len);
	ledger__charge_copy(ls->ledger, got > 0 ? (size_t)got : 0);
	if (ls->rs)
		runtimes__charge_stack_cpu(ls->rs, ls->ledger, clock__mono_ns() - t0);
	ls->reads++;
	if (got > 0)
		ls->bytes += (uint64_t)got;
	return got;
}

void livestack__attach(struct livestack *ls, struct process *p, int tid, struct unwind_stack *stack)
{
	ls->far.read = read_live;
	ls->far.ctx = ls;
	ls->p = p;
	ls->tid = tid;
	ls->ledger = NULL;
	ls->reads = ls->bytes = 0;
	stack->far = &ls->far;
}

void livestack__count(const struct livestack *ls, const struct unwind_stack *stack, bool walk_joined,
		      struct agent_stats *st)
{
	const struct stackmem_far *f = stack->far;

	st->deep_reads += ls->reads;
	st->deep_bytes += ls->bytes;
	if (f != &ls->far)
		return;
	if (f->used)
		st->deep_stacks++;
	/* proven by the walk, or gone on from it where the live stack
	 * had moved: whole either way */
	if (walk_joined || (f->walk_proved && !f->walk_cut)) {
		st->deep_walk_proved++;
		return;
	}
	if (f->walk_cut) {
		st->deep_stale++;
		return;
	}
	switch (f->err) {
	case 0:
		break;
	case -ESTALE:
		st->deep_stale++;
		break;
	case -EDQUOT:
		st->deep_refused++;
		break;
	default:
		st->deep_failed++;
		break;
	}
}
