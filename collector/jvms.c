/* HotSpot JVMs by pid. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/binary.h"
#include "collector/jvms.h"
#include "collector/proctable.h"
#include "common/fileio.h"
#include "common/strtab.h"
#include "common/strtab_remap.h"
#include "common/u64map.h"
#include "runtimes/hotspot.h"
#include "runtimes/javacmd.h"
#include "runtimes/memsource.h"

struct jvm {
	struct hotspot *h;     /* NULL: not (yet) a JVM we can read */
	uint64_t next_try_ns;  /* when h is NULL */
	uint32_t label;        /* its main class or jar (strtab id), 0: none */
	int label_read;
};

struct jvms {
	struct strtab *names;
	struct u64map *by_pid; /* pid -> struct jvm * */
	uint64_t opened, failed;
	struct hotspot_stats gone; /* of readers closed */
};

struct jvms *jvms__new(struct strtab *names)
{
	struct jvms *js = calloc(1, sizeof(*js));

	if (!js)
		return NULL;
	js->names = names;
	js->by_pid = u64map__new(16);
	if (!js->by_pid) {
		free(js);
		return NULL;
	}
	return js;
}

static void close_jvm(struct jvms *js, struct jvm *j)
{
	if (j->h) {
		struct hotspot_stats st;

		hotspot__stats(j->h, &st);
		js->gone.reads += st.reads;
		js->gone.failures += st.failures;
		hotspot__delete(j->h);
	}
	free(j);
}

void jvms__delete(struct jvms *js)
{
	size_t pos = 0;
	uint64_t pid, v;

	if (!js)
		return;
	while (u64map__next(js->by_pid, &pos, &pid, &v))
		close_jvm(js, (struct jvm *)(uintptr_t)v);
	u64map__delete(js->by_pid);
	free(js);
}

void jvms__forget(struct jvms *js, int pid)
{
	uint64_t v;

	if (!u64map__get(js->by_pid, (uint64_t)pid, &v))
		return;
	u64map__del(js->by_pid, (uint64_t)pid);
	close_jvm(js, (struct jvm *)(uintptr_t)v);
}

static int is_libjvm(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n >= 10 && strcmp(path + n - 10, "/libjvm.so") == 0;
}

/* Opens the reader of p's JVM if p maps libjvm.so. */
static struct hotspot *open_jvm(struct jvms *js, struct proctable *pt, struct process *p)
{
	size_t i, n = process__nmaps(p);

	for (i = 0; i < n; i++) {
		const struct proc_map *cm = process__map(p, i);
		uint64_t sym[HS_NSYMBOLS], start, end, pgoff;
		struct proc_map *m;
		struct binary *bin;
		struct memsource mem;
		struct hotspot *h;
		size_t k;

		if (!proc_map__path(cm) || !is_libjvm(strtab__str(js->names, proc_map__path(cm))))
			continue;
		/* looking the mapping up opens its binary */
		proc_map__range(cm, &start, &end, &pgoff);
		m = process__find_map(pt, p, start);
		bin = m ? proc_map__binary(m) : NULL;
		if (!bin)
			continue;
		if (binary__find_symbols(bin, hotspot_vm__symbol_names, HS_NSYMBOLS, sym) <= 0)
			return NULL;
		for (k = 0; k < HS_NSYMBOLS; k++)
			if (sym[k])
				sym[k] += proc_map__bias(m);
		memsource__process(&mem, process__pid(p));
		if (hotspot__open(&mem, sym, js->names, &h) != 0) {
			js->failed++;
			return NULL;
		}
		js->opened++;
		return h;
	}
	return NULL;
}

static struct jvm *entry(struct jvms *js, struct process *p)
{
	uint64_t pid = (uint64_t)process__pid(p), v;
	struct jvm *j;

	if (u64map__get(js->by_pid, pid, &v))
		return (struct jvm *)(uintptr_t)v;
	j = calloc(1, sizeof(*j));
	if (!j || u64map__put(js->by_pid, pid, (uint64_t)(uintptr_t)j) != 0) {
		free(j);
		return NULL;
	}
	return j;
}

struct hotspot *jvms__get(struct jvms *js, struct proctable *pt, struct process *p, uint64_t now_ns)
{
	struct jvm *j = entry(js, p);

	if (!j)
		return NULL;
	if (j->h || now_ns < j->next_try_ns)
		return j->h;
	j->h = open_jvm(js, pt, p);
	if (!j->h)
		j->next_try_ns = now_ns + JVMS_RETRY_NS;
	return j->h;
}

/* What the command line of pid runs, interned; 0 when unknown. */
static uint32_t read_label(struct jvms *js, int pid)
{
	char path[64], main[JVMS_LABEL_MAX];
	char *cmd = NULL;
	size_t len = 0;
	uint32_t id = 0;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* class paths run to hundreds of kilobytes; the main class is after */
	if (fileio__read_upto(fd, 0, JVMS_CMDLINE_MAX, &cmd, &len) == 0) {
		n = javacmd__main(cmd, len, main, sizeof(main));
		if (n > 0 && strtab__intern(js->names, main, (size_t)n, &id) < 0)
			id = 0;
		free(cmd);
	}
	close(fd);
	return id;
}

uint32_t jvms__label(struct jvms *js, struct process *p)
{
	const char *comm = strtab__str(js->names, process__comm(p));
	struct jvm *j;

	if (!comm || strcmp(comm, "java") != 0 || !(j = entry(js, p)))
		return 0;
	if (!j->label_read) {
		j->label_read = 1;
		j->label = read_label(js, process__pid(p));
	}
	return j->label;
}

int jvms__remap_names(struct jvms *js, struct strtab_remap *r)
{
	size_t pos = 0;
	uint64_t pid, v;
	int err;

	if (r->commit)
		js->names = r->to;
	while (u64map__next(js->by_pid, &pos, &pid, &v)) {
		struct jvm *j = (struct jvm *)(uintptr_t)v;

		if (j->label && strtab_remap__id(r, &j->label))
			return -ENOMEM;
		if (j->h && (err = hotspot__remap_names(j->h, r)) != 0)
			return err;
	}
	return 0;
}

void jvms__stats(const struct jvms *js, struct jvms_stats *out)
{
	size_t pos = 0;
	uint64_t pid, v;

	memset(out, 0, sizeof(*out));
	out->opened = js->opened;
	out->failed = js->failed;
	out->reads = js->gone.reads;
	out->failures = js->gone.failures;
	while (u64map__next(js->by_pid, &pos, &pid, &v)) {
		struct jvm *j = (struct jvm *)(uintptr_t)v;
		struct hotspot_stats st;

		if (!j->h)
			continue;
		out->jvms++;
		hotspot__stats(j->h, &st);
		out->reads += st.reads;
		out->failures += st.failures;
	}
}
