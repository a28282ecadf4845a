#!/bin/sh
# Recursion far deeper than anything read (2.5 MB: the stack copy and the
# 256 KiB read beyond it, or 512 frames): the cut is counted and shown (a
# [truncated] root, not a fake one), no crash, valid dump; also with a small
# --stack-size, and a chain cut by --max-frames.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload recurse
need_perf process

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/recurse" 2
keep_artifact "$TMP/out.json" recursion.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK recursion "$TMP/out.json" --exe recurse || fail "recursion (default stack size)"

run_smolder 60 record -F 999 --stack-size 4096 -o "$TMP/out2.json" -- "$WORKLOADS/recurse" 2
expect_ok
expect_dump "$TMP/out2.json"
$CHECK recursion "$TMP/out2.json" --exe recurse || fail "recursion (--stack-size 4096)"

# --max-frames cuts main -> a -> b -> c: the stacks say so at their root.
need_workload chain
run_smolder 60 record -F 999 --max-frames 2 -o "$TMP/out3.json" -- "$WORKLOADS/chain" 1
expect_ok
$CHECK share "$TMP/out3.json" --exe chain --first '[truncated]' --seq 'b;c' --min 90 \
	--label "--max-frames 2" || fail "stacks cut by --max-frames do not start with [truncated]"
