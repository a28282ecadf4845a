/* The process table's state, shared by the files that implement it:
 * proctable.c (the table, records, address maps) and proctable_identity.c
 * (whose a process is and what its samples are filed under: credentials,
 * user, service). Nothing outside collector/proctable*.c includes this;
 * everyone else sees proctable.h. */
#ifndef SMOLDER_COLLECTOR_PROCTABLE_STATE_H
#define SMOLDER_COLLECTOR_PROCTABLE_STATE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/proctable.h"

struct binaries;
struct strtab;
struct thread_names;
struct u64map;
struct usernames;

/* A process cannot have more executable mappings than this (hostile or
 * pathological maps: a JIT mapping thousands of pages stays bounded). */
#define MAX_MAPS 65536

/* One executable mapping. A value type, owned by its process. */
struct proc_map {
	uint64_t start, end, pgoff;
	uint64_t dev, ino;  /* 0 when unknown (plain MMAP records) */
	uint32_t path;      /* strtab id of the path; 0 for anonymous memory */
	int resolved;       /* bin/bias below are valid */
	struct binary *bin; /* NULL for anonymous memory or unresolvable */
	uint64_t bias;      /* ELF vaddr = pc - bias */
};

struct process {
	int pid;
	uint32_t comm, exe, service; /* strtab ids (0 unknown) */
	struct proc_map *maps;       /* sorted by start, non-overlapping */
	size_t nmaps, cap;
	int exe_pending;             /* exec seen, exe comes with the next exec mapping */
	uint64_t maps_reread_ns;     /* last /proc/PID/maps re-read (rate limit) */
	uint64_t exited_ns;          /* 0 while alive */
	int leader_gone;             /* the main thread exited, others run on */
	int exe_looked_up;           /* /proc/PID/exe read since the last exec */
	int service_stale;           /* exec seen: its cgroup is read again when
	                              * a sample needs the service */
	/* Its user, from its credentials as read at creds_ns (CLOCK_MONOTONIC,
	 * 0: not tried since its birth or its last exec); creds_known: a read
	 * of this image succeeded. Never copied from a parent. */
	uint64_t creds_ns;
	int creds_known;
	uint32_t user;               /* its `user` label (strtab id); 0: root's */
	/* the last name qualified by its user, and what it was made of */
	uint32_t qual_from, qual_user, qual;
	/* Live threads, counted from FORK and EXIT records for a process born
	 * while we watch and single-threaded at each exec; otherwise unknown,
	 * and /proc says whether a thread lives on (a read per exit, which
	 * fails for the short-lived processes that make up exec churn). */
	unsigned nthreads;
	int nthreads_known;
	uint32_t jitdump;            /* path of its jit-PID.dump mapping, 0: none */
	struct thread_names *threads; /* with keep_thread_names; NULL until a
	                              * thread other than the main one is named */
};

struct proctable {
	struct strtab *names;
	struct binaries *bs;
	struct u64map *by_pid; /* pid -> struct process * */
	size_t nexited;
	uint32_t vdso_path; /* id of "[vdso]" */
	uint32_t unknown_user; /* id of PROCTABLE_USER_UNKNOWN */
	uint64_t load_cpu_ns; /* reading processes from /proc */
	int keep_thread_names;
	struct usernames *users;
	void (*image_gone)(void *ctx, int pid);
	void *image_gone_ctx;
};

/* s[0..len) interned; 0 for an empty string or on ENOMEM. */
uint32_t proctable__intern(struct proctable *pt, const char *s, size_t len);
/* Reads a small /proc/PID/<name> file into buf (NUL-terminated). */
ssize_t proctable__read_proc_file(int pid, const char *name, char *buf, size_t size);
/* The system service process pid runs in (collector/service_unit.h),
 * interned; 0: none, or its cgroup could not be read. */
uint32_t proctable__read_service(struct proctable *pt, int pid);
/* An exec of p was seen: who it is is read again at its next use. */
void proctable__identity_exec(struct process *p);
/* The ids of p's identity through strtab_remap__id(). */
int proctable__remap_identity(struct process *p, struct strtab_remap *r);

#endif
