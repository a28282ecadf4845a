/* The table of runtime readers, and their instances by process.
 * Long file: the registry is one concept (readers' instances, their
 * ledgers, what they splice, labels, counters) every reader reaches
 * through runtime.h, and its table grows by a row per runtime. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/binary.h"
#include "collector/image_pin.h"
#include "collector/proctable.h"
#include "collector/runtimes.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/proccreds.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "profile/agent_stats.h"
#include "runtimes/accountant.h"
#include "runtimes/elf_symbols.h"
#include "runtimes/readers.h"
#include "runtimes/replay.h"

/* The readers, in the order binaries are offered to them. */
static const struct runtime_reader *const table[] = {
	&runtime_hotspot,
	&runtime_cpython,
	&runtime_go,
	&runtime_v8,
	&runtime_ruby,
	&runtime_php,
	&runtime_perl,
};

/* One reader's instance on one process. */
struct slot {
	void *inst;            /* NULL: not open */
	struct ledger *ledger; /* what it reads is charged to */
	uid_t ledger_uid;      /* the user the ledger charges */
	uint64_t next_try_ns;  /* after a failed open */
	uint32_t failures;     /* opens failed in a row */
	uint64_t used_ns;      /* when it last read or named */
	/* a sample's reads made again at the next (runtimes/replay.h);
	 * NULL: the reader reads the process directly */
	struct replay *replay;
};

struct rt_process {
	struct slot slot[RUNTIME_MAX_READERS];
	/* the image instances read (image_pin.h): pinned at the first open,
	 * checked after every sample an instance read for; once it is not the
	 * process's any more, nothing is opened again until the process table
	 * says what the new image is (runtimes__forget) */
	struct image_pin pin;
	bool touched;           /* an instance read since the last check */
	bool stale;             /* the image changed under the instances */
	struct ledger *stack_ledger; /* native stacks read beyond the copy */
	uint64_t hosts_next_ns; /* when maps may be looked at again for hosts */
	uint32_t label;         /* strtab id, 0: none */
	bool label_read;
};

/* Totals of the instances closed, so counters stay cumulative. */
struct gone {
	uint64_t reads, failures, refused, names_refused, cpu_ns;
};

/* What the registry itself refused or closed, per reader, since start. */
struct registry_counts {
	uint64_t opened, failed;
	uint64_t readers_refused; /* opens refused: the user's readers are open */
	uint64_t idle_closed;     /* instances closed for want of use */
};

struct runtimes {
	const struct runtime_reader *readers[RUNTIME_MAX_READERS];
	size_t n;
	struct runtimes_opts opts;
	struct strtab *names;
	struct proctable *pt;
	struct accountant *acct;
	struct agent_stats *st;
	struct u64map *by_pid;   /* pid -> struct rt_process * */
	int last_pid;            /* the process last looked up (samples of one
	                            process come together) */
	struct rt_process *last;
	struct registry_counts counts[RUNTIME_MAX_READERS];
	struct gone gone[RUNTIME_MAX_READERS];
	bool any_host;           /* a reader describes code no file holds */
	uint64_t last_read_ns;   /* when a reader was last asked for a stack */
	struct replay_fill fill; /* the replays' (one sample is read at a time) */
};

struct runtimes *runtimes__new_table(const struct runtime_reader *const *readers, size_t n,
				     struct strtab *names, struct proctable *pt,
				     struct accountant *acct, struct agent_stats *st,
				     const struct runtimes_opts *o)
{
	struct runtimes *rs;
	size_t i;

	if (n > RUNTIME_MAX_READERS || n > AGENT_RUNTIMES_MAX)
		return NULL;
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return NULL;
	for (i = 0; i < n; i++) {
		rs->readers[i] = readers[i];
		rs->any_host |= readers[i]->describe_code != NULL && readers[i]->maybe_host != NULL;
	}
	rs->n = n;
	if (o)
		rs->opts = *o;
	rs->names = names;
	rs->pt = pt;
	rs->acct = acct;
	rs->st = st;
	rs->last_pid = -1;
	rs->by_pid = u64map__new(16);
	if (!rs->by_pid) {
		free(rs);
		return NULL;
	}
	return rs;
}

struct runtimes *runtimes__new(struct strtab *names, struct proctable *pt, struct accountant *acct,
			       struct agent_stats *st, const struct runtimes_opts *o)
{
	return runtimes__new_table(table, sizeof(table) / sizeof(table[0]), names, pt, acct, st, o);
}

const struct runtimes_opts *runtimes__opts(const struct runtimes *rs)
{
	return &rs->opts;
}

/* An open instance's counters; its reads are the calls made of the
 * process, which a replay serves some of. */
static void slot_counters(const struct runtimes *rs, size_t r, const struct slot *sl,
			  struct runtime_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (rs->readers[r]->counters)
		rs->readers[r]->counters(sl->inst, c);
	if (sl->replay)
		c->reads = replay__calls(sl->replay);
}

static void close_slot(struct runtimes *rs, size_t r, struct slot *sl)
{
	if (sl->inst) {
		struct runtime_counters c;
		struct ledger_stats ls;

		slot_counters(rs, r, sl, &c);
		ledger__stats(sl->ledger, &ls);
		rs->gone[r].reads += c.reads;
		rs->gone[r].failures += c.failures;
		rs->gone[r].refused += ls.refused_reads;
		rs->gone[r].names_refused += ls.refused_names;
		rs->gone[r].cpu_ns += ls.cpu_ns;
		rs->readers[r]->close(sl->inst);
	}
	free(sl->replay);
	ledger__delete(sl->ledger);
	memset(sl, 0, sizeof(*sl));
}

static void close_slots(struct runtimes *rs, struct rt_process *rp)
{
	size_t r;

	for (r = 0; r < rs->n; r++)
		close_slot(rs, r, &rp->slot[r]);
	image_pin__close(&rp->pin);
	rp->touched = false;
}

static void free_process(struct runtimes *rs, struct rt_process *rp)
{
	close_slots(rs, rp);
	ledger__delete(rp->stack_ledger);
	free(rp);
}

void runtimes__delete(struct runtimes *rs)
{
	size_t pos = 0;
	uint64_t pid, v;

	if (!rs)
		return;
	while (u64map__next(rs->by_pid, &pos, &pid, &v))
		free_process(rs, (struct rt_process *)(uintptr_t)v);
	u64map__delete(rs->by_pid);
	free(rs);
}

void runtimes__forget(struct runtimes *rs, int pid)
{
	uint64_t v;

	if (!rs || !u64map__get(rs->by_pid, (uint64_t)pid, &v))
		return;
	u64map__del(rs->by_pid, (uint64_t)pid);
	if (rs->last_pid == pid) {
		rs->last_pid = -1;
		rs->last = NULL;
	}
	free_process(rs, (struct rt_process *)(uintptr_t)v);
}

static struct rt_process *entry(struct runtimes *rs, struct process *p)
{
	int pid = process__pid(p);
	struct rt_process *rp;
	uint64_t v;

	if (pid == rs->last_pid)
		return rs->last;
	if (u64map__get(rs->by_pid, (uint64_t)pid, &v)) {
		rp = (struct rt_process *)(uintptr_t)v;
	} else {
		rp = calloc(1, sizeof(*rp));
		if (!rp || u64map__put(rs->by_pid, (uint64_t)pid, (uint64_t)(uintptr_t)rp) != 0) {
			free(rp);
			return NULL;
		}
		rp->pin.fd = -1;
	}
	rs->last_pid = pid;
	rs->last = rp;
	return rp;
}

/* Offers bin to the readers, once: the first that recognises it keeps it. */
static void recognise(struct runtimes *rs, struct binary *bin)
{
	struct runtime_file f;
	size_t r;

	f.elf = binary__open_elf(bin);
	f.path = binary__path(bin);
	if (!f.elf) {
		binary__set_runtime(bin, 0, NULL, NULL);
		return;
	}
	for (r = 0; r < rs->n; r++) {
		void *data = NULL;

		if (rs->readers[r]->recognise(&f, &data) == 1) {
			binary__set_runtime(bin, (uint8_t)(r + 1), data, rs->readers[r]->free_data);
			binary__keep_elf(bin, f.elf);
			return;
		}
	}
	binary__set_runtime(bin, 0, NULL, NULL);
	binary__close_elf(bin, f.elf);
}

static uint8_t binary_tag(struct runtimes *rs, struct binary *bin, void **data)
{
	uint8_t tag;

	if (!binary__runtime(bin, &tag, data)) {
		recognise(rs, bin);
		if (!binary__runtime(bin, &tag, data))
			return 0;
	}
	return tag <= rs->n ? tag : 0;
}

void runtimes__describe_file(struct runtimes *rs, struct binary *bin, uint64_t vaddr,
			     struct unwind_module *out)
{
	const struct runtime_reader *rd;
	void *data = NULL;
	uint8_t tag = binary_tag(rs, bin, &data);

	if (!tag)
		return;
	rd = rs->readers[tag - 1];
	out->runtime = tag;
	if (rd->describe_file)
		rd->describe_file(data, vaddr, out);
}

/* The address of a data object a library of p exports, for readers that
 * need another library's layout (runtime_process.lib_symbol). */
struct lib_lookup {
	struct runtimes *rs;
	struct process *p;
};

static bool basename_starts(const char *path, const char *prefix)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	return base && strncmp(base, prefix, strlen(prefix)) == 0;
}

static uint64_t lib_symbol(void *ctx, const char *const *libs, size_t nlibs, const char *name)
{
	struct lib_lookup *lk = ctx;
	size_t i, k, n = process__nmaps(lk->p);

	for (i = 0; i < n; i++) {
		const struct proc_map *cm = process__map(lk->p, i);
		const char *path = strtab__str(lk->rs->names, proc_map__path(cm));
		uint64_t start, end, pgoff, at;
		struct proc_map *m;
		struct binary *bin;

		for (k = 0; k < nlibs && !basename_starts(path, libs[k]); k++)
			;
		if (k == nlibs)
			continue;
		proc_map__range(cm, &start, &end, &pgoff);
		m = process__find_map(lk->rs->pt, lk->p, start);
		bin = m ? proc_map__binary(m) : NULL;
		if (bin) {
			Elf *elf = binary__open_elf(bin);
			int found = elf_symbols__objects(elf, &name, 1, &at) == 1;

			binary__close_elf(bin, elf);
			if (found)
				return at + proc_map__bias(m);
		}
	}
	return 0;
}

/* The time since t0 a reader spent for sl's process, charged to its user;
 * the accountant's total is apart from the sampling's steady cost. */
static void charge(struct slot *sl, uint64_t t0)
{
	uint64_t ns = clock__mono_ns() - t0;

	ledger__charge_cpu(sl->ledger, ns);
}

/* Not (yet) a runtime we can read, or not now: back off, more each time. */
static void back_off(struct runtimes *rs, size_t r, struct slot *sl, uint64_t now_ns)
{
	uint64_t backoff = RUNTIMES_RETRY_NS << (sl->failures < 6 ? sl->failures : 6);

	/* no instance holds the user's place meanwhile */
	ledger__delete(sl->ledger);
	sl->ledger = NULL;

	rs->counts[r].failed++;
	sl->next_try_ns = now_ns + (backoff < RUNTIMES_RETRY_MAX_NS ? backoff : RUNTIMES_RETRY_MAX_NS);
	sl->failures++;
}

/* Pins p's image at the first instance opened on it, at the mapping m of
 * the binary the instance reads. */
static int pin(struct runtimes *rs, struct process *p, struct rt_process *rp, struct proc_map *m)
{
	uint64_t start, end, pgoff;
	int err;

	if (rp->pin.fd >= 0)
		return 0;
	proc_map__range(m, &start, &end, &pgoff);
	err = image_pin__open(&rp->pin, process__pid(p), start, pgoff, proc_map__ino(m),
			      strtab__str(rs->names, proc_map__path(m)));
	if (err == -ESTALE)
		rp->stale = true;
	return err;
}

/* The ledger of sl, charged to whose process pid is now, not when it was
 * first seen. 0, -ENOMEM, or -errno when its credentials cannot be read
 * (it is gone), -EDQUOT when the user has all the readers it may. */
static int charge_to_owner(struct runtimes *rs, struct slot *sl, int pid, uid_t *uid)
{
	struct proccreds creds;
	int err = proccreds__read_pid(pid, &creds);

	if (err < 0)
		return err;
	*uid = proccreds__user(&creds);
	if (sl->ledger && sl->ledger_uid != *uid) {
		ledger__delete(sl->ledger);
		sl->ledger = NULL;
	}
	if (!sl->ledger) {
		err = accountant__ledger(rs->acct, *uid, &sl->ledger);
		if (err) {
			sl->ledger = NULL;
			return err;
		}
	}
	sl->ledger_uid = *uid;
	return 0;
}

/* Opens reader r's instance on p, for the binary mapped by m. */
static void *open_slot(struct runtimes *rs, struct process *p, size_t r, struct proc_map *m,
		       uint64_t now_ns)
{
	struct rt_process *rp = entry(rs, p);
	struct slot *sl = rp ? &rp->slot[r] : NULL;
	struct lib_lookup lk = { rs, p };
	struct runtime_process proc;
	struct binary *bin;
	uint64_t t0;
	void *data = NULL;
	uid_t uid;
	int err;

	if (!sl)
		return NULL;
	if (sl->inst) {
		sl->used_ns = now_ns;
		rp->touched = true;
		return sl->inst;
	}
	if (now_ns < sl->next_try_ns || rp->stale)
		return NULL;
	bin = proc_map__binary(m);
	if (!bin || binary_tag(rs, bin, &data) != r + 1)
		return NULL;
	err = charge_to_owner(rs, sl, process__pid(p), &uid);
	if (err == -EDQUOT)
		rs->counts[r].readers_refused++;
	if (!err)
		err = pin(rs, p, rp, m);
	if (err) {
		back_off(rs, r, sl, now_ns);
		return NULL;
	}
	memset(&proc, 0, sizeof(proc));
	proc.pid = process__pid(p);
	proc.uid = uid;
	proc.data = data;
	proc.path = strtab__str(rs->names, proc_map__path(m));
	proc.bias = proc_map__bias(m);
	memsource__process(&proc.mem, proc.pid);
	proc.mem.ledger = sl->ledger;
	if (rs->readers[r]->replays) {
		sl->replay = malloc(sizeof(*sl->replay));
		if (sl->replay) {
			replay__init(sl->replay, &proc.mem, &rs->fill);
			replay__source(sl->replay, &proc.mem);
		}
	}
	proc.names = rs->names;
	proc.lines = rs->opts.lines;
	proc.lib_symbol = lib_symbol;
	proc.ctx = &lk;
	t0 = clock__mono_ns();
	err = rs->readers[r]->open(&proc, &sl->inst);
	charge(sl, t0);
	/* what the open read is checked with the sample's reads */
	rp->touched = true;
	if (err == 0) {
		rs->counts[r].opened++;
		sl->failures = 0;
		sl->used_ns = now_ns;
		return sl->inst;
	}
	sl->inst = NULL;
	free(sl->replay);
	sl->replay = NULL;
	back_off(rs, r, sl, now_ns);
	return NULL;
}

/* Opens the instances of readers of code no file holds whose host p maps,
 * at most once per retry interval. */
static void open_hosts(struct runtimes *rs, struct process *p, struct rt_process *rp, uint64_t now_ns)
{
	size_t i, r, n = process__nmaps(p);

	if (now_ns < rp->hosts_next_ns)
		return;
	rp->hosts_next_ns = now_ns + RUNTIMES_RETRY_NS;
	for (i = 0; i < n; i++) {
		const struct proc_map *cm = process__map(p, i);
		const char *path = strtab__str(rs->names, proc_map__path(cm));
		const char *base = path ? strrchr(path, '/') : NULL;
		uint64_t start, end, pgoff;
		struct proc_map *m;

		if (!path)
			continue;
		base = base ? base + 1 : path;
		for (r = 0; r < rs->n; r++) {
			const struct runtime_reader *rd = rs->readers[r];

			if (!rd->describe_code || !rd->maybe_host || rp->slot[r].inst || !rd->maybe_host(base))
				continue;
			/* looking the mapping up opens its binary */
			proc_map__range(cm, &start, &end, &pgoff);
			m = process__find_map(rs->pt, p, start);
			if (m)
				(void)open_slot(rs, p, r, m, now_ns);
		}
	}
}

int runtimes__describe_code(struct runtimes *rs, struct process *p, uint64_t pc, uint32_t path,
			    uint64_t now_ns, struct unwind_module *out)
{
	const char *name = path ? strtab__str(rs->names, path) : NULL;
	struct rt_process *rp;
	size_t r;

	if (!rs->any_host || !(rp = entry(rs, p)))
		return -ENOENT;
	open_hosts(rs, p, rp, now_ns);
	for (r = 0; r < rs->n; r++) {
		const struct runtime_reader *rd = rs->readers[r];

		if (!rp->slot[r].inst || !rd->describe_code)
			continue;
		rp->touched = true;
		rp->slot[r].used_ns = now_ns;
		if (rd->describe_code(rp->slot[r].inst, pc, name, now_ns, out) == 0) {
			out->runtime = (uint8_t)(r + 1);
			return 0;
		}
	}
	return -ENOENT;
}

bool runtimes__eager(const struct runtimes *rs, uint64_t now_ns)
{
	return rs->last_read_ns && now_ns - rs->last_read_ns < RUNTIMES_EAGER_HOLD_NS;
}

struct ledger *runtimes__stack_ledger(struct runtimes *rs, struct process *p)
{
	struct rt_process *rp = entry(rs, p);

	uid_t uid;
	gid_t gid;

	/* whose the process is now; the ledger goes with its image */
	if (rp && !rp->stack_ledger &&
	    (proccreds__owner_pid(process__pid(p), &uid, &gid) != 0 ||
	     accountant__copy_ledger(rs->acct, uid, &rp->stack_ledger) != 0))
		rp->stack_ledger = NULL;
	return rp ? rp->stack_ledger : NULL;
}

void runtimes__charge_stack_cpu(struct runtimes *rs, struct ledger *l, uint64_t ns)
{
	(void)rs; /* the accountant totals it with the readers' time */
	ledger__charge_cpu(l, ns);
}

void *runtimes__instance(struct runtimes *rs, struct process *p, uint8_t tag,
			 const struct runtime_reader **reader)
{
	struct rt_process *rp;

	if (!tag || tag > rs->n || !(rp = entry(rs, p)) || !rp->slot[tag - 1].inst)
		return NULL;
	/* naming reads the process too */
	rp->touched = true;
	*reader = rs->readers[tag - 1];
	return rp->slot[tag - 1].inst;
}


/* Reader r's block of the window's stats: its index when the window was
 * started by runtimes__start_window. */
static struct agent_runtime_stats *window_block(struct runtimes *rs, size_t r)
{
	if (!rs->st)
		return NULL;
	if (strcmp(rs->st->runtimes[r].name, rs->readers[r]->name) == 0)
		return &rs->st->runtimes[r];
	return agent_stats__runtime(rs->st, rs->readers[r]->name);
}

bool runtimes__same_image(struct runtimes *rs, struct process *p)
{
	struct rt_process *rp;
	size_t r;

	if (!rs || !(rp = entry(rs, p)) || !rp->touched)
		return true;
	rp->touched = false;
	if (image_pin__same(&rp->pin))
		return true;
	for (r = 0; r < rs->n; r++) {
		struct agent_runtime_stats *st = rp->slot[r].inst ? window_block(rs, r) : NULL;

		if (st)
			st->image_changed++;
	}
	close_slots(rs, rp);
	rp->stale = true;
	return false;
}

/* Counts one reader's answer for a sample in the window's stats. */
static void count_sample(struct runtimes *rs, size_t r, const struct runtime_sample *s,
			 const struct runtime_stack *out, int err)
{
	struct agent_runtime_stats *st = window_block(rs, r);

	if (!st)
		return;
	if (err) {
		if (err == -ENOENT)
			st->no_thread++;
		else
			st->unreadable++;
		return;
	}
	st->stacks++;
	if (s->sample_ns && s->now_ns > s->sample_ns) {
		st->lag_ns += s->now_ns - s->sample_ns;
		if (s->now_ns - s->sample_ns > st->lag_max_ns)
			st->lag_max_ns = s->now_ns - s->sample_ns;
	}
}

/* Readers answer in the table's order; splices go innermost first. */
static void sort_splices(struct runtime_stack *out)
{
	size_t i, j;

	for (i = 1; i < out->nsplices; i++) {
		struct runtime_splice x = out->at[i];

		for (j = i; j > 0 && out->at[j - 1].frame > x.frame; j--)
			out->at[j] = out->at[j - 1];
		out->at[j] = x;
	}
}

size_t runtimes__read_stacks(struct runtimes *rs, struct process *p, struct runtime_sample *s,
			     struct runtime_stack *out)
{
	bool asked[RUNTIME_MAX_READERS] = { false };
	size_t i;

	memset(out, 0, offsetof(struct runtime_stack, at));
	for (i = 0; i < s->nframes; i++) {
		const struct unwind_frame *f = &s->frames[i];
		unsigned before[3] = { out->confirmed, out->chained, out->unproven };
		struct agent_runtime_stats *st;
		const struct runtime_reader *rd;
		struct slot *sl;
		uint64_t t0;
		void *inst;
		size_t r;
		int err;

		if (!f->keeps || !f->runtime || f->runtime > rs->n || asked[f->runtime - 1] || !f->owner)
			continue;
		r = f->runtime - 1;
		asked[r] = true;
		rd = rs->readers[r];
		if (!rd->read_stack)
			continue;
		rs->last_read_ns = s->now_ns;
		inst = open_slot(rs, p, r, (struct proc_map *)f->owner, s->now_ns);
		if (!inst) {
			count_sample(rs, r, s, out, -EPROTO);
			continue;
		}
		sl = &entry(rs, p)->slot[r];
		s->tag = f->runtime;
		t0 = clock__mono_ns();
		if (sl->replay)
			replay__begin(sl->replay);
		err = rd->read_stack(inst, s, out);
		if (sl->replay)
			replay__end(sl->replay);
		charge(sl, t0);
		count_sample(rs, r, s, out, err);
		st = window_block(rs, r);
		if (st && !err) {
			st->confirmed += out->confirmed - before[0];
			st->chained += out->chained - before[1];
			st->unproven += out->unproven - before[2];
		}
	}
	sort_splices(out);
	return out->nsplices;
}

/* What the command line of pid runs, as the reader r says; 0 when none. */
static uint32_t read_label(struct runtimes *rs, size_t r, int pid)
{
	char path[64], label[RUNTIMES_LABEL_MAX];
	char *cmd = NULL;
	size_t len = 0;
	uint32_t id = 0;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fileio__read_upto(fd, 0, RUNTIMES_CMDLINE_MAX, &cmd, &len) == 0) {
		n = rs->readers[r]->label(cmd, len, label, sizeof(label));
		if (n > 0 && (size_t)n < sizeof(label) &&
		    strtab__intern(rs->names, label, (size_t)n, &id) < 0)
			id = 0;
		free(cmd);
	}
	close(fd);
	return id;
}

uint32_t runtimes__label(struct runtimes *rs, struct process *p)
{
	const char *comm = strtab__str(rs->names, process__comm(p));
	struct rt_process *rp;
	size_t r;

	if (!comm)
		return 0;
	for (r = 0; r < rs->n; r++)
		if (rs->readers[r]->labels && rs->readers[r]->label && rs->readers[r]->labels(comm))
			break;
	if (r == rs->n || !(rp = entry(rs, p)))
		return 0;
	if (!rp->label_read) {
		rp->label_read = true;
		rp->label = read_label(rs, r, process__pid(p));
	}
	return rp->label;
}

int runtimes__remap_names(struct runtimes *rs, struct strtab_remap *r)
{
	size_t pos = 0, k;
	uint64_t pid, v;
	int err;

	if (r->commit)
		rs->names = r->to;
	while (u64map__next(rs->by_pid, &pos, &pid, &v)) {
		struct rt_process *rp = (struct rt_process *)(uintptr_t)v;

		if (rp->label && strtab_remap__id(r, &rp->label))
			return -ENOMEM;
		for (k = 0; k < rs->n; k++)
			if (rp->slot[k].inst && rs->readers[k]->remap_names &&
			    (err = rs->readers[k]->remap_names(rp->slot[k].inst, r)) != 0)
				return err;
	}
	return 0;
}

void runtimes__start_window(struct runtimes *rs, struct agent_stats *st)
{
	size_t r;

	for (r = 0; r < rs->n; r++)
		(void)agent_stats__runtime(st, rs->readers[r]->name);
	if (rs->acct)
		accountant__new_window(rs->acct);
}

void runtimes__count_into(struct runtimes *rs, struct agent_stats *st)
{
	rs->st = st;
}

void runtimes__finish_window(struct runtimes *rs, struct agent_stats *st)
{
	size_t r, pos;
	uint64_t pid, v;

	for (r = 0; r < rs->n; r++) {
		struct agent_runtime_stats *a = agent_stats__runtime(st, rs->readers[r]->name);

		if (!a)
			continue;
		a->readers = 0;
		a->opened = rs->counts[r].opened;
		a->failed = rs->counts[r].failed;
		a->readers_refused = rs->counts[r].readers_refused;
		a->idle_closed = rs->counts[r].idle_closed;
		a->reads = rs->gone[r].reads;
		a->failures = rs->gone[r].failures;
		a->refused = rs->gone[r].refused;
		a->names_refused = rs->gone[r].names_refused;
		a->cpu_ns = rs->gone[r].cpu_ns;
		pos = 0;
		while (u64map__next(rs->by_pid, &pos, &pid, &v)) {
			struct slot *sl = &((struct rt_process *)(uintptr_t)v)->slot[r];
			struct runtime_counters c;
			struct ledger_stats ls;

			if (!sl->inst)
				continue;
			a->readers++;
			slot_counters(rs, r, sl, &c);
			ledger__stats(sl->ledger, &ls);
			a->reads += c.reads;
			a->failures += c.failures;
			a->refused += ls.refused_reads;
			a->names_refused += ls.refused_names;
			a->cpu_ns += ls.cpu_ns;
		}
	}
}

uint64_t runtimes__cpu_ns(const struct runtimes *rs)
{
	/* all the readers' time: around their operations, and their own */
	return rs ? accountant__cpu_ns(rs->acct) : 0;
}

void runtimes__trim(struct runtimes *rs, uint64_t now_ns)
{
	size_t pos = 0, r;
	uint64_t pid, v;

	while (u64map__next(rs->by_pid, &pos, &pid, &v)) {
		struct rt_process *rp = (struct rt_process *)(uintptr_t)v;
		bool open = false;

		/* an image gone (the process exited or exec'd) whose end no
		 * sample showed nor the process table said, its exit record
		 * lost to a full ring: its readers go now, not when idle */
		if (rp->pin.fd >= 0 && !rp->stale && !image_pin__same(&rp->pin)) {
			close_slots(rs, rp);
			rp->stale = true;
		}
		for (r = 0; r < rs->n; r++) {
			struct slot *sl = &rp->slot[r];

			if (sl->inst && now_ns - sl->used_ns >= RUNTIMES_IDLE_NS) {
				close_slot(rs, r, sl);
				rs->counts[r].idle_closed++;
			}
			open |= sl->inst != NULL;
		}
		/* the pin is of the instances; a later open pins anew */
		if (!open)
			image_pin__close(&rp->pin);
	}
}
