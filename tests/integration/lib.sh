# Shared helpers of the integration tests; sourced by each tests/integration/*.sh.
# Environment (from AM_TESTS_ENVIRONMENT): SMOLDER, WORKLOADS, TESTS_SRCDIR,
# PYTHON3, PERF, STRIP. Exit codes follow automake: 0 pass, 1 fail, 77 skip.

set -u

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

: "${SMOLDER:?SMOLDER is not set (run through make check)}"
: "${WORKLOADS:?WORKLOADS is not set (run through make check)}"
: "${TESTS_SRCDIR:?TESTS_SRCDIR is not set (run through make check)}"

[ -x "$SMOLDER" ] || fail "smolder binary not found at $SMOLDER"
[ -n "${PYTHON3:-}" ] || skip "python3 not found at configure time (needed by dumpcheck.py)"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) not found"

CHECK="$PYTHON3 $TESTS_SRCDIR/integration/dumpcheck.py"

# The build tree's CPU lock. A test that loads every CPU on purpose
# (SMOLDER_TEST_ALONE=1 before sourcing this file) holds it exclusively
# and runs alone; every other test shares it. make check runs two tests at
# a time: beside sample_bias's CPU hogs, a neighbour's workload got a
# seventh of a CPU and its sample counts failed (and sample_bias's own
# comparison with perf, beside the neighbour). A process that outlives
# its test keeps the lock open, so the waits are bounded: past them the
# test runs anyway.
if command -v flock >/dev/null 2>&1 && exec 8>>"${WORKLOADS%/*}/.cpu.lock"; then
	if [ -n "${SMOLDER_TEST_ALONE:-}" ]; then
		flock -w 600 -x 8 || echo "(the CPU lock was not free in 600 s: running beside others)"
	else
		flock -w 600 -s 8 || echo "(the CPU lock was not free in 600 s)"
	fi
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/smolder-itest.XXXXXX") || fail "mktemp -d failed"
BG_PIDS=
cleanup() {
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

need_workload() {
	for w in "$@"; do
		[ -x "$WORKLOADS/$w" ] || [ -f "$WORKLOADS/$w" ] || fail "workload $WORKLOADS/$w not built"
	done
}

# need_perf process|kernel|system: skip unless perf_event_open sampling with user
# registers and stack is permitted here.
need_perf() {
	$CHECK perf-allowed "$1" || {
		rc=$?
		[ "$rc" -eq 77 ] && skip "perf_event_open not permitted/supported for $1 sampling here"
		fail "perf-allowed probe failed (status $rc)"
	}
}

# run_smolder SECONDS ARGS...: run smolder under timeout, stdout/stderr to
# $TMP/smolder.out/.err; sets SM_RC; fails on timeout or death by signal.
# RUN_UNDER, when set, is a command line smolder runs under (perf record ...).
run_smolder() {
	_t=$1
	shift
	echo "+ smolder $*"
	timeout -k 5 "$_t" ${RUN_UNDER:-} "$SMOLDER" "$@" >"$TMP/smolder.out" 2>"$TMP/smolder.err"
	SM_RC=$?
	echo "  exit status $SM_RC"
	if [ -s "$TMP/smolder.err" ]; then
		echo "  stderr (last 15 lines):"
		tail -n 15 "$TMP/smolder.err" | sed 's/^/    /'
	fi
	[ "$SM_RC" -eq 124 ] && fail "smolder did not finish within ${_t}s"
	[ "$SM_RC" -ge 128 ] && fail "smolder died by signal $((SM_RC - 128))"
	return 0
}

# expect_ok: the last run exited 0.
expect_ok() {
	[ "$SM_RC" -eq 0 ] || fail "smolder exited with status $SM_RC, expected 0"
}

# expect_dump FILE: the file exists and is a valid dump; prints the summary.
expect_dump() {
	[ -f "$1" ] || fail "no dump written at $1"
	$CHECK validate "$1" || fail "dump $1 is not a valid smolder.profile/v1 dump"
}

# keep_artifact FILE NAME: copy an output next to the test logs (builddir
# tests/integration/, cleaned by make clean) for post-mortems.
keep_artifact() {
	[ -f "$1" ] && [ -d tests/integration ] && cp "$1" "tests/integration/$2" 2>/dev/null
	return 0
}

# A sample count's reference: perf record's own cpu-clock samples (no call
# graphs: perf costs little) of the same threads in the same run, counted
# by comm. A VM whose host steals CPU loses timer periods for both alike
# (the kernel folds a timer's missed periods into one sample), which
# frequency x CPU time would count against smolder.
# perf_reference_ready: sets RUN_UNDER so that the next run_smolder runs
# under perf record; returns 1 (after saying why) where perf cannot record.
perf_reference_ready() {
	if [ -n "${PERF:-}" ] && [ -x "$PERF" ] &&
		timeout -k 5 30 "$PERF" record -q -e cpu-clock -o "$TMP/probe.data" -- true >"$TMP/perf.err" 2>&1; then
		RUN_UNDER="$PERF record -q -e cpu-clock -F 999 -m 1024 -o $TMP/perf.data --"
		return 0
	fi
	echo "perf record does not work here:"
	cat "$TMP/perf.err" 2>/dev/null
	return 1
}

# perf_reference_count COMM: prints how many of perf's samples were of COMM.
perf_reference_count() {
	RUN_UNDER=
	timeout -k 5 120 "$PERF" script -i "$TMP/perf.data" -F comm >"$TMP/perf.txt" 2>"$TMP/perf.err" ||
		{ cat "$TMP/perf.err"; fail "perf script failed on perf's own recording"; }
	awk -v c="$1" '$1 == c' "$TMP/perf.txt" | wc -l
}

# make_bomb DIR: builds DIR/bomb.so (tests/workloads/make_bomb.sh): a small
# library whose debug data is as expensive to load as a user can make it.
# Skips without the tools.
make_bomb() {
	sh "$TESTS_SRCDIR/workloads/make_bomb.sh" "$1"
	_rc=$?
	[ "$_rc" -eq 77 ] && skip "cannot build the bombs (see above)"
	[ "$_rc" -eq 0 ] || fail "building the bomb failed"
}
