#!/bin/sh
# Samples in the vDSO (clock_gettime) are symbolized from the agent's own copy
# of the vDSO and unwound through it: _start ... main;read_clocks;...vdso frame.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload vdso
need_perf process

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/vdso" 3
keep_artifact "$TMP/out.json" vdso.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK share "$TMP/out.json" --exe vdso --first _start --seq 'main;read_clocks' --min 90 \
	--label "vdso (complete from _start)" || fail "stacks through the vDSO are not complete"
$CHECK share "$TMP/out.json" --exe vdso --seq 'read_clocks;clock_gettime;__vdso_clock_gettime' --min 30 \
	--label "vdso frames" || fail "no __vdso_clock_gettime frames under read_clocks"
