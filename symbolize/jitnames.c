/* JIT code's names per process, and the pcs still waiting for one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/proccreds.h"
#include "common/selfusage.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "symbolize/jitdump.h"
#include "symbolize/jitnames.h"
#include "symbolize/loadbudget.h"
#include "symbolize/perfmap.h"

/* A pc past what the files name is looked up again at most this often per
 * process (JITs append as they compile). */
#define RELOAD_INTERVAL_NS 1000000000ull

struct jit {
	int pid;
	uid_t uid;             /* whose it is, as last read; its files must be
	                        * this uid's (root's too when it is 0), and
	                        * what they hold is charged to it */
	int creds_known;       /* uid was read */
	uint32_t jitdump;      /* path of its jitdump (strtab id), 0: none */
	int proc_fd;           /* /proc/PID, O_PATH: this process only */
	int root_fd;           /* its root, O_PATH; -1: could not open */
	struct perfmap *map;   /* /tmp/perf-PID.map, NULL until read */
	struct perfmap *dump;  /* its jitdump, NULL until read */
	uint64_t loaded_ns;    /* last (re)load attempt */
	uint64_t charged;      /* bytes of map and dump reserved in the budget */
	int truncated;         /* its map was cut by the budget (counted once) */
	int tried;
	struct u64map *pending; /* pc -> pending frame id; NULL: none */
};

struct jitnames {
	struct strtab *names;
	uint32_t unknown;
	struct u64map *by_pid;  /* pid -> struct jit * */
	struct u64map *renames; /* pending frame id -> settled id */
	size_t npending;
	uint64_t load_cpu_ns;   /* reading the files */
	struct loadbudget *budget; /* borrowed; NULL: none */
};

int jitnames__new(struct strtab *names, uint32_t unknown, struct jitnames **out)
{
	struct jitnames *jn = calloc(1, sizeof(*jn));

	if (!jn)
		return -ENOMEM;
	jn->names = names;
	jn->unknown = unknown;
	jn->by_pid = u64map__new(64);
	jn->renames = u64map__new(64);
	if (!jn->by_pid || !jn->renames) {
		jitnames__delete(jn);
		return -ENOMEM;
	}
	*out = jn;
	return 0;
}

static void jit_delete(struct jitnames *jn, struct jit *j)
{
	if (!j)
		return;
	if (j->pending) {
		jn->npending -= u64map__count(j->pending);
		u64map__delete(j->pending);
	}
	if (jn->budget)
		loadbudget__release(jn->budget, j->uid, j->charged);
	perfmap__delete(j->map);
	perfmap__delete(j->dump);
	if (j->root_fd >= 0)
		close(j->root_fd);
	if (j->proc_fd >= 0)
		close(j->proc_fd);
	free(j);
}

void jitnames__delete(struct jitnames *jn)
{
	size_t pos = 0;
	uint64_t k, v;

	if (!jn)
		return;
	while (jn->by_pid && u64map__next(jn->by_pid, &pos, &k, &v))
		jit_delete(jn, (struct jit *)(uintptr_t)v);
	u64map__delete(jn->by_pid);
	u64map__delete(jn->renames);
	free(jn);
}

static struct jit *jit_of(struct jitnames *jn, int pid)
{
	struct jit *j;
	uint64_t v;

	if (u64map__get(jn->by_pid, (uint64_t)(uint32_t)pid, &v))
		return (struct jit *)(uintptr_t)v;
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->pid = pid;
	/* The process's root as it is now, reached through the process (not
	 * its pid again): its files stay readable through it after the
	 * process is gone, and never through another process that reuses the
	 * pid. Its credentials are read through the same fd, after. */
	j->proc_fd = proccreds__open(pid);
	j->root_fd = j->proc_fd >= 0 ? openat(j->proc_fd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	if (u64map__put(jn->by_pid, (uint64_t)(uint32_t)pid, (uint64_t)(uintptr_t)j) < 0) {
		jit_delete(jn, j);
		return NULL;
	}
	return j;
}

static int lookup_loaded(const struct jit *j, uint64_t pc, uint32_t *id)
{
	return (j->map && perfmap__lookup(j->map, pc, id) == 0) ||
	       (j->dump && perfmap__lookup(j->dump, pc, id) == 0) ? 0 : -ENOENT;
}

/* Keeps what j's files hold within its owner's share of the load budget.
 * Past it, the process's JIT names are dropped (its frames stay [unknown]
 * or pending) rather than a user's files growing the agent without bound;
 * a later reload tries again, drawing on the time bucket. */
static void account(struct jitnames *jn, struct jit *j)
{
	uint64_t now = perfmap__bytes(j->map) + perfmap__bytes(j->dump);

	if (!jn->budget || now == j->charged)
		return;
	if (now < j->charged) {
		loadbudget__release(jn->budget, j->uid, j->charged - now);
	} else if (loadbudget__charge(jn->budget, j->uid, now - j->charged) < 0) {
		loadbudget__refused(jn->budget);
		loadbudget__release(jn->budget, j->uid, j->charged);
		perfmap__delete(j->map);
		perfmap__delete(j->dump);
		j->map = j->dump = NULL;
		now = 0;
	}
	j->charged = now;
}

/* How much perf map text j may be read from: half of what its owner may
 * hold (the entries take about as much again), 0 for none. Without a
 * budget, the map's own cap. */
static uint64_t text_room(const struct jitnames *jn, const struct jit *j)
{
	if (!jn->budget)
		return PERFMAP_MAX_TEXT;
	return (loadbudget__room(jn->budget, j->uid) + j->charged) / 2;
}

/* What j's files held was read under its former owner's rule and charged
 * to them: dropped, read again under the new one. */
static void new_owner(struct jitnames *jn, struct jit *j, uid_t uid)
{
	if (jn->budget)
		loadbudget__release(jn->budget, j->uid, j->charged);
	perfmap__delete(j->map);
	perfmap__delete(j->dump);
	j->map = j->dump = NULL;
	j->charged = 0;
	j->truncated = 0;
	j->uid = uid;
}

/* Whose j's process is, read now (jitnames.h says why an exited one keeps
 * its last read). -ESRCH when it was never read and cannot be. */
static int read_owner(struct jitnames *jn, struct jit *j)
{
	struct proccreds c;
	uid_t uid;

	if (proccreds__read(j->proc_fd, &c) != 0)
		return j->creds_known ? 0 : -ESRCH;
	uid = proccreds__user(&c);
	if (!j->creds_known)
		j->uid = uid;
	else if (uid != j->uid)
		new_owner(jn, j, uid);
	j->creds_known = 1;
	return 0;
}

/* Reads the files again where they changed; 1 when anything was reloaded. */
static int reload(struct jitnames *jn, struct jit *j)
{
	char rel[PATH_MAX];
	int reloaded = 0;
	uint64_t t0, max_text;

	if (j->root_fd < 0 || read_owner(jn, j) < 0)
		return 0;
	/* reading a user's files is one-off work they can make expensive */
	if (jn->budget && !loadbudget__may_load(jn->budget, j->uid, clock__mono_ns()))
		return 0;
	t0 = selfusage__thread_cpu_ns();
	snprintf(rel, sizeof(rel), "tmp/perf-%d.map", j->pid);
	max_text = text_room(jn, j);
	if (max_text)
		reloaded |= perfmap__refresh_at(j->root_fd, rel, j->uid, jn->names, max_text,
						&j->map) > 0;
	if (j->jitdump) {
		const char *path = strtab__str(jn->names, j->jitdump);

		/* relative to the process's root: the path without its '/' */
		if (path && path[0] == '/' && snprintf(rel, sizeof(rel), "%s", path + 1) < (int)sizeof(rel))
			reloaded |= jitdump__refresh_at(j->root_fd, rel, j->uid, jn->names, &j->dump) > 0;
	}
	if (reloaded)
		account(jn, j);
	/* a map the budget cut is a refusal, counted when it happens */
	if (jn->budget && perfmap__truncated(j->map) && !j->truncated)
		loadbudget__refused(jn->budget);
	j->truncated = perfmap__truncated(j->map);
	t0 = selfusage__thread_cpu_ns() - t0;
	jn->load_cpu_ns += t0;
	if (jn->budget)
		loadbudget__spent(jn->budget, j->uid, t0, clock__mono_ns());
	return reloaded;
}

/* A frame that stands for pc until the window's end names it. */
static int pending_frame(struct jitnames *jn, struct jit *j, uint64_t pc, uint32_t *id)
{
	char name[64];
	uint64_t v;

	if (j->pending && u64map__get(j->pending, pc, &v)) {
		*id = (uint32_t)v;
		return 0;
	}
	if (jn->npending >= JITNAMES_PENDING_MAX ||
	    (j->pending && u64map__count(j->pending) >= JITNAMES_PENDING_PER_PROCESS))
		return -ENOENT;
	if (!j->pending && !(j->pending = u64map__new(64)))
		return -ENOMEM;
	snprintf(name, sizeof(name), "[jit %d 0x%llx]", j->pid, (unsigned long long)pc);
	if (strtab__intern_cstr(jn->names, name, id) < 0 || u64map__put(j->pending, pc, *id) < 0)
		return -ENOMEM;
	jn->npending++;
	return 0;
}

int jitnames__lookup(struct jitnames *jn, int pid, uint32_t jitdump, uint64_t pc,
		     uint64_t now_ns, int may_pend, uint32_t *id)
{
	struct jit *j = jit_of(jn, pid);

	if (!j)
		return -ENOMEM;
	j->jitdump = jitdump;
	if (lookup_loaded(j, pc, id) == 0)
		return 0;
	if (!j->tried || now_ns - j->loaded_ns > RELOAD_INTERVAL_NS) {
		j->tried = 1;
		j->loaded_ns = now_ns;
		if (reload(jn, j) && lookup_loaded(j, pc, id) == 0)
			return 0;
	}
	return may_pend ? pending_frame(jn, j, pc, id) : -ENOENT;
}

/* Names this process's pending pcs from its files as they are now. */
static void settle_one(struct jitnames *jn, struct jit *j)
{
	size_t pos = 0;
	uint64_t pc, v;

	if (!j->pending || !u64map__count(j->pending))
		return;
	reload(jn, j);
	while (u64map__next(j->pending, &pos, &pc, &v)) {
		uint32_t id;

		if (lookup_loaded(j, pc, &id) != 0)
			id = jn->unknown;
		/* without room for the rename the frame would stay pending:
		 * then it is renamed to nothing and shows its placeholder */
		(void)u64map__put(jn->renames, v, id);
	}
	jn->npending -= u64map__count(j->pending);
	u64map__clear(j->pending);
}

void jitnames__forget(struct jitnames *jn, int pid)
{
	uint64_t v;

	if (!u64map__get(jn->by_pid, (uint64_t)(uint32_t)pid, &v))
		return;
	settle_one(jn, (struct jit *)(uintptr_t)v);
	u64map__del(jn->by_pid, (uint64_t)(uint32_t)pid);
	jit_delete(jn, (struct jit *)(uintptr_t)v);
}

size_t jitnames__forget_gone(struct jitnames *jn)
{
	int gone[64];
	size_t pos = 0, n = 0, i;
	uint64_t k, v;

	/* a batch at a time: the map is not changed while it is walked */
	while (n < sizeof(gone) / sizeof(gone[0]) && u64map__next(jn->by_pid, &pos, &k, &v)) {
		const struct jit *j = (const struct jit *)(uintptr_t)v;

		/* its /proc directory outlives the process as an empty one */
		if (j->proc_fd >= 0 && faccessat(j->proc_fd, "stat", F_OK, 0) != 0 &&
		    (errno == ENOENT || errno == ESRCH))
			gone[n++] = j->pid;
	}
	for (i = 0; i < n; i++)
		jitnames__forget(jn, gone[i]);
	return n;
}

size_t jitnames__settle(struct jitnames *jn)
{
	size_t pos = 0;
	uint64_t k, v;

	while (jn->npending && u64map__next(jn->by_pid, &pos, &k, &v))
		settle_one(jn, (struct jit *)(uintptr_t)v);
	return u64map__count(jn->renames);
}

uint32_t jitnames__renamed(void *ctx, uint32_t id)
{
	const struct jitnames *jn = ctx;
	uint64_t v;

	return u64map__get(jn->renames, id, &v) ? (uint32_t)v : id;
}

void jitnames__clear_renames(struct jitnames *jn)
{
	u64map__clear(jn->renames);
}

void jitnames__set_budget(struct jitnames *jn, struct loadbudget *budget)
{
	jn->budget = budget;
}

uint64_t jitnames__load_cpu_ns(const struct jitnames *jn)
{
	return jn->load_cpu_ns;
}

size_t jitnames__processes(const struct jitnames *jn)
{
	size_t pos = 0, n = 0;
	uint64_t k, v;

	while (u64map__next(jn->by_pid, &pos, &k, &v)) {
		const struct jit *j = (const struct jit *)(uintptr_t)v;

		n += j->map || j->dump;
	}
	return n;
}

int jitnames__remap_names(struct jitnames *jn, struct strtab_remap *r)
{
	size_t pos = 0;
	uint64_t k, v;
	int err = 0;

	if (jn->npending || u64map__count(jn->renames))
		return -EBUSY;
	err = strtab_remap__id(r, &jn->unknown);
	while (!err && u64map__next(jn->by_pid, &pos, &k, &v)) {
		struct jit *j = (struct jit *)(uintptr_t)v;

		err = strtab_remap__id(r, &j->jitdump);
		if (!err && j->map)
			err = perfmap__remap_names(j->map, r);
		if (!err && j->dump)
			err = perfmap__remap_names(j->dump, r);
	}
	if (!err && r->commit)
		jn->names = r->to;
	return err;
}
