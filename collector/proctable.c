/* Process table: per-process executable maps, comm, exe, thread names;
 * whose a process is and its service: proctable_identity.c. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "collector/binary.h"
#include "collector/procmaps.h"
#include "collector/proctable.h"
#include "collector/proctable_state.h"
#include "collector/usernames.h"
#include "collector/thread_names.h"
#include "collector/threads.h"
#include "symbolize/jitdump.h"
#include "common/fileio.h"
#include "common/parse.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/clock.h"
#include "common/selfusage.h"
#include "common/u64map.h"

struct proctable *proctable__new(struct strtab *names, struct binaries *bs)
{
	struct proctable *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return NULL;
	pt->names = names;
	pt->bs = bs;
	pt->by_pid = u64map__new(1024);
	pt->users = usernames__new(NULL);
	if (!pt->by_pid || !pt->users || strtab__intern_cstr(names, "[vdso]", &pt->vdso_path) < 0 ||
	    strtab__intern_cstr(names, PROCTABLE_USER_UNKNOWN, &pt->unknown_user) < 0) {
		usernames__delete(pt->users);
		u64map__delete(pt->by_pid);
		free(pt);
		return NULL;
	}
	return pt;
}

/* A resolved mapping holds a reference on its binary. */
static void map_release(struct proctable *pt, struct proc_map *m)
{
	if (m->bin)
		binaries__put(pt->bs, m->bin, clock__mono_ns());
	m->bin = NULL;
	m->resolved = 0;
}

static void release_all(struct proctable *pt, struct process *p)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		map_release(pt, &p->maps[i]);
	p->nmaps = 0;
}

static void image_gone(struct proctable *pt, int pid)
{
	if (pt->image_gone)
		pt->image_gone(pt->image_gone_ctx, pid);
}

static void process_delete(struct proctable *pt, struct process *p)
{
	if (!p)
		return;
	image_gone(pt, p->pid);
	release_all(pt, p);
	thread_names__delete(p->threads);
	free(p->maps);
	free(p);
}

void proctable__on_image_gone(struct proctable *pt, void (*fn)(void *ctx, int pid), void *ctx)
{
	pt->image_gone = fn;
	pt->image_gone_ctx = ctx;
}

void proctable__delete(struct proctable *pt)
{
	size_t pos = 0;
	uint64_t k, v;

	if (!pt)
		return;
	while (u64map__next(pt->by_pid, &pos, &k, &v))
		process_delete(pt, (struct process *)(uintptr_t)v);
	u64map__delete(pt->by_pid);
	usernames__delete(pt->users);
	free(pt);
}

size_t proctable__count(const struct proctable *pt) { return u64map__count(pt->by_pid); }
uint64_t proctable__load_cpu_ns(const struct proctable *pt) { return pt->load_cpu_ns; }

static int remap_process(struct process *p, struct strtab_remap *r)
{
	size_t i;
	int err;

	err = strtab_remap__id(r, &p->comm);
	if (!err)
		err = strtab_remap__id(r, &p->jitdump);
	if (!err)
		err = strtab_remap__id(r, &p->exe);
	if (!err)
		err = strtab_remap__id(r, &p->service);
	for (i = 0; !err && i < p->nmaps; i++)
		err = strtab_remap__id(r, &p->maps[i].path);
	if (!err)
		err = thread_names__remap(p->threads, r);
	if (!err)
		err = proctable__remap_identity(p, r);
	return err;
}

int proctable__remap_names(struct proctable *pt, struct strtab_remap *r)
{
	uint64_t pid, v;
	size_t pos = 0;
	int err;

	err = strtab_remap__id(r, &pt->vdso_path);
	if (!err)
		err = strtab_remap__id(r, &pt->unknown_user);
	while (!err && u64map__next(pt->by_pid, &pos, &pid, &v))
		err = remap_process((struct process *)(uintptr_t)v, r);
	if (!err && r->commit)
		pt->names = r->to;
	return err;
}

struct process *proctable__find(struct proctable *pt, int pid)
{
	uint64_t v;

	if (!u64map__get(pt->by_pid, (uint64_t)(uint32_t)pid, &v))
		return NULL;
	return (struct process *)(uintptr_t)v;
}

uint32_t proctable__intern(struct proctable *pt, const char *s, size_t len)
{
	uint32_t id = 0;

	if (len && strtab__intern(pt->names, s, len, &id) < 0)
		return 0;
	return id;
}

/* Replaces [start, end) in p's map list, trimming or splitting what overlaps. */
static int insert_map(struct proctable *pt, struct process *p, const struct proc_map *m)
{
	size_t i, j, keep = 0;
	struct proc_map split = { 0 };
	int have_split = 0;

	for (i = 0; i < p->nmaps; i++) {
		struct proc_map *o = &p->maps[i];

		if (o->end <= m->start || o->start >= m->end) {
			p->maps[keep++] = *o;
			continue;
		}
		if (o->start < m->start && o->end > m->end) {
			/* m punches a hole in o: keep both sides */
			split = *o;
			split.pgoff += m->end - o->start;
			split.start = m->end;
			split.resolved = 0;
			split.bin = NULL; /* resolved again on use; o keeps its reference */
			have_split = 1;
			o->end = m->start;
			p->maps[keep++] = *o;
		} else if (o->start < m->start) {
			o->end = m->start;
			p->maps[keep++] = *o;
		} else if (o->end > m->end) {
			/* another file offset: resolved again on use */
			map_release(pt, o);
			o->pgoff += m->end - o->start;
			o->start = m->end;
			p->maps[keep++] = *o;
		} else {
			map_release(pt, o); /* fully covered: dropped */
		}
	}
	p->nmaps = keep;
	if (p->nmaps + 2 > p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 16;
		struct proc_map *nm;

		if (nc > MAX_MAPS)
			return -ENOSPC;
		nm = realloc(p->maps, nc * sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		p->maps = nm;
		p->cap = nc;
	}
	for (j = 0; j < 1 + (size_t)have_split; j++) {
		const struct proc_map *add = j == 0 ? m : &split;

		i = p->nmaps;
		while (i > 0 && p->maps[i - 1].start > add->start) {
			p->maps[i] = p->maps[i - 1];
			i--;
		}
		p->maps[i] = *add;
		p->nmaps++;
	}
	return 0;
}

static int add_mapping(struct proctable *pt, struct process *p, uint64_t start, uint64_t end,
		       uint64_t pgoff, uint64_t dev, uint64_t ino, const char *path, size_t path_len)
{
	struct proc_map m;

	memset(&m, 0, sizeof(m));
	m.start = start;
	m.end = end;
	m.pgoff = pgoff;
	m.dev = dev;
	m.ino = ino;
	/* "[vsyscall]", "[stack]"...: pseudo-files, treated like anonymous
	 * memory; the vDSO is resolved to our own copy of it. "//anon" is what
	 * MMAP records call anonymous memory (JIT code): no file to open, and
	 * /proc/PID/root//anon would be whatever file a process put at /anon. */
	if (path_len == 6 && memcmp(path, "//anon", 6) == 0)
		path_len = 0;
	if (path_len && (path[0] == '/' || (path_len == 6 && memcmp(path, "[vdso]", 6) == 0)))
		m.path = proctable__intern(pt, path, path_len);
	/* a JIT maps its jitdump file executable so that profilers find it */
	if (m.path && jitdump__is_dump_path(path, path_len))
		p->jitdump = m.path;
	return insert_map(pt, p, &m);
}

struct seed {
	struct proctable *pt;
	struct process *p;
	size_t nexec; /* executable mappings seen */
};

static int seed_map_cb(void *ctx, const struct procmaps_entry *e)
{
	struct seed *sd = ctx;

	if (!e->executable)
		return 0;
	sd->nexec++;
	add_mapping(sd->pt, sd->p, e->start, e->end, e->pgoff, (uint64_t)makedev(e->maj, e->min),
		    e->ino, e->path, e->path_len);
	return 0;
}

static int load_maps(struct proctable *pt, struct process *p)
{
	struct seed sd = { pt, p, 0 };
	int rc, tid;

	rc = procmaps__read(p->pid, seed_map_cb, &sd, NULL);
	if (rc < 0 || sd.nexec)
		return rc;
	/* Nothing executable: a kernel thread, or a process whose main thread
	 * exited (pthread_exit) while others run on. Its maps read through the
	 * zombie leader are empty; a live thread still has them. */
	tid = threads__live_other(p->pid, p->pid);
	if (tid > 0)
		rc = procmaps__read_task(p->pid, tid, seed_map_cb, &sd, NULL);
	return rc;
}

ssize_t proctable__read_proc_file(int pid, const char *name, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return fileio__read_small(path, buf, size);
}

/* The path /proc/PID/exe links to (without the " (deleted)" of a
 * replaced file), interned; 0 when it cannot be read (gone, not ours). */
static uint32_t read_exe(struct proctable *pt, int pid)
{
	static const char del[] = " (deleted)";
	char path[96], buf[4096];
	ssize_t n;
	int tid;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n <= 0 && (tid = threads__live_other(pid, pid)) > 0) {
		/* a zombie main thread has no exe; its live threads do */
		snprintf(path, sizeof(path), "/proc/%d/task/%d/exe", pid, tid);
		n = readlink(path, buf, sizeof(buf) - 1);
	}
	if (n <= 0)
		return 0;
	if ((size_t)n > sizeof(del) - 1 && memcmp(buf + n - (sizeof(del) - 1), del, sizeof(del) - 1) == 0)
		n -= (ssize_t)(sizeof(del) - 1);
	return proctable__intern(pt, buf, (size_t)n);
}

static void load_identity(struct proctable *pt, struct process *p)
{
	char buf[4096];
	ssize_t n;
	uint32_t exe;

	n = proctable__read_proc_file(p->pid, "comm", buf, sizeof(buf));
	if (n > 0) {
		if (buf[n - 1] == '\n')
			buf[--n] = '\0';
		p->comm = proctable__intern(pt, buf, (size_t)n);
	}
	exe = read_exe(pt, p->pid);
	if (exe)
		p->exe = exe;
	p->service = proctable__read_service(pt, p->pid);
}

static struct process *new_process(struct proctable *pt, int pid)
{
	struct process *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	if (u64map__put(pt->by_pid, (uint64_t)(uint32_t)pid, (uint64_t)(uintptr_t)p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

static void remove_process(struct proctable *pt, struct process *p)
{
	u64map__del(pt->by_pid, (uint64_t)(uint32_t)p->pid);
	if (p->exited_ns && pt->nexited)
		pt->nexited--;
	process_delete(pt, p);
}

struct process *proctable__get(struct proctable *pt, int pid)
{
	struct process *p = proctable__find(pt, pid);
	uint64_t t0;

	if (p)
		return p;
	p = new_process(pt, pid);
	if (!p)
		return NULL;
	t0 = selfusage__thread_cpu_ns();
	load_identity(pt, p);
	load_maps(pt, p);
	pt->load_cpu_ns += selfusage__thread_cpu_ns() - t0;
	return p;
}

int proctable__seed(struct proctable *pt, int pid)
{
	DIR *d;
	struct dirent *de;
	int n = 0;

	if (pid > 0)
		return proctable__get(pt, pid) ? 1 : -ENOMEM;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		uint64_t v;

		if (parse__u64(de->d_name, 10, &v) < 0 || v == 0 || v > 0x3fffffff)
			continue;
		if (proctable__get(pt, (int)v))
			n++;
	}
	closedir(d);
	return n;
}

int proctable__mmap(struct proctable *pt, int pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    uint64_t dev, uint64_t ino, const char *path, int exec)
{
	struct process *p;
	size_t plen;

	if (!exec || len == 0 || start + len < start)
		return 0;
	/* a process we have not seen predates us (every later one comes with
	 * its FORK): it is read from /proc now, then the record applies */
	p = proctable__get(pt, pid);
	if (!p)
		return -ENOMEM;
	plen = strlen(path);
	if (p->exe_pending && plen && path[0] == '/') {
		p->exe = proctable__intern(pt, path, plen);
		p->exe_pending = 0;
	}
	return add_mapping(pt, p, start, start + len, pgoff, dev, ino, path, plen);
}

/* Kernels before 3.16 (no comm_exec) do not flag the COMM that execve sends,
 * so a main thread's COMM is an exec or a prctl(PR_SET_NAME) rename. An exec
 * changes /proc/PID/exe: one readlink per main-thread COMM, on those kernels
 * only, and COMMs are rare (exec and renames, not samples). When the link
 * cannot be read (the process already exited, or is not ours to inspect),
 * a new name is taken for an exec: execve names the process after the file,
 * renames of short-lived processes are rare, and a missed exec would leave
 * the new image under the old exe. *link gets the current exe's id (0 when
 * unreadable); returns whether to treat the COMM as an exec. */
static int guess_exec(struct proctable *pt, const struct process *p, uint32_t comm_id,
		      uint32_t *link)
{
	*link = read_exe(pt, p->pid);
	if (*link && p->exe)
		return *link != p->exe;
	return comm_id != p->comm;
}

/* The thread names of p, made on first use; NULL when they are not kept
 * (or on ENOMEM: the threads are then read from /proc again). */
static struct thread_names *threads_of(struct proctable *pt, struct process *p)
{
	if (!pt->keep_thread_names)
		return NULL;
	if (!p->threads)
		p->threads = thread_names__new();
	return p->threads;
}

/* A COMM of a thread other than the main one (exec makes the thread that
 * called it the main one, so this is a rename). A process not seen yet has
 * its threads read from /proc when they are sampled. */
static int thread_renamed(struct proctable *pt, int pid, int tid, const char *comm)
{
	struct process *p = proctable__find(pt, pid);
	struct thread_names *t = p ? threads_of(pt, p) : NULL;
	uint32_t id;

	if (!t || strtab__intern(pt->names, comm, strlen(comm), &id) < 0)
		return 0;
	return thread_names__set(t, tid, id);
}

int proctable__comm(struct proctable *pt, int pid, int tid, const char *comm, int is_exec)
{
	struct process *p;
	uint32_t comm_id, link = 0;

	/* thread names do not rename the process */
	if (pid != tid && is_exec <= 0)
		return thread_renamed(pt, pid, tid, comm);
	/* A process not seen yet predates us: a rename reads it from /proc;
	 * an exec (or what may be one) starts it empty, the new image's
	 * mappings follow. */
	p = is_exec == 0 ? proctable__get(pt, pid) : proctable__find(pt, pid);
	if (!p) {
		p = new_process(pt, pid);
		if (!p)
			return -ENOMEM;
	}
	comm_id = proctable__intern(pt, comm, strlen(comm));
	if (is_exec < 0) {
		is_exec = guess_exec(pt, p, comm_id, &link);
		/* Kernels without comm_exec often lack sample_id_all too: COMM
		 * records then carry no time, and two execs in a row on two CPUs
		 * (execve may migrate) can arrive in either order. While the
		 * process lives, /proc holds the name that counts from now on. */
		if (link) {
			char buf[64];
			ssize_t n = proctable__read_proc_file(pid, "comm", buf, sizeof(buf));

			if (n > 0 && buf[n - 1] == '\n')
				buf[--n] = '\0';
			if (n > 0)
				comm_id = proctable__intern(pt, buf, (size_t)n);
		}
	}
	p->comm = comm_id;
	if (is_exec) {
		/* exec replaces the address space; mappings of the new image follow,
		 * the first executable file among them is the new exe. Until it
		 * is seen, the exe /proc showed (if any) stands in: several execs
		 * may lie between this record and the readlink. */
		release_all(pt, p);
		p->jitdump = 0;
		p->exe_pending = 1;
		p->exe_looked_up = 0;
		p->exe = link;
		/* a service manager moves a process into its unit's cgroup
		 * between fork and exec: the fork gave it the manager's */
		p->service_stale = 1;
		/* and who it is: a setuid binary makes it its owner's */
		proctable__identity_exec(p);
		/* exec ends every other thread, whose exits may come after this */
		if (p->nthreads != 1)
			p->nthreads_known = 0;
		thread_names__clear(p->threads);
		image_gone(pt, pid);
	}
	return 0;
}

/* clone gives a new thread its creator's name */
static void inherit_name(struct proctable *pt, struct process *p, int tid, int ptid)
{
	uint32_t name = ptid == p->pid ? p->comm : thread_names__get(p->threads, ptid);
	struct thread_names *t = name ? threads_of(pt, p) : NULL;

	if (t)
		thread_names__set(t, tid, name);
}

int proctable__fork(struct proctable *pt, int pid, int ppid, int tid, int ptid)
{
	struct process *parent, *child;
	size_t i;

	if (pid == ppid) { /* a new thread shares its process's maps */
		parent = proctable__find(pt, pid);
		if (parent) {
			parent->nthreads++;
			inherit_name(pt, parent, tid, ptid);
		}
		return 0;
	}
	child = proctable__find(pt, pid);
	if (child) /* pid reuse: the old process is gone */
		remove_process(pt, child);
	child = new_process(pt, pid);
	if (!child)
		return -ENOMEM;
	child->nthreads = 1; /* fork copies the calling thread only */
	child->nthreads_known = 1;
	/* a parent we have not seen predates us: read it from /proc now */
	parent = ppid > 0 ? proctable__get(pt, ppid) : NULL;
	if (!parent)
		return 0;
	child->comm = parent->comm;
	child->exe = parent->exe;
	child->service = parent->service;
	child->service_stale = parent->service_stale;
	/* not its credentials: whose it is, it says when it is used */
	child->jitdump = parent->jitdump;
	if (parent->nmaps) {
		child->maps = malloc(parent->nmaps * sizeof(*child->maps));
		if (!child->maps)
			return -ENOMEM;
		memcpy(child->maps, parent->maps, parent->nmaps * sizeof(*child->maps));
		child->nmaps = child->cap = parent->nmaps;
		for (i = 0; i < child->nmaps; i++)
			if (child->maps[i].bin)
				binaries__ref(child->maps[i].bin);
	}
	return 0;
}

void proctable__exit(struct proctable *pt, int pid, int tid, uint64_t now_ns)
{
	struct process *p = proctable__find(pt, pid);

	if (!p || p->exited_ns)
		return;
	if (pid != tid)
		thread_names__forget(p->threads, tid);
	if (p->nthreads)
		p->nthreads--;
	/* a thread of a process whose main thread lives: nothing ends */
	if (pid != tid && !p->leader_gone)
		return;
	/* The main thread's exit ends the process unless other threads run on
	 * (main called pthread_exit): then it ends with the last of them. Its
	 * maps stay, since /proc/PID/maps of a zombie leader is empty. */
	if (p->nthreads_known ? p->nthreads > 0 : threads__live_other(pid, tid) > 0) {
		p->leader_gone = 1;
		return;
	}
	p->exited_ns = now_ns ? now_ns : 1;
	pt->nexited++;
}

void proctable__reap(struct proctable *pt, uint64_t now_ns, uint64_t delay_ns)
{
	size_t pos = 0;
	uint64_t k, v;

	if (!pt->nexited)
		return;
	while (u64map__next(pt->by_pid, &pos, &k, &v)) {
		struct process *p = (struct process *)(uintptr_t)v;

		if (p->exited_ns && p->exited_ns + delay_ns < now_ns) {
			remove_process(pt, p);
			/* backward-shift deletion may move a later entry into this slot */
			if (pos > 0)
				pos--;
		}
	}
}

int proctable__reread_maps(struct proctable *pt, struct process *p, uint64_t now_ns,
			   uint64_t min_interval_ns)
{
	uint64_t t0;
	int rc;

	if (p->maps_reread_ns && now_ns - p->maps_reread_ns < min_interval_ns)
		return 0;
	p->maps_reread_ns = now_ns;
	t0 = selfusage__thread_cpu_ns();
	rc = load_maps(pt, p);
	if (rc == 0 && (!p->exe || !p->comm))
		load_identity(pt, p);
	pt->load_cpu_ns += selfusage__thread_cpu_ns() - t0;
	return rc == 0;
}

void proctable__fill_exe(struct proctable *pt, struct process *p)
{
	if (p->exe || p->exe_looked_up)
		return;
	p->exe_looked_up = 1;
	p->exe = read_exe(pt, p->pid);
}

struct proc_map *process__find_map(struct proctable *pt, struct process *p, uint64_t pc)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct proc_map *m = &p->maps[mid];

		if (pc < m->start)
			hi = mid;
		else if (pc >= m->end)
			lo = mid + 1;
		else {
			if (!m->resolved) {
				m->resolved = 1;
				if (m->path == pt->vdso_path) {
					if (binaries__get_vdso(pt->bs, &m->bin) == 0 && binary__is_elf(m->bin)) {
						m->bias = binary__bias(m->bin, m->start, m->end, m->pgoff);
					} else if (m->bin) {
						binaries__put(pt->bs, m->bin, clock__mono_ns());
						m->bin = NULL;
					}
				} else if (m->path &&
				    binaries__get(pt->bs, p->pid, strtab__str(pt->names, m->path), m->dev,
						  m->ino, m->start, m->end, &m->bin) == 0 &&
				    binary__is_elf(m->bin))
					m->bias = binary__bias(m->bin, m->start, m->end, m->pgoff);
				else if (m->path == 0)
					m->bin = NULL;
			}
			return m;
		}
	}
	return NULL;
}

void proctable__keep_thread_names(struct proctable *pt, int on) { pt->keep_thread_names = on; }

uint32_t proctable__thread_name(struct proctable *pt, struct process *p, int tid)
{
	if (tid == p->pid)
		return p->comm;
	return thread_names__lookup(threads_of(pt, p), pt->names, p->pid, tid, &pt->load_cpu_ns);
}

int process__pid(const struct process *p) { return p->pid; }
uint32_t process__comm(const struct process *p) { return p->comm; }
uint32_t process__exe(const struct process *p) { return p->exe; }
int process__exe_pending(const struct process *p) { return p->exe_pending; }
int process__exited(const struct process *p) { return p->exited_ns != 0; }
uint32_t process__jitdump(const struct process *p) { return p->jitdump; }
size_t process__nmaps(const struct process *p) { return p->nmaps; }

const struct proc_map *process__map(const struct process *p, size_t i)
{
	return i < p->nmaps ? &p->maps[i] : NULL;
}

void proc_map__range(const struct proc_map *m, uint64_t *start, uint64_t *end, uint64_t *pgoff)
{
	*start = m->start;
	*end = m->end;
	*pgoff = m->pgoff;
}

uint32_t proc_map__path(const struct proc_map *m) { return m->path; }
struct binary *proc_map__binary(const struct proc_map *m) { return m->bin; }
uint64_t proc_map__bias(const struct proc_map *m) { return m->bias; }
uint64_t proc_map__ino(const struct proc_map *m) { return m->ino; }
