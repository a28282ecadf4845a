/* collector/runtimes.c: the registry of runtime readers, driven end to end
 * with a reader of the test's own. This program is its runtime: it exports
 * fake_vm_state (linked with --export-dynamic), runs "JIT code" in an
 * anonymous executable mapping, and an "eval loop" (fake_eval) that runs
 * two language frames. A real sample of its own stack then goes through
 * the process table, the unwinder (which can step over the JIT frame only
 * as the reader describes it), the reader's stack read (spliced in place of
 * fake_eval) and the symbolizer (which names the JIT frame only through the
 * reader), the way the agent handles a sample of a live runtime. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "collector/binary.h"
#include "collector/perf_record.h"
#include "collector/proctable.h"
#include "collector/runtimes.h"
#include "collector/user_stack.h"
#include "common/proccreds.h"
#include "common/strtab.h"
#include "profile/agent_stats.h"
#include "runtimes/accountant.h"
#include "runtimes/elf_symbols.h"
#include "symbolize/symbolizer.h"
#include "unwind/regs.h"

#include "exec_child.h"
#include "stack_capture.h"

#define FAKE_MAGIC 0x66616b65766d3031ull /* "fakevm01" */

/* What the fake runtime keeps for a profiler, read from outside. */
struct fake_vm {
	uint64_t magic;
	uint64_t jit_start, jit_end; /* its code no file holds */
	char jit_name[32];           /* the one function there */
	char lang[2][32];            /* what its eval loop runs, outermost first */
};
struct fake_vm fake_vm_state = { FAKE_MAGIC, 0, 0, "jit_stub", { "lang_outer", "lang_inner" } };

int fake_leaf(int x);
int fake_eval(int x);
int run_through_jit(int x);

__attribute__((noinline, noclone)) int fake_leaf(int x)
{
	STACK_CAPTURE();
	return x + 1;
}

/* The runtime's eval loop: the reader keeps its frame's registers. */
__attribute__((noinline, noclone)) int fake_eval(int x)
{
	return fake_leaf(x + 1) * 3 + 1;
}

/* push %rbp; sub $16,%rsp; call *%rsi; add $16,%rsp; pop %rbp; ret: a
 * frame of 32 bytes (the return address on top, the caller's rbp below
 * it) that does not keep a frame pointer, so only its description unwinds
 * it. */
static const uint8_t stub_code[] = { 0x55, 0x48, 0x83, 0xec, 0x10, 0xff, 0xd6,
				     0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3 };
#define STUB_FRAME_BYTES 32
#define STUB_COMPLETE 5 /* bytes of prologue */

static int (*stub)(int x, int (*fn)(int));

__attribute__((noinline, noclone)) int run_through_jit(int x)
{
	return stub(x, fake_eval) * 5 + 2;
}

/* ---------- the reader ---------- */

struct fake_binary {
	uint64_t state, eval_start, eval_end; /* ELF vaddrs */
};

struct fake_instance {
	struct memsource mem;
	struct strtab *names;
	uint64_t state;
	struct fake_vm vm; /* as read at open */
};

static struct {
	unsigned opens, open_failures, closes, describe_calls, name_calls, stack_calls;
	bool fail_open;
} fake;

static int find_eval(void *arg, const GElf_Sym *sym, const char *name)
{
	struct fake_binary *b = arg;

	if (GELF_ST_TYPE(sym->st_info) == STT_FUNC && strcmp(name, "fake_eval") == 0) {
		b->eval_start = sym->st_value;
		b->eval_end = sym->st_value + sym->st_size;
		return 1;
	}
	return 0;
}

static int fake_recognise(const struct runtime_file *f, void **data)
{
	static const char *const state[] = { "fake_vm_state" };
	struct fake_binary *b = calloc(1, sizeof(*b));

	cr_assert_not_null(b);
	if (elf_symbols__objects(f->elf, state, 1, &b->state) != 1) {
		free(b);
		return 0;
	}
	elf_symbols__each(f->elf, SHT_SYMTAB, find_eval, b);
	*data = b;
	return 1;
}

static void fake_describe_file(const void *data, uint64_t vaddr, struct unwind_module *out)
{
	const struct fake_binary *b = data;

	if (vaddr > b->eval_start && vaddr <= b->eval_end)
		out->keep_regs = true;
}

static bool fake_maybe_host(const char *basename)
{
	return strstr(basename, "test_runtimes") != NULL;
}

static int fake_open(const struct runtime_process *p, void **inst)
{
	const struct fake_binary *b = p->data;
	struct fake_instance *in;

	fake.opens++;
	if (fake.fail_open) {
		fake.open_failures++;
		return -EPROTO;
	}
	in = calloc(1, sizeof(*in));
	cr_assert_not_null(in);
	in->mem = p->mem;
	in->names = p->names;
	in->state = b->state + p->bias;
	if (memsource__read(&in->mem, in->state, &in->vm, sizeof(in->vm)) != 0 ||
	    in->vm.magic != FAKE_MAGIC) {
		free(in);
		return -EPROTO;
	}
	*inst = in;
	return 0;
}

static void fake_close(void *inst)
{
	fake.closes++;
	free(inst);
}

static int fake_describe_code(void *inst, uint64_t pc, const char *path, uint64_t now_ns,
			      struct unwind_module *out)
{
	struct fake_instance *in = inst;

	(void)path;
	(void)now_ns;
	fake.describe_calls++;
	if (pc < in->vm.jit_start || pc >= in->vm.jit_end)
		return -ENOENT;
	out->code = UNWIND_CODE_SIZED;
	out->frame_bytes = STUB_FRAME_BYTES;
	out->frame_complete = in->vm.jit_start + STUB_COMPLETE;
	return 0;
}

static int fake_name_frame(void *inst, const struct runtime_frame *f, uint32_t *ids, size_t max,
			   size_t *n)
{
	struct fake_instance *in = inst;
	char name[32];

	fake.name_calls++;
	if (max < 1 || f->pc < in->vm.jit_start || f->pc >= in->vm.jit_end ||
	    memsource__str(&in->mem, in->state + offsetof(struct fake_vm, jit_name), name,
			   sizeof(name)) < 0 ||
	    ledger__intern_frame(in->mem.ledger, in->names, name, "_[j]", &ids[0]) != 0)
		return -ENOENT;
	*n = 1;
	return 0;
}

/* The eval loop's frames: the language frames, read now from the state. */
static int fake_read_stack(void *inst, const struct runtime_sample *s, struct runtime_stack *out)
{
	struct fake_instance *in = inst;
	struct fake_vm vm;
	size_t i, k;

	fake.stack_calls++;
	if (memsource__read(&in->mem, in->state, &vm, sizeof(vm)) != 0)
		return -EFAULT;
	for (i = 0; i < s->nframes; i++) {
		if (!s->frames[i].keeps || s->frames[i].runtime != s->tag)
			continue;
		cr_assert(s->frames[i].kept, "the eval frame's registers were kept");
		out->at[out->nsplices].frame = (uint32_t)i;
		out->at[out->nsplices].first = (uint16_t)out->nids;
		out->at[out->nsplices].count = 2;
		out->nsplices++;
		for (k = 0; k < 2; k++)
			cr_assert_eq(ledger__intern_frame(in->mem.ledger, in->names, vm.lang[k], "_[fake]",
							  &out->ids[out->nids++]), 0);
		out->confirmed++;
	}
	return 0;
}

/* Every process: the test's own comm is not its name under valgrind
 * ("memcheck-amd64-"). */
static bool fake_labels(const char *comm)
{
	(void)comm;
	return true;
}

/* argv[0]'s last component, with a mark the test can see. */
static int fake_label(const char *cmdline, size_t len, char *out, size_t size)
{
	const char *base = memrchr(cmdline, '/', strnlen(cmdline, len));

	base = base ? base + 1 : cmdline;
	return snprintf(out, size, "fake:%s", base);
}

static void fake_counters(const void *inst, struct runtime_counters *out)
{
	out->reads = ((const struct fake_instance *)inst)->mem.reads;
	out->failures = 0;
}

static const struct runtime_reader fake_reader = {
	.name = "fake",
	.recognise = fake_recognise,
	.free_data = free,
	.maybe_host = fake_maybe_host,
	.describe_file = fake_describe_file,
	.open = fake_open,
	.close = fake_close,
	.describe_code = fake_describe_code,
	.read_stack = fake_read_stack,
	.name_frame = fake_name_frame,
	.labels = fake_labels,
	.label = fake_label,
	.counters = fake_counters,
};

/* A reader that recognises nothing, listed first: binaries go on to the next. */
static int none_recognise(const struct runtime_file *f, void **data)
{
	(void)f;
	(void)data;
	return 0;
}

static const struct runtime_reader none_reader = {
	.name = "none",
	.recognise = none_recognise,
};

/* ---------- the agent's side ---------- */

static struct {
	struct strtab *names;
	struct binaries *bins;
	struct proctable *pt;
	struct symbolizer *sym;
	struct accountant *acct;
	struct runtimes *rs;
	struct user_stack *us;
	struct agent_stats st;
	void *jit;
} a;

static void setup_agent(bool keep_native)
{
	static const struct runtime_reader *const table[] = { &none_reader, &fake_reader };
	struct runtimes_opts o = { false, keep_native };

	memset(&fake, 0, sizeof(fake));
	memset(&a.st, 0, sizeof(a.st));
	a.names = strtab__new();
	a.bins = binaries__new(a.names);
	a.pt = proctable__new(a.names, a.bins);
	cr_assert_eq(symbolizer__new(a.names, NULL, 0, &a.sym), 0);
	a.acct = accountant__new(NULL, a.names);
	a.rs = runtimes__new_table(table, 2, a.names, a.pt, a.acct, &a.st, &o);
	cr_assert_not_null(a.rs);
	runtimes__start_window(a.rs, &a.st);
	cr_assert_eq(user_stack__new(a.pt, a.sym, a.rs, 1, unwind__perf_regs_mask(), 128, false, &a.us), 0);

	a.jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(a.jit, MAP_FAILED);
	memcpy(a.jit, stub_code, sizeof(stub_code));
	stub = (int (*)(int, int (*)(int)))a.jit;
	fake_vm_state.jit_start = (uintptr_t)a.jit;
	fake_vm_state.jit_end = (uintptr_t)a.jit + sizeof(stub_code);
}

static void teardown_agent(void)
{
	user_stack__delete(a.us);
	proctable__delete(a.pt);
	runtimes__delete(a.rs);
	accountant__delete(a.acct);
	symbolizer__delete(a.sym);
	binaries__delete(a.bins);
	strtab__delete(a.names);
	munmap(a.jit, 4096);
}

/* The sample's user stack, named, root first, joined with ';'. */
static const char *sampled_stack(enum unwind_stop *why)
{
	static char out[8192];
	struct perf_sample smp;
	struct callchain_parts cc;
	struct process *p;
	uint64_t vals[24];
	uint32_t ids[512];
	size_t nf, n = 0, i, off = 0;

	cr_assert_eq(run_through_jit(1), ((1 + 1 + 1) * 3 + 1) * 5 + 2);
	capture_as_perf_sample(&smp, vals);
	memset(&cc, 0, sizeof(cc));
	p = proctable__get(a.pt, getpid());
	cr_assert_not_null(p);
	nf = user_stack__unwind(a.us, p, &smp, &cc, why);
	cr_assert_gt(nf, 0);
	cr_assert_eq(user_stack__append_names(a.us, p, nf, 1, ids, 512, &n), 0);
	out[0] = '\0';
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s", i ? ";" : "",
					strtab__str(a.names, ids[i]));
	return out;
}

/* Fails the test unless names[] are frames of stack (';'-separated), in
 * that order. */
static void assert_in_order(const char *stack, const char *const *names, size_t n)
{
	const char *at = stack;
	size_t i = 0;

	while (i < n && *at) {
		const char *end = strchr(at, ';');
		size_t len = end ? (size_t)(end - at) : strlen(at);

		if (len == strlen(names[i]) && memcmp(at, names[i], len) == 0)
			i++;
		at += len + (end != NULL);
	}
	cr_assert_eq(i, n, "%s missing or out of order in %s", i < n ? names[i] : "", stack);
}

Test(runtimes, a_reader_unwinds_names_and_splices_a_real_sample)
{
	static const char *const chain[] = { "run_through_jit", "jit_stub_[j]", "lang_outer_[fake]",
					     "lang_inner_[fake]", "fake_leaf" };
	struct agent_runtime_stats *rt;
	enum unwind_stop why;
	const char *stack;

	setup_agent(false);
	stack = sampled_stack(&why);
	cr_assert_eq(why, UNWIND_COMPLETE, "%s: stopped %s", stack, unwind__stop_name(why));
	assert_in_order(stack, chain, 5);
	cr_assert_null(strstr(stack, "fake_eval"), "the eval loop is its language frames: %s", stack);
	cr_assert_null(strstr(stack, "[anon]"), "%s", stack);
	cr_assert_eq(fake.opens, 1);
	cr_assert_gt(fake.describe_calls, 0);
	cr_assert_eq(fake.stack_calls, 1);
	cr_assert_gt(fake.name_calls, 0);
	/* a sample of another process with no user stack comes next: the
	 * language frames were this sample's, and stay with it */
	{
		uint32_t ids[8];
		size_t n = 0;

		cr_assert_eq(user_stack__append_names(a.us, proctable__get(a.pt, getpid()), 0, 1, ids, 8, &n), 0);
		cr_assert_eq(n, 0, "%zu frames named for a sample with no user stack", n);
	}

	/* counted under the reader's name, reads charged to the ledger */
	runtimes__finish_window(a.rs, &a.st);
	rt = agent_stats__runtime(&a.st, "fake");
	cr_assert_not_null(rt);
	cr_assert_eq(rt - a.st.runtimes, 1, "blocks follow the table's order");
	cr_assert_eq(rt->readers, 1);
	cr_assert_eq(rt->opened, 1);
	cr_assert_eq(rt->stacks, 1);
	cr_assert_eq(rt->confirmed, 1);
	cr_assert_geq(rt->reads, 2);
	cr_assert_eq(agent_stats__runtime(&a.st, "none")->readers, 0);

	/* the image goes: its instance is closed, counters stay */
	runtimes__forget(a.rs, getpid());
	cr_assert_eq(fake.closes, 1);
	runtimes__finish_window(a.rs, &a.st);
	cr_assert_eq(rt->readers, 0);
	cr_assert_geq(rt->reads, 2);
	teardown_agent();
}

Test(runtimes, keep_native_names_the_eval_loop_beside_its_frames)
{
	static const char *const chain[] = { "jit_stub_[j]", "fake_eval", "lang_outer_[fake]",
					     "lang_inner_[fake]", "fake_leaf" };
	enum unwind_stop why;

	setup_agent(true);
	assert_in_order(sampled_stack(&why), chain, 5);
	teardown_agent();
}

/* Without a reader for it, the same sample cannot be unwound through the
 * JIT frame, nor named there: what the registry and the symbolizer take
 * from the reader is what makes the stack whole. (Built with frame
 * pointers, as the sanitizer builds are, the frame-pointer step that
 * stands in gets past the JIT frame, but skips its caller: the stub keeps
 * no frame pointer of its own.) */
Test(runtimes, without_the_reader_the_sample_is_cut)
{
	enum unwind_stop why;
	const char *stack;

	setup_agent(false);
	fake.fail_open = true;
	stack = sampled_stack(&why);
	cr_assert(why != UNWIND_COMPLETE || !strstr(stack, "run_through_jit;"), "%s", stack);
	cr_assert_null(strstr(stack, "jit_stub"), "%s", stack);
	cr_assert_null(strstr(stack, "_[fake]"), "%s", stack);
	cr_assert_not_null(strstr(stack, "fake_eval;fake_leaf"), "%s", stack);
	teardown_agent();
}

/* An open that fails is retried after a second, then after twice as long
 * each time. */
Test(runtimes, failed_opens_back_off)
{
	static const uint64_t at[] = { 0, 500, 1000, 2000, 2999, 3000, 5000, 7000 };
	static const unsigned opens_after[] = { 1, 1, 2, 2, 2, 3, 3, 4 };
	struct unwind_module m;
	struct process *p;
	size_t i;

	setup_agent(false);
	fake.fail_open = true;
	p = proctable__get(a.pt, getpid());
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		memset(&m, 0, sizeof(m));
		cr_assert_eq(runtimes__describe_code(a.rs, p, fake_vm_state.jit_start, 0,
						     at[i] * 1000000ull, &m), -ENOENT);
		cr_assert_eq(fake.opens, opens_after[i], "at %llu ms: %u opens",
			     (unsigned long long)at[i], fake.opens);
	}
	runtimes__finish_window(a.rs, &a.st);
	cr_assert_eq(agent_stats__runtime(&a.st, "fake")->failed, 4);
	teardown_agent();
}

Test(runtimes, a_process_is_labelled_by_its_reader)
{
	const char *label;
	uint32_t id;

	setup_agent(false);
	id = runtimes__label(a.rs, proctable__get(a.pt, getpid()));
	cr_assert_neq(id, 0);
	label = strtab__str(a.names, id);
	/* the command line's first argument, as the reader parsed it */
	cr_assert(strncmp(label, "fake:", 5) == 0 && strlen(label) > 5, "%s", label);
	teardown_agent();
}

/* A binary is offered once, and a binary no reader claims costs nothing
 * more: the Go and interpreter checks are not made per pc. */
Test(runtimes, binaries_are_recognised_once)
{
	struct unwind_module m;
	struct process *p;
	struct proc_map *pm;
	uint8_t tag;
	void *data;

	setup_agent(false);
	p = proctable__get(a.pt, getpid());
	pm = process__find_map(a.pt, p, (uintptr_t)fake_eval);
	cr_assert_not_null(pm);
	cr_assert_not(binary__runtime(proc_map__binary(pm), &tag, &data), "not offered yet");
	memset(&m, 0, sizeof(m));
	runtimes__describe_file(a.rs, proc_map__binary(pm), (uintptr_t)fake_eval + 1 - proc_map__bias(pm), &m);
	cr_assert(binary__runtime(proc_map__binary(pm), &tag, &data));
	cr_assert_eq(tag, 2, "the second row recognised it");
	cr_assert_eq(m.runtime, 2);
	cr_assert(m.keep_regs);
	memset(&m, 0, sizeof(m));
	runtimes__describe_file(a.rs, proc_map__binary(pm), (uintptr_t)fake_leaf + 1 - proc_map__bias(pm), &m);
	cr_assert_eq(m.runtime, 2);
	cr_assert_not(m.keep_regs);
	teardown_agent();
}

/* Starts a child the agent knows and opens the fake reader on it, as a
 * sample of its code does; returns its pid, its process and its tell fd. */
static pid_t read_child(struct process **p, int *tell)
{
	struct unwind_module m;
	pid_t child;

	setup_agent(false);
	child = exec_child__start(0, tell);
	*p = proctable__get(a.pt, child);
	cr_assert_not_null(*p);
	memset(&m, 0, sizeof(m));
	cr_assert_eq(runtimes__describe_code(a.rs, *p, fake_vm_state.jit_start, 0, 1, &m), 0);
	cr_assert_eq(fake.opens, 1);
	return child;
}

/* A process that execs after its samples were taken but before they were
 * read: what its instance read came from the new image, and is thrown
 * away; nothing reads it with the old image's addresses again, not even
 * once the process table is told of the exec while it still holds the old
 * image's maps. */
Test(runtimes, an_exec_between_sample_and_read_is_caught)
{
	struct unwind_module m;
	struct process *p;
	int tell;
	pid_t child = read_child(&p, &tell);
	cr_assert(runtimes__same_image(a.rs, p), "the child runs the image the reader read");
	cr_assert(runtimes__same_image(a.rs, p), "nothing read since: nothing to check");

	exec_child__exec(child, tell);
	memset(&m, 0, sizeof(m));
	(void)runtimes__describe_code(a.rs, p, fake_vm_state.jit_start, 0, 2, &m);
	cr_assert_not(runtimes__same_image(a.rs, p), "the read was of the new image");
	cr_assert_eq(fake.closes, 1, "its instance is closed");
	cr_assert_eq(runtimes__describe_code(a.rs, p, fake_vm_state.jit_start, 0, 3000000000ull, &m), -ENOENT);
	cr_assert_eq(fake.opens, 1, "and not opened again on the image's old maps");
	cr_assert_eq(agent_stats__runtime(&a.st, "fake")->image_changed, 1);

	/* told of the exec, the table still has the old maps until it reads
	 * the new ones: the pin refuses them */
	runtimes__forget(a.rs, child);
	p = proctable__get(a.pt, child);
	(void)runtimes__describe_code(a.rs, p, fake_vm_state.jit_start, 0, 4000000000ull, &m);
	cr_assert_eq(fake.opens, 1, "the new image is not read at the old addresses");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(tell);
	teardown_agent();
}

/* Readers that read nothing for a minute are closed, and give their
 * user's place back. */
Test(runtimes, idle_readers_are_closed)
{
	struct unwind_module m;
	struct process *p;

	setup_agent(false);
	p = proctable__get(a.pt, getpid());
	memset(&m, 0, sizeof(m));
	cr_assert_eq(runtimes__describe_code(a.rs, p, fake_vm_state.jit_start, 0, 1, &m), 0);
	runtimes__trim(a.rs, 1 + RUNTIMES_IDLE_NS - 1);
	cr_assert_eq(fake.closes, 0, "used a minute ago less a nanosecond");
	cr_assert_eq(runtimes__describe_code(a.rs, p, fake_vm_state.jit_start, 0, RUNTIMES_IDLE_NS, &m), 0);
	runtimes__trim(a.rs, 2 * RUNTIMES_IDLE_NS);
	cr_assert_eq(fake.closes, 1);
	runtimes__finish_window(a.rs, &a.st);
	cr_assert_eq(agent_stats__runtime(&a.st, "fake")->idle_closed, 1);
	cr_assert_eq(agent_stats__runtime(&a.st, "fake")->readers, 0);
	/* and opens again when the process needs it */
	cr_assert_eq(runtimes__describe_code(a.rs, p, fake_vm_state.jit_start, 0, 3 * RUNTIMES_IDLE_NS, &m), 0);
	cr_assert_eq(fake.opens, 2);
	teardown_agent();
}

/* A process that exits with its exit record lost (a full ring): no sample
 * shows it gone and the process table never says so. The next trim finds
 * its image gone through the pin and closes its readers and the pin's fd
 * on /proc/PID/mem, long before they would be idle. */
Test(runtimes, readers_of_an_image_gone_unsaid_are_closed)
{
	struct unwind_module m;
	struct process *p;
	int tell;
	pid_t child = read_child(&p, &tell);
	runtimes__trim(a.rs, 2);
	cr_assert_eq(fake.closes, 0, "the child still runs its image");

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(tell);
	runtimes__trim(a.rs, 3);
	cr_assert_eq(fake.closes, 1, "its reader is closed at the first trim after its exit");
	runtimes__finish_window(a.rs, &a.st);
	cr_assert_eq(agent_stats__runtime(&a.st, "fake")->readers, 0);
	cr_assert_eq(runtimes__describe_code(a.rs, p, fake_vm_state.jit_start, 0, 4, &m), -ENOENT);
	cr_assert_eq(fake.opens, 1, "and nothing opens on the gone image");
	teardown_agent();
}

/* A user's readers open at once are bounded: past the bound an open is
 * refused and retried later, as a failed one. */
Test(runtimes, a_users_readers_are_bounded)
{
	struct accountant_limits lim = { 1000, 1000, 100, 1u << 20, 0, 0, 2 };
	static const struct runtime_reader *const table[] = { &none_reader, &fake_reader };
	struct runtimes_opts o = { false, false };
	struct runtimes *rs;
	struct accountant *acct;
	struct unwind_module m;
	pid_t child[3];
	int tell[3], i;

	if (geteuid() != 0)
		cr_skip_test("needs root to run children as another user");
	setup_agent(false);
	acct = accountant__new(&lim, a.names);
	rs = runtimes__new_table(table, 2, a.names, a.pt, acct, &a.st, &o);
	for (i = 0; i < 3; i++) {
		struct process *p;
		uid_t uid;
		gid_t gid;

		/* as another user: the bound is on users but root */
		child[i] = exec_child__start(65534, &tell[i]);
		p = proctable__get(a.pt, child[i]);
		cr_assert_not_null(p);
		cr_assert_eq(proccreds__owner_pid(child[i], &uid, &gid), 0);
		cr_assert_eq(uid, 65534);
		memset(&m, 0, sizeof(m));
		cr_assert_eq(runtimes__describe_code(rs, p, fake_vm_state.jit_start, 0, 1, &m), i < 2 ? 0 : -ENOENT,
			     "reader %d", i);
	}
	cr_assert_eq(fake.opens, 2);
	runtimes__finish_window(rs, &a.st);
	cr_assert_eq(agent_stats__runtime(&a.st, "fake")->readers_refused, 1);
	runtimes__delete(rs);
	accountant__delete(acct);
	for (i = 0; i < 3; i++) {
		kill(child[i], SIGKILL);
		waitpid(child[i], NULL, 0);
		close(tell[i]);
	}
	teardown_agent();
}
