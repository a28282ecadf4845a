/* One HotSpot JVM seen from outside: its code cache and the names of its
 * Java methods, read from its memory with the offsets its own vmStructs
 * tables give (runtimes/hotspot_vm.h).
 *
 * The unwinder asks what the code at a pc is (hotspot__code_at): a
 * compiled method or runtime stub with a known frame size, the bytecode
 * interpreter, the call stub through which native code entered Java, a
 * stub routine keeping an rbp frame, or a stub without a frame; and where
 * that does not hold at the very pc (a prologue, an epilogue, an
 * intrinsic that moved sp), what the code there says (hotspot__frame_at,
 * runtimes/x86_frame.h). The symbolizer asks what to call a frame
 * (hotspot__names): a compiled pc becomes its method and the methods
 * inlined at that pc (from the nmethod's scope descriptors), an
 * interpreted frame the method the interpreter keeps in it. With lines,
 * each frame carries its source file and the line of its bytecode index
 * (a scope's, or the interpreted frame's bytecode pointer), from the
 * method's line number table (runtimes/hotspot_lines.h).
 *
 * Costs: what is read is cached. Blobs are kept by code address and
 * checked again (one read) when older than a second, so a blob freed and
 * replaced gives no stale frame size; names are cached by (blob, compile
 * id, pc) and by Method*, so a reused code address never shows a stale
 * name; an unknown pc costs a few reads of the code heap's segment map,
 * and one read of the code around it for its frame, cached by pc and
 * blob identity.
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
#include <stdbool.h>
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

/* Every blob of the code cache is one of these, by its name (a C string
 * literal of HotSpot's) and frame size. */
enum hotspot_code_kind {
	HOTSPOT_NOT_CODE = 0,  /* not in the code cache, or unreadable */
	HOTSPOT_COMPILED,      /* an nmethod ("nmethod", and "native nmethod":
	                          the wrapper of a native method): sized frame,
	                          named by its Method* */
	HOTSPOT_INTERPRETER,   /* the template interpreter's code */
	HOTSPOT_CALL_STUB,     /* the return address into the call stub */
	HOTSPOT_STUB,          /* a blob with a sized frame: runtime stubs
	                          (C1's and C2's, resolve and ic-miss stubs,
	                          throw_exception), the safepoint, deopt,
	                          uncommon-trap and exception blobs */
	HOTSPOT_STUB_ROUTINES, /* the stub routines' blobs ("StubRoutines (1)",
	                          "(2)", and later JDKs' "StubRoutines (...)"):
	                          arraycopy, string and array intrinsics,
	                          crypto, CRC, math; each stub keeps an rbp
	                          frame once set up, and its blob no size */
	HOTSPOT_FRAMELESS,     /* another blob without a frame size: adapters
	                          (I2C/C2I), vtable and itable chunks, inline
	                          cache buffer, method handle adapters,
	                          signature handlers, C1's leaf runtime stubs
	                          (slow_subtype_check, G1 barriers): they run
	                          on their caller's frame with the return
	                          address at sp, or words pushed over it */
};

struct hotspot_code {
	enum hotspot_code_kind kind;
	uint64_t code_begin;     /* where the blob's instructions start */
	uint64_t code_end;       /* and end */
	uint32_t frame_bytes;    /* HOTSPOT_COMPILED/_STUB: the frame, return
	                          * address included */
	uint32_t frame_complete; /* bytes after code_begin from which the frame
	                          * is set up (before: the prologue) */
};

/* Reads the JVM's description through mem (copied; for a live process see
 * memsource__process), given its exported symbols' addresses. lines:
 * frames carry their file and line. names (borrowed) is where frame
 * names are interned. Returns 0, or hotspot_vm__read's error, or
 * -ENOMEM. */
int hotspot__open(const struct memsource *mem, const uint64_t sym[HS_NSYMBOLS], bool lines,
		  struct strtab *names, struct hotspot **out);
/* Whether it was opened with lines. */
bool hotspot__lines(const struct hotspot *h);
void hotspot__delete(struct hotspot *h);
const struct hotspot_vm *hotspot__vm(const struct hotspot *h);

/* What the code at pc is. now_ns paces re-reads. Returns the kind
 * (HOTSPOT_NOT_CODE when pc is no code the JVM knows) and fills *out. */
enum hotspot_code_kind hotspot__code_at(struct hotspot *h, uint64_t pc, uint64_t now_ns,
					struct hotspot_code *out);

/* The frame of the blob holding pc, at pc, as its code says
 * (runtimes/x86_frame.h): the code around pc is read once and followed
 * to where the frame's layout is known, then cached by pc and checked
 * against the blob. 0 with *out (its kind X86_FRAME_UNKNOWN when the code
 * said nothing usable; for a stub routine, its "enter" then an rbp frame),
 * -ENOENT when pc is in no blob's code or in the interpreter's, -EAGAIN
 * when the JVM's read budget is spent for now, -EFAULT when the code
 * could not be read. */
struct x86_frame;
int hotspot__frame_at(struct hotspot *h, uint64_t pc, uint64_t now_ns, struct x86_frame *out);

/* The interpreter frame's slots, in words from its frame pointer: the
 * Method* it runs, its caller's stack pointer before any extension, and
 * its bytecode pointer (as last saved: the interpreter keeps the current
 * one in r13). */
void hotspot__interp_slots(const struct hotspot *h, int *method_slot, int *sender_sp_slot,
			   int *bcp_slot);

/* The frames of one Java frame, innermost first, as ids interned in the
 * names table: for compiled code, the methods inlined at pc ("C.m_[i]")
 * then the compiled method ("C.m_[j]"); for an interpreted frame
 * (method: the Method* read from it), "C.m_[0]"; for a stub, its blob's
 * name ("name_[j]"). With lines, a method's frame is
 * "C.m (File.java:LINE)" with its suffix: a compiled frame's line is its
 * scope's (the call's at a return address, the next safepoint's or
 * call's at a sampled pc), an interpreted frame's that of bcp (its
 * bytecode pointer; one outside the method's bytecodes gives no line);
 * "C.m (File.java)" where no line is known, "C.m (?:LINE)" where the
 * class names no source file. Returns 0 with *n >= 1, -ENOENT when pc or
 * method cannot be named (the caller tries other sources), -EINVAL for
 * max == 0. */
int hotspot__names(struct hotspot *h, uint64_t pc, int exact, uint64_t method, uint64_t bcp,
		   uint64_t now_ns, uint32_t *ids, size_t max, size_t *n);

/* Compaction of the names table: every id held goes through
 * strtab_remap__id(). Returns 0, or -ENOMEM in the collect pass. */
int hotspot__remap_names(struct hotspot *h, struct strtab_remap *r);

struct hotspot_stats {
	uint64_t lookups;     /* hotspot__code_at calls */
	uint64_t blob_reads;  /* blobs read from the code heap (misses, re-checks) */
	uint64_t reads;       /* process_vm_readv calls */
	uint64_t failures;    /* pcs or frames that could not be read or named */
	uint64_t frames_read; /* pcs whose code was read for their frame */
	uint64_t frames_unknown; /* ... whose code said nothing usable */
};
void hotspot__stats(const struct hotspot *h, struct hotspot_stats *out);

#endif
