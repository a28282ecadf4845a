#!/bin/sh
# A library dlopened after sampling started is symbolized: dl_outer;dl_hot.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload dlopen_main libdlwork.so
need_perf process

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/dlopen_main" 3
keep_artifact "$TMP/out.json" dlopen.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK share "$TMP/out.json" --exe dlopen_main --seq 'dl_outer;dl_hot' --min 50 \
	--label dlopen || fail "dl_outer;dl_hot not found in enough samples"
# Informational: how many of those are complete from _start.
$CHECK share "$TMP/out.json" --exe dlopen_main --first _start --seq 'main;dl_outer;dl_hot' --min 0 \
	--label "dlopen (complete from _start, informational)" 2>/dev/null | head -n 1
