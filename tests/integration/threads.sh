#!/bin/sh
# Thread stacks start at the thread's entry: clone3|clone;start_thread;worker_X;spin_X
# in >= 90% of samples, and never under main.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload threads
need_perf process

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/threads" 3
keep_artifact "$TMP/out.json" threads.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK threads "$TMP/out.json" --exe threads --min 90 || fail "thread stacks wrong"
