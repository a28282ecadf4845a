#!/bin/sh
# A local user's attacks through their own perf map (doc/security.md, F1 and
# F2): a root-only file or a terminal bind-mounted over it from a user
# namespace. See hostile_files.py.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload jit_fp
need_perf process
for mode in secret pty; do
	echo "--- $mode"
	"$PYTHON3" "$TESTS_SRCDIR/integration/hostile_files.py" "$mode" "$SMOLDER" "$WORKLOADS/jit_fp"
	rc=$?
	[ "$rc" -eq 77 ] && skip "the user-namespace attacks cannot be staged here (see above)"
	[ "$rc" -eq 0 ] || fail "$mode"
done
