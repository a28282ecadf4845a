#!/bin/sh
# System-wide mode (-a -d 3) while the chain workload runs: its profile (by exe)
# shows _start ... main;a;b;c in >= 90% of its samples.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain
need_perf system

"$WORKLOADS/chain" 6 &
BG_PIDS="$!"
sleep 0.5
run_smolder 60 record -a -F 999 -d 3 -o "$TMP/out.json"
keep_artifact "$TMP/out.json" chain_system.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK share "$TMP/out.json" --exe chain --first _start --seq 'main;a;b;c' --min 90 \
	--label "chain (-a)" || fail "the chain is not unwound completely often enough in -a mode"
