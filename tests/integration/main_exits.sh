#!/bin/sh
# A process whose main thread calls pthread_exit while two workers run on
# (worker -> w_outer -> w_spin): its state must live until its last thread
# does, and its maps and exe must be read through a live thread (the zombie
# leader's /proc/PID/maps is empty). >= 95% of the workers' samples must be
# complete and named, recorded as a command, with -p after the leader
# exited, and system-wide with the process started before smolder.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload main_exits
need_perf process

workers() {
	$CHECK share "$1" --exe main_exits --first '__clone3,__clone,clone3,clone' \
		--seq 'start_thread;worker;w_outer;w_spin' --min 95 --label "$2" ||
		fail "$2: the workers' stacks are not complete and named"
}

mkdir "$TMP/o"
run_smolder 60 record -F 999 -o "$TMP/o/cmd.json" -- "$WORKLOADS/main_exits" 3
expect_ok
keep_artifact "$TMP/o/cmd.json" main_exits-cmd.out.json
workers "$TMP/o/cmd.json" "command"

# Long enough to outlive both records on a loaded host (each one's
# start-up can take seconds while the suite runs in parallel); killed after.
"$WORKLOADS/main_exits" 60 &
pid=$!
BG_PIDS="$BG_PIDS $pid"
sleep 1 # the leader has exited: only the workers run
grep -q '^State:.*Z' "/proc/$pid/status" || fail "the workload's main thread did not exit"
run_smolder 60 record -F 499 -p "$pid" -d 2 -o "$TMP/o/pid.json"
expect_ok
keep_artifact "$TMP/o/pid.json" main_exits-pid.out.json
workers "$TMP/o/pid.json" "-p after the leader exited"

need_perf system
run_smolder 60 record -F 499 -a -d 2 -o "$TMP/o/all.json"
expect_ok
keep_artifact "$TMP/o/all.json" main_exits-all.out.json
kill -0 "$pid" 2>/dev/null || fail "the workload ended before the system-wide record did"
workers "$TMP/o/all.json" "system-wide, process older than smolder"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
exit 0
