#!/bin/sh
# Whose a process is, read from the kernel when it matters (doc/security.md,
# 1a): processes started by root for a user after the agent, root processes
# that setuid() to a user, a user's process that execs a setuid binary, and
# the labels that keep a user's processes apart from root's and from system
# services. See hostile_creds.py.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload jit_fp chain
need_perf system
failed= ran=
for case in files setuid labels; do
	echo "--- $case"
	"$PYTHON3" "$TESTS_SRCDIR/integration/hostile_creds.py" "$case" "$SMOLDER" "$WORKLOADS" "$TESTS_SRCDIR"
	rc=$?
	[ "$rc" -eq 77 ] && continue
	ran="$ran $case"
	[ "$rc" -eq 0 ] || failed="$failed $case"
done
[ -n "$failed" ] && fail "credential checks failed:$failed"
[ -z "$ran" ] && skip "no case could be staged here (see above)"
echo "security_creds: OK ($ran )"
