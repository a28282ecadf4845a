#!/bin/sh
# Cross-check with perf: the top-5 leaf functions of a workload under
# `perf record --call-graph dwarf` and under smolder (separate runs) agree within
# 5 percentage points. chain (one hot leaf) and threads (spin_a/spin_b ~50/50;
# perf names its samples after the threads: worker-a, worker-b).
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain threads
need_perf process
[ -n "${PERF:-}" ] && [ -x "$PERF" ] || skip "perf not found"

if ! timeout -k 5 30 "$PERF" record -q -o "$TMP/probe.data" -- true >"$TMP/perf.err" 2>&1; then
	cat "$TMP/perf.err"
	skip "perf record does not work here"
fi

compare() {
	w=$1 secs=$2 comms=${3:-$1}
	echo "+ perf record -F 999 --call-graph dwarf -- $w $secs"
	timeout -k 5 120 "$PERF" record -q -F 999 --call-graph dwarf -o "$TMP/perf.data" \
		-- "$WORKLOADS/$w" "$secs" >"$TMP/perf.err" 2>&1 \
		|| { cat "$TMP/perf.err"; skip "perf record --call-graph dwarf failed"; }
	timeout -k 5 300 "$PERF" script -i "$TMP/perf.data" -F comm,ip,sym,dso >"$TMP/perf.txt" 2>"$TMP/perf.err" \
		|| { cat "$TMP/perf.err"; skip "perf script failed"; }
	run_smolder 60 record -F 999 -o "$TMP/$w.json" -- "$WORKLOADS/$w" "$secs"
	keep_artifact "$TMP/$w.json" "perf_compare.$w.out.json"
	expect_ok
	expect_dump "$TMP/$w.json"
	# what the workload says of itself (threads: each worker's CPU time)
	sed 's/^/  workload: /' "$TMP/smolder.out"
	$CHECK perfcmp "$TMP/$w.json" --exe "$w" --comm "$w" --perf-comm "$comms" --perf-script "$TMP/perf.txt" --tol 5 \
		|| fail "$w: leaf shares differ from perf's by more than 5 points"
}

compare chain 3
compare threads 2 threads,worker-a,worker-b
echo "perf_compare: chain and threads agree with perf within 5 points"
