#!/bin/sh
# A thread that keeps writing a 24 KiB frame of its own while it calls a
# hot leaf, as HotSpot's C2 compiler threads do: at the default 16 KiB
# copy, the place where the copy and the live stack read after the sample
# meet has changed by the time it is read, so it proves nothing of the
# frames beyond. The workload keeps frame pointers, as HotSpot does, and
# the kernel's frame-pointer walk taken with each sample proves them
# instead: >= 95 % of the thread's samples are whole, from clone3 through
# start_thread, worker, outer_a and outer_b to churn (javac's compiler
# threads were cut after CompileBroker::compiler_thread_loop in 1.4 % of
# all its samples).
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload big_frame
need_perf process

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/big_frame" 3
keep_artifact "$TMP/out.json" deep_seam.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK share "$TMP/out.json" --exe big_frame --first "clone3,clone,__clone*" \
	--seq "start_thread;worker;outer_a;outer_b;churn" --min 95 \
	--label "a frame wider than the copy, written while read" \
	|| fail "stacks beyond a moved seam are cut"
