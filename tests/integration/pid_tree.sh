#!/bin/sh
# record -p follows the target's process tree: a child it started before the
# recording, children forked since (one exits after its work, one execs
# child_spin), and an heir that outlives the target, whose end the recording
# waits for. A busy process outside the tree, running meanwhile, is left out.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload late_fork child_spin chain
need_perf process
$CHECK perf-allowed system >/dev/null ||
	skip "system-wide sampling is not permitted here: -p falls back to per-thread events (the tree's older children are missed)"
TREECHECK="$PYTHON3 $TESTS_SRCDIR/integration/treecheck.py"

"$WORKLOADS/chain" 12 2>/dev/null &
other=$!
"$WORKLOADS/late_fork" 4 >"$TMP/heir" &
root=$!
BG_PIDS="$other $root"
sleep 0.5
# no -d: the recording ends when the last process of the tree has exited
# (the heir, 1.5 s after the root), long before the outsider does
run_smolder 60 record -q -F 199 -p "$root" -o "$TMP/out.json"
# a zombie counts as gone: the heir's new parent may not reap it
heir=$(cat "$TMP/heir")
heir_state=$(sed 's/.*) //' "/proc/$heir/stat" 2>/dev/null | cut -c1)
other_state=$(sed 's/.*) //' "/proc/$other/stat" 2>/dev/null | cut -c1)
keep_artifact "$TMP/out.json" pid_tree.out.json
expect_ok
expect_dump "$TMP/out.json"
[ -n "$heir" ] || fail "late_fork did not say its heir's pid"
case $heir_state in
"" | Z) ;;
*) fail "the recording ended while the tree's last process (the heir, $heir) still ran" ;;
esac
case $other_state in
"" | Z) fail "the outsider had exited before the recording ended" ;;
esac
# Counts are kept low: the machine may be shared, and the outsider takes a
# CPU; before the tree was followed, early_work had none.
$TREECHECK tree "$TMP/out.json" --exes late_fork,child_spin --filtered \
	--want early_work:20 --want forked_work:10 --want child_hot:5 --want heir_work:10 ||
	fail "record -p did not keep to the target's process tree"
