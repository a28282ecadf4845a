/* Where Go's runtime keeps what joins a thread's g0 stack to the goroutine
 * it runs for (src/runtime/runtime2.go of each version, checked against
 * the instructions of runtime.mcall and runtime.systemstack in real
 * binaries of Go 1.19, 1.23, 1.24 and 1.25, which address these fields by
 * these offsets):
 *
 *   g.stack (lo, hi)   0   the first field of g in every version
 *   g.m               48   after stack (16), stackguard0, stackguard1,
 *                          _panic, _defer
 *   g.sched           56   a gobuf, right after g.m
 *   gobuf.sp, .pc    0, 8
 *   gobuf.bp          48   after sp, pc, g, ctxt, ret, lr; 40 from Go 1.26,
 *                          which dropped gobuf.ret
 *   m.g0               0
 *   m.curg           192   after g0, morebuf (a gobuf, 56 bytes), divmod,
 *                          procid, gsignal, goSigStack (40), sigmask (8),
 *                          tls (6 words), mstartfn; 184 from Go 1.26 (the
 *                          smaller morebuf)
 *
 * Only from Go 1.17 on: the g of a thread is in R14 (the ABIInternal g
 * register), which a sample carries; before, it is in thread-local storage
 * that a sample does not show. Thread-safe (constant data). */
#ifndef SMOLDER_RUNTIMES_GOLAYOUT_H
#define SMOLDER_RUNTIMES_GOLAYOUT_H
#include <stdint.h>

#include "runtimes/gobuildinfo.h"

struct golayout {
	uint32_t g_stack, g_m, g_sched;
	uint32_t gobuf_sp, gobuf_pc, gobuf_bp;
	uint32_t m_g0, m_curg;
	uint32_t g_bytes;  /* of g read at once: stack, m and sched */
};

/* The layout of version v: 0 with *out, -ENOTSUP before Go 1.17 (or an
 * unknown version). */
int golayout__for(const struct goversion *v, struct golayout *out);

#endif
