#!/bin/sh
# Command mode on main -> a -> b -> c (-O2, no frame pointers): >= 90% of the
# workload's samples are unwound from _start down through main;a;b;c, and
# none is dropped unaccounted.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain
need_perf process

# The sample count's reference: perf's count of the same thread in the same
# run, or, where perf cannot record, frequency x the CPU time chain reports.
use_perf=
perf_reference_ready && use_perf=1

mkdir "$TMP/o"
run_smolder 60 record -F 999 -o "$TMP/o/out.json" -- "$WORKLOADS/chain" 3
keep_artifact "$TMP/o/out.json" chain.out.json
expect_ok
expect_dump "$TMP/o/out.json"
left=$(ls -A "$TMP/o" | grep -v '^out\.json$')
[ -z "$left" ] || fail "temporary files left next to the dump: $left"
$CHECK share "$TMP/o/out.json" --exe chain --first _start --seq 'main;a;b;c' --min 90 \
	--label chain || fail "the chain is not unwound completely often enough"

if [ -n "$use_perf" ]; then
	n=$(perf_reference_count chain)
	echo "perf counted $n samples of chain"
	$CHECK rate "$TMP/o/out.json" --exe chain --perf-samples "$n" || fail "sample count off"
else
	cpu=$(sed -n 's/^chain: cpu \([0-9.]*\) s$/\1/p' "$TMP/smolder.err" | tail -n 1)
	[ -n "$cpu" ] || fail "chain did not report its CPU time on stderr"
	$CHECK rate "$TMP/o/out.json" --exe chain --cpu "$cpu" --hz 999 || fail "sample count off"
fi
