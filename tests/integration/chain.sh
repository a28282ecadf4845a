#!/bin/sh
# Command mode on main -> a -> b -> c (-O2, no frame pointers): >= 90% of the
# workload's samples are unwound from _start down through main;a;b;c, and
# none is dropped unaccounted.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain
need_perf process

# The sample count's reference: perf's own cpu-clock samples of the same
# thread in the same run (no call graphs, so perf costs little). A VM whose
# host steals CPU loses timer periods for both alike; frequency x CPU time
# would count those against smolder. Without a working perf, that is the
# reference.
use_perf=
if [ -n "${PERF:-}" ] && [ -x "$PERF" ] &&
	timeout -k 5 30 "$PERF" record -q -e cpu-clock -o "$TMP/probe.data" -- true >"$TMP/perf.err" 2>&1; then
	use_perf=1
	RUN_UNDER="$PERF record -q -e cpu-clock -F 999 -m 1024 -o $TMP/perf.data --"
else
	echo "perf record does not work here; the sample count is judged against the CPU time"
	cat "$TMP/perf.err" 2>/dev/null
fi

mkdir "$TMP/o"
run_smolder 60 record -F 999 -o "$TMP/o/out.json" -- "$WORKLOADS/chain" 3
RUN_UNDER=
keep_artifact "$TMP/o/out.json" chain.out.json
expect_ok
expect_dump "$TMP/o/out.json"
left=$(ls -A "$TMP/o" | grep -v '^out\.json$')
[ -z "$left" ] || fail "temporary files left next to the dump: $left"
$CHECK share "$TMP/o/out.json" --exe chain --first _start --seq 'main;a;b;c' --min 90 \
	--label chain || fail "the chain is not unwound completely often enough"

if [ -n "$use_perf" ]; then
	timeout -k 5 120 "$PERF" script -i "$TMP/perf.data" -F comm >"$TMP/perf.txt" 2>"$TMP/perf.err" ||
		{ cat "$TMP/perf.err"; fail "perf script failed on perf's own recording"; }
	n=$(awk '$1 == "chain"' "$TMP/perf.txt" | wc -l)
	echo "perf counted $n samples of chain"
	$CHECK rate "$TMP/o/out.json" --exe chain --perf-samples "$n" || fail "sample count off"
else
	cpu=$(sed -n 's/^chain: cpu \([0-9.]*\) s$/\1/p' "$TMP/smolder.err" | tail -n 1)
	[ -n "$cpu" ] || fail "chain did not report its CPU time on stderr"
	$CHECK rate "$TMP/o/out.json" --exe chain --cpu "$cpu" --hz 999 || fail "sample count off"
fi
