#!/bin/sh
# A stable base of 300 frames (some 60 KiB, deeper than the default 16 KiB
# stack copy) under a hot leaf, at default settings: >= 95% of the samples
# are whole, from _start through main and all 300 frames to the leaf, the
# part beyond the copy read from the thread's live stack.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload deep_base
need_perf process

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/deep_base" 3
keep_artifact "$TMP/out.json" deep_stack.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK deep "$TMP/out.json" --exe deep_base --first _start --frame base --depth 300 \
	--leaf leaf --min 95 --label "300-frame base" || fail "deep stacks are not kept whole"
