#!/bin/sh
# Syscall-heavy loop: kernel frames (_[k]) appear leafward of the user frames
# (main;...;do_reads;...), never a user frame after a kernel one.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload syscalls
need_perf kernel

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/syscalls" 3
keep_artifact "$TMP/out.json" syscalls.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK syscalls "$TMP/out.json" --exe syscalls || fail "kernel/user frame order wrong"
