#!/bin/sh
# JIT code without CFI between C frames: main -> run_jit -> jit_trampoline
# (anonymous executable memory, named in /tmp/perf-PID.map, with a frame
# pointer) -> jit_callee -> jit_spin. The unwinder steps over the stub by
# frame pointer and returns to CFI: >= 95% of the samples from _start
# through the named stub.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload jit_fp
need_perf process
[ "$(uname -m)" = x86_64 ] || skip "the stub is x86-64 machine code"

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/jit_fp" 2
[ "$SM_RC" -eq 0 ] || fail "record failed"
keep_artifact "$TMP/out.json" jit_fp.out.json
$CHECK share "$TMP/out.json" --exe jit_fp --first _start \
	--seq 'main;run_jit;jit_trampoline_[j];jit_callee;jit_spin' --min 95 --label "jit_fp" ||
	fail "the stack is not unwound through the JIT stub back to _start"
