#!/bin/sh
# The agent must not change what it samples. A busy thread that shares its
# CPU with others gets its share of the samples: as many as perf record
# counts on it in the same run. The agent is woken by the samples (at every
# sample in a recording's first second and while runtimes are read); woken
# at a high priority it used to preempt the thread just sampled, whose turn
# then ended at each sample, and the next samples fell on the others: chain
# got 65-96 % of perf's count under two CPU hogs per CPU. Three runs,
# each judged: the bias showed in most runs, not in every one.
# its CPU hogs would starve the tests beside it: it runs alone
SMOLDER_TEST_ALONE=1
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain
need_perf process
perf_reference_ready || skip "perf is the reference of this test"
under=$RUN_UNDER

ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
hogs=$((ncpu * 2))
i=0
while [ "$i" -lt "$hogs" ]; do
	sh -c 'while :; do :; done' &
	BG_PIDS="$BG_PIDS $!"
	i=$((i + 1))
done
echo "$hogs CPU hogs on $ncpu CPUs"

for run in 1 2 3; do
	RUN_UNDER=$under
	run_smolder 60 record -F 999 -o "$TMP/out$run.json" -- "$WORKLOADS/chain" 1
	expect_ok
	expect_dump "$TMP/out$run.json"
	n=$(perf_reference_count chain)
	echo "run $run: perf counted $n samples of chain"
	$CHECK rate "$TMP/out$run.json" --exe chain --perf-samples "$n" ||
		fail "run $run: chain's share of the samples differs from perf's"
done
