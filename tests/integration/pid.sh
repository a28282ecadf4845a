#!/bin/sh
# -p PID,...: attach to running processes (threads included) for -d seconds;
# without a limit that is reached first, recording ends when they all exit.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain threads
need_perf process

"$WORKLOADS/chain" 6 2>/dev/null &
p1=$!
"$WORKLOADS/threads" 6 &
p2=$!
BG_PIDS="$p1 $p2"
sleep 0.5
run_smolder 60 record -F 999 -d 2 -p "$p1,$p2" -o "$TMP/out.json"
keep_artifact "$TMP/out.json" pid.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK share "$TMP/out.json" --exe chain --first _start --seq 'main;a;b;c' --min 90 \
	--label "chain (-p)" || fail "chain attached with -p not unwound completely"
$CHECK threads "$TMP/out.json" --exe threads --min 90 || fail "threads attached with -p: thread stacks wrong"

# Attached processes exit after ~5 s (a margin for smolder's start-up on a
# loaded machine); -d 300 must not keep smolder running.
"$WORKLOADS/chain" 5 2>/dev/null &
p3=$!
BG_PIDS="$BG_PIDS $p3"
sleep 0.3
start=$(date +%s)
run_smolder 30 record -F 99 -d 300 -p "$p3" -o "$TMP/out2.json"
end=$(date +%s)
echo "pid: recording of a process that exits after ~5 s took $((end - start)) s"
expect_ok
expect_dump "$TMP/out2.json"
$CHECK share "$TMP/out2.json" --exe chain --seq 'main;a;b;c' --min 90 --label "chain (-p, until exit)" \
	|| fail "chain attached until exit"
