#!/bin/sh
# fork + exec: the children's samples land in a child_spin profile (exe and
# comm child_spin, with child_hot); parent and child stacks are not mixed.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload forkexec child_spin
need_perf process

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/forkexec" 3
keep_artifact "$TMP/out.json" forkexec.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK forkexec "$TMP/out.json" || fail "fork/exec attribution wrong"
