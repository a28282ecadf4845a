/* Where a Go stack ends. Go's call-frame information (in .debug_frame)
 * describes every function but marks no outermost frame, and Go switches
 * stacks inside the runtime: a goroutine runs on its own stack and calls
 * into the runtime's work on the thread's g0 stack through a few assembly
 * functions. Seen from the copied stack, an unwind through them would read
 * stale words as return addresses and make up frames. These are the
 * functions where a Go stack is complete:
 *
 *  - roots: runtime.goexit (every goroutine's first frame), runtime.mstart
 *    (every thread's g0 stack), runtime.rt0_go (the process's start);
 *  - stack switches, as callers: runtime.systemstack, runtime.mcall and
 *    runtime.morestack call on the g0 stack; reached as a return address, they are the root of the g0 side of the stack
 *    (the goroutine's frames are on another stack, not in the copy). Being
 *    sampled in one of them (frame 0) is still on the goroutine's stack.
 *
 * Assembly functions carry an ".abi0" suffix in the symbol table
 * (runtime.goexit.abi0); both spellings are known. (runtime.asmcgocall,
 * the switch into C code, is left out: it has a Go wrapper of the same name
 * on the goroutine's stack, and C code has CFI of its own.) Thread-safe. */
#ifndef SMOLDER_RUNTIMES_GOSTACK_H
#define SMOLDER_RUNTIMES_GOSTACK_H
#include <stddef.h>

enum gostack_kind {
	GOSTACK_NONE = 0,
	GOSTACK_ROOT,   /* a stack ends in it, wherever it is in the stack */
	GOSTACK_SWITCH, /* a stack ends in it when it is a caller (not the leaf) */
};

/* The kind of the function named name[0..len). */
enum gostack_kind gostack__kind(const char *name, size_t len);

/* Whether an ELF file is a Go program, from its section names: it has
 * .gopclntab or .go.buildinfo (every Go linker since 1.2 writes the first). */
int gostack__is_go_section(const char *section_name);

#endif
