#!/bin/sh
# record -p (and record -- CMD) of a program whose work runs in threads that
# each live less than a sampling period and are all started after the
# recording began: their work is sampled like the same work of the
# long-lived main thread. Per-thread events inherited by each new thread
# count their period from the thread's start: in threads shorter than the
# period (5 ms at -F 199) they hardly ever fire, and the rest of the process
# is sampled at a fraction of the rate. Events on the CPUs, kept to the
# process tree, sample whatever runs there.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload late_threads
need_perf process
$CHECK perf-allowed system >/dev/null ||
	skip "system-wide sampling is not permitted here: -p falls back to per-thread events, which cannot see such threads"
TREECHECK="$PYTHON3 $TESTS_SRCDIR/integration/treecheck.py"

"$WORKLOADS/late_threads" 10 &
p=$!
BG_PIDS=$p
sleep 0.5
run_smolder 60 record -q -F 199 -d 6 -p "$p" -o "$TMP/pid.json"
keep_artifact "$TMP/pid.json" pid_late_threads.out.json
expect_ok
expect_dump "$TMP/pid.json"
$TREECHECK late-threads "$TMP/pid.json" --label "record -p" ||
	fail "record -p: threads started after the recording are not sampled like the main thread"

run_smolder 60 record -q -F 199 -o "$TMP/cmd.json" -- "$WORKLOADS/late_threads" 6
keep_artifact "$TMP/cmd.json" cmd_late_threads.out.json
expect_ok
expect_dump "$TMP/cmd.json"
$TREECHECK late-threads "$TMP/cmd.json" --label "record -- CMD" ||
	fail "record -- CMD: the command's short-lived threads are not sampled like its main thread"
