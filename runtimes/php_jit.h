/* What proves which PHP function opcache's tracing JIT ran at a sample.
 *
 * JIT code keeps the frame it runs in r14, as the VM does, but not always
 * its instruction in r15 (the JIT uses r15 as a scratch register): the
 * frame's address alone does not tell one call from the next one placed
 * at the same address, so it proves nothing. The code at the sample's pc
 * does: every trace the tracing JIT compiles begins by storing its number
 * in the executor globals (EG(jit_trace_num)):
 *
 *     mov rax, imm64 (&EG.jit_trace_num); mov dword [rax], N   (PIE)
 *     mov dword [disp32 (&EG.jit_trace_num)], N                (non-PIE)
 *
 * and a trace is one stretch of code, its cold paths after it, up to the
 * next trace's start. A root trace is entered through the handler of the
 * instruction it starts at: that instruction's zend_op.handler is the
 * trace's first byte. So the nearest trace start at or below the pc,
 * found as the handler of one of the function's instructions, says the
 * code running was compiled from that function: with the frame in r14
 * running that function when read, the sample proves the frame, as a
 * pointer into its opcodes in r15 would. The instruction found stands for
 * that pointer (php_jit__witness).
 *
 * A trace that went on into a callee's code (the tracing JIT inlines
 * calls) runs the callee's frame under the caller's trace: no proof, the
 * frame is shown unproven. So is code the function JIT compiled
 * (opcache.jit=function: no trace starts), and a side trace (entered from
 * another trace's exit, never through a handler).
 *
 * Code is read backward from the pc, at most PHP_JIT_SCAN_BYTES, and a
 * function's instructions at most PHP_JIT_OPS_MAX; both answers are cached
 * for PHP_JIT_TTL_NS (JIT code is never rewritten until opcache restarts
 * and reuses its buffer), a scan's for every pc between the start it
 * found and the pc it began at. Not thread-safe. */
#ifndef SMOLDER_RUNTIMES_PHP_JIT_H
#define SMOLDER_RUNTIMES_PHP_JIT_H
#include <stdint.h>

struct memsource;
struct php_layout;

#define PHP_JIT_SCAN_BYTES 16384
#define PHP_JIT_OPS_MAX 8192
#define PHP_JIT_TTL_NS 1000000000ull
/* Bytes of the executor globals a trace start may store into: what
 * zend_executor_globals spans in 8.x (jit_trace_num is at 0x1f8 in 8.2). */
#define PHP_JIT_EG_SPAN 0x800

struct php_jit;

/* A cache over the process whose executor globals are at eg. NULL on
 * ENOMEM. */
struct php_jit *php_jit__new(uint64_t eg);
void php_jit__delete(struct php_jit *j);

/* For JIT code at pc (where the frame was, or just before a return
 * address) run in a frame of the function whose opcodes are [opcodes,
 * opcodes + last instructions): 0 with *opline, the instruction of that
 * function whose handler is the start of the trace holding pc; -ENOENT
 * when no trace start precedes pc within reach or none of the function's
 * handlers is it (no proof); a read's -errno. */
int php_jit__witness(struct php_jit *j, struct memsource *m, const struct php_layout *l,
		     uint64_t pc, uint64_t opcodes, uint32_t last, uint64_t now_ns,
		     uint64_t *opline);

/* Trace starts found by scanning code, and answers served from the
 * caches, since the cache was made. */
void php_jit__counts(const struct php_jit *j, uint64_t *scans, uint64_t *hits);

#endif
