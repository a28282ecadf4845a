/* One HotSpot JVM seen from outside: its code cache and the names of its
 * Java methods, read from its memory with the offsets its own vmStructs
 * tables give (runtimes/hotspot_vm.h).
 *
 * The unwinder asks what the code at a pc is (hotspot__code_at): a
 * compiled method or runtime stub with a known frame size, the bytecode
 * interpreter, the call stub through which native code entered Java, or a
 * stub without a frame. The symbolizer asks what to call a frame
 * (hotspot__names): a compiled pc becomes its method and the methods
 * inlined at that pc (from the nmethod's scope descriptors), an
 * interpreted frame the method the interpreter keeps in it.
 *
 * Costs: what is read is cached. Blobs are kept by code address and
 * checked again (one read) when older than a second, so a blob freed and
 * replaced gives no stale frame size; names are cached by (blob, compile
 * id, pc) and by Method*, so a reused code address never shows a stale
 * name; an unknown pc costs a few reads of the code heap's segment map.
 * Uncached lookups stop for the rest of a second once the JVM's ledger
 * (runtimes/accountant.h, through its memsource) has no reads left in it
 * (a JVM starting up compiles thousands of methods a second; a process
 * posing as one gets no more). Nothing is written to the
 * target and it is never signalled or stopped. Every read is validated;
 * a JVM whose memory changes under us, or a process posing as one, costs
 * bounded work and yields "not Java", never a crash.
 * Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_HOTSPOT_H
#define SMOLDER_RUNTIMES_HOTSPOT_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtimes/hotspot_vm.h"
#include "runtimes/memsource.h"

struct hotspot;
struct strtab;
struct strtab_remap;

/* Blobs kept per JVM; past it the cache starts over. */
#define HOTSPOT_MAX_BLOBS 8192
/* A cached blob is read again after this long. */
#define HOTSPOT_RECHECK_NS 1000000000ull

enum hotspot_code_kind {
	HOTSPOT_NOT_CODE = 0,  /* not in the code cache, or unreadable */
	HOTSPOT_COMPILED,      /* an nmethod: sized frame, scopes */
	HOTSPOT_INTERPRETER,   /* the template interpreter's code */
	HOTSPOT_CALL_STUB,     /* the return address into the call stub */
	HOTSPOT_STUB,          /* a runtime stub with a sized frame */
	HOTSPOT_FRAMELESS,     /* a stub without a frame of its own */
};

struct hotspot_code {
	enum hotspot_code_kind kind;
	uint64_t code_begin;     /* where the blob's instructions start */
	uint32_t frame_bytes;    /* HOTSPOT_COMPILED/_STUB: the frame, return
	                          * address included */
	uint32_t frame_complete; /* bytes after code_begin from which the frame
	                          * is set up (before: the prologue) */
};

/* Reads the JVM's description through mem (copied; for a live process see
 * memsource__process), given its exported symbols' addresses. names
 * (borrowed) is where frame names are interned. Returns 0, or
 * hotspot_vm__read's error, or -ENOMEM. */
int hotspot__open(const struct memsource *mem, const uint64_t sym[HS_NSYMBOLS],
		  struct strtab *names, struct hotspot **out);
void hotspot__delete(struct hotspot *h);
const struct hotspot_vm *hotspot__vm(const struct hotspot *h);

/* What the code at pc is. now_ns paces re-reads. Returns the kind
 * (HOTSPOT_NOT_CODE when pc is no code the JVM knows) and fills *out. */
enum hotspot_code_kind hotspot__code_at(struct hotspot *h, uint64_t pc, uint64_t now_ns,
					struct hotspot_code *out);

/* The interpreter frame's slots, in words from its frame pointer: the
 * Method* it runs and its caller's stack pointer before any extension. */
void hotspot__interp_slots(const struct hotspot *h, int *method_slot, int *sender_sp_slot);

/* The frames of one Java frame, innermost first, as ids interned in the
 * names table: for compiled code, the methods inlined at pc ("C.m_[i]")
 * then the compiled method ("C.m_[j]"); for an interpreted frame
 * (method: the Method* read from it), "C.m_[0]"; for a stub, its blob's
 * name ("name_[j]"). Returns 0 with *n >= 1, -ENOENT when pc or method
 * cannot be named (the caller tries other sources), -EINVAL for max == 0. */
int hotspot__names(struct hotspot *h, uint64_t pc, int exact, uint64_t method, uint64_t now_ns,
		   uint32_t *ids, size_t max, size_t *n);

/* Compaction of the names table: every id held goes through
 * strtab_remap__id(). Returns 0, or -ENOMEM in the collect pass. */
int hotspot__remap_names(struct hotspot *h, struct strtab_remap *r);

struct hotspot_stats {
	uint64_t lookups;     /* hotspot__code_at calls */
	uint64_t blob_reads;  /* blobs read from the code heap (misses, re-checks) */
	uint64_t reads;       /* process_vm_readv calls */
	uint64_t failures;    /* pcs or frames that could not be read or named */
};
void hotspot__stats(const struct hotspot *h, struct hotspot_stats *out);

#endif
