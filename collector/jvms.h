/* The HotSpot JVMs among the processes sampled, each with its reader
 * (runtimes/hotspot.h). A process is looked at when a sample of it runs
 * code no binary holds (that is where a JVM's compiled and interpreted
 * code lives): if it maps libjvm.so and that file exports the vmStructs
 * tables, the reader is opened on its memory. A process that is no JVM,
 * or whose tables cannot be read, is looked at again at most once every
 * JVMS_RETRY_NS (the launcher maps libjvm.so after it starts). A reader
 * lives as long as the process image. Not thread-safe. */
#ifndef SMOLDER_COLLECTOR_JVMS_H
#define SMOLDER_COLLECTOR_JVMS_H
#include <stddef.h>
#include <stdint.h>

struct hotspot;
struct jvms;
struct process;
struct proctable;
struct strtab;
struct strtab_remap;

#define JVMS_RETRY_NS 1000000000ull

/* names (borrowed) is where the readers intern frame names. */
struct jvms *jvms__new(struct strtab *names);
void jvms__delete(struct jvms *js);

/* The reader of process p's JVM, or NULL when it is none (yet). */
struct hotspot *jvms__get(struct jvms *js, struct proctable *pt, struct process *p, uint64_t now_ns);
/* A JVM's main class, jar, module or source file from its command line
 * (runtimes/javacmd.h), read once per process; 0 for a process whose comm
 * is not "java" or whose command line runs nothing recognisable. It
 * stands in for the service name when no systemd unit gives one, so two
 * Java services on one host are two profiles. */
#define JVMS_LABEL_MAX 256
#define JVMS_CMDLINE_MAX (1u << 20)
uint32_t jvms__label(struct jvms *js, struct process *p);
/* The image of pid went (exec, exit): its reader is closed. */
void jvms__forget(struct jvms *js, int pid);

int jvms__remap_names(struct jvms *js, struct strtab_remap *r);

struct jvms_stats {
	uint64_t jvms;        /* readers open now */
	uint64_t opened;      /* readers opened since start */
	uint64_t failed;      /* JVMs whose tables could not be read */
	uint64_t reads;       /* reads of JVM memory, all readers since start */
	uint64_t failures;    /* pcs or frames no reader could read or name */
};
void jvms__stats(const struct jvms *js, struct jvms_stats *out);

#endif
