#!/bin/sh
# The emulated kernel matrix (doc/compat.md): smolder runs under
# tests/legacy/kernel_shim.so, which makes perf_event_open answer as 2.6.32,
# 3.10 (upstream) or 4.4 would, and once natively. Per row: `smolder probe`
# names the fallbacks and the mode (2.6.32: frame pointers, else dwarf), and
# the core workloads (chain, threads, forkexec) give correct stacks, and
# off-cpu times waits (switch records on 4.4 and natively, the sched_switch
# tracepoint on 3.10 and 2.6.32) with the CPU part beside it. The
# 2.6.32 row profiles frame-pointer builds of the workloads (tests/legacy/fp/).
# SMOLDER_MATRIX_ROWS="3.10 native" runs a subset.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain threads forkexec child_spin waits
need_perf process

BUILDDIR=$(cd "$(dirname "$SMOLDER")" && pwd)
SHIM=$BUILDDIR/tests/legacy/kernel_shim.so
FPW=$BUILDDIR/tests/legacy/fp
[ -f "$SHIM" ] || fail "shim not built at $SHIM"
for w in chain threads forkexec child_spin waits; do
	[ -x "$FPW/$w" ] || fail "frame-pointer workload $FPW/$w not built"
done

# An ASan build of smolder must have the ASan runtime first in the library
# list: preload it before the shim (the shim itself is not instrumented; ASan
# has no interceptor for syscall(), so the shim's still comes before libc's).
PRELOAD=$SHIM
asan_lib=$(ldd "$SMOLDER" 2>/dev/null | awk '/libasan/ { print $3; exit }')
if [ -n "$asan_lib" ]; then
	PRELOAD="$asan_lib $SHIM"
	echo "smolder is built with ASan: LD_PRELOAD=\"$PRELOAD\""
fi

ROWS=${SMOLDER_MATRIX_ROWS:-"2.6.32 3.10 4.4 native"}
ART=tests/legacy
[ -d "$ART" ] || ART=

# in_row ROW CMD...: CMD with perf_event_open answering as ROW's kernel.
in_row() {
	_row=$1
	shift
	if [ "$_row" = native ]; then
		"$@"
	else
		env LD_PRELOAD="$PRELOAD" SMOLDER_FAKE_KERNEL="$_row" "$@"
	fi
}

# record ROW NAME SECONDS WORKLOAD...: profile a workload in a row. The
# workload itself runs without the shim (through env -u: one more exec for
# the process table to follow, which the no-comm_exec rows must detect).
record() {
	_row=$1 _name=$2 _t=$3
	shift 3
	_out=$TMP/$_row-$_name.json
	echo "+ [$_row] smolder record -F 499 -- $*"
	in_row "$_row" timeout -k 5 "$_t" "$SMOLDER" record -F 499 -o "$_out" -- \
		env -u LD_PRELOAD -u SMOLDER_FAKE_KERNEL "$@" >"$TMP/rec.out" 2>"$TMP/rec.err"
	_rc=$?
	if [ "$_rc" -ne 0 ]; then
		tail -n 15 "$TMP/rec.err" | sed 's/^/    /'
		fail "[$_row] smolder record of $_name exited with status $_rc"
	fi
	grep -i 'mode' "$TMP/rec.err" | head -n 2 | sed 's/^/    /'
	[ -n "$ART" ] && cp "$_out" "$ART/$_row-$_name.out.json" 2>/dev/null
	$CHECK validate "$_out" >/dev/null || fail "[$_row] $_name: invalid dump"
	return 0
}

# expect_feature FILE NAME yes|no: the probe's line for feature NAME.
expect_feature() {
	_line=$(grep -F "  $2 " "$1" | head -n 1)
	case "$_line" in
	*" $3 "* | *" $3") ;;
	*) fail "probe: expected '$2' to be '$3', got: ${_line:-nothing}" ;;
	esac
}

failed=
for row in $ROWS; do
	echo
	echo "=== row $row ==="
	pf=$TMP/$row.probe.txt
	in_row "$row" timeout -k 5 30 "$SMOLDER" probe >"$pf" 2>"$TMP/probe.err"
	prc=$?
	[ -n "$ART" ] && cp "$pf" "$ART/$row.probe.txt" 2>/dev/null
	sed -n '/^features:/,$p' "$pf" | sed 's/^/  | /'
	[ "$prc" -eq 0 ] || fail "[$row] smolder probe exited with status $prc"
	case $row in
	2.6.32)
		grep -q '^mode: frame-pointer unwinding' "$pf" || fail "[$row] probe did not pick frame pointers"
		grep -q "the kernel's 64)" "$pf" || fail "[$row] probe did not learn the kernel's attr size 64"
		expect_feature "$pf" PERF_FLAG_FD_CLOEXEC no
		expect_feature "$pf" sample_id_all no
		expect_feature "$pf" REGS_USER/STACK_USER no
		expect_feature "$pf" exclude_callchain_user no
		expect_feature "$pf" MMAP2 no
		expect_feature "$pf" comm_exec no
		expect_feature "$pf" "use_clockid (MONOTONIC)" no
		expect_feature "$pf" "context_switch (SWITCH)" no
		expect_feature "$pf" "sched_switch tracepoint" yes
		;;
	3.10)
		grep -q '^mode: dwarf unwinding' "$pf" || fail "[$row] probe did not pick dwarf"
		expect_feature "$pf" "context_switch (SWITCH)" no
		expect_feature "$pf" "sched_switch tracepoint" yes
		grep -q "the kernel's 96)" "$pf" || fail "[$row] probe did not learn the kernel's attr size 96"
		expect_feature "$pf" PERF_FLAG_FD_CLOEXEC no
		expect_feature "$pf" sample_id_all yes
		expect_feature "$pf" REGS_USER/STACK_USER yes
		expect_feature "$pf" MMAP2 no
		expect_feature "$pf" comm_exec no
		expect_feature "$pf" "use_clockid (MONOTONIC)" no
		;;
	4.4)
		grep -q '^mode: dwarf unwinding' "$pf" || fail "[$row] probe did not pick dwarf"
		grep -q "the kernel's 112)" "$pf" || fail "[$row] probe did not learn the kernel's attr size 112"
		expect_feature "$pf" PERF_FLAG_FD_CLOEXEC yes
		expect_feature "$pf" MMAP2 yes
		expect_feature "$pf" comm_exec yes
		expect_feature "$pf" "use_clockid (MONOTONIC)" yes
		expect_feature "$pf" "context_switch (SWITCH)" yes
		;;
	native)
		grep -q '^mode: dwarf unwinding' "$pf" || fail "[$row] probe did not pick dwarf"
		;;
	*) fail "unknown row $row" ;;
	esac
	expect_feature "$pf" "sampling attr (defaults)" yes
	echo "[$row] probe: $(grep '^mode:' "$pf")"

	# Without the privilege to sample the kernel (paranoid >= 2, an
	# unprivileged user), smolder falls back to user-only sampling.
	if [ "$(id -u)" -eq 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" -ge 2 ] 2>/dev/null &&
		command -v setpriv >/dev/null 2>&1; then
		in_row "$row" timeout -k 5 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all --bounding-set=-all "$SMOLDER" probe >"$TMP/nobody.txt" 2>&1 ||
			fail "[$row] smolder probe as an unprivileged user failed: $(tail -n 3 "$TMP/nobody.txt")"
		grep -q '^mode: .*(user only)' "$TMP/nobody.txt" ||
			fail "[$row] unprivileged probe did not fall back to user-only: $(grep '^mode:' "$TMP/nobody.txt")"
		expect_feature "$TMP/nobody.txt" "kernel samples/callchains" no
		echo "[$row] unprivileged probe: $(grep '^mode:' "$TMP/nobody.txt")"
	fi

	if [ "$row" = 2.6.32 ]; then
		W=$FPW
		first='_start,__libc_start_main*,__libc_start_call_main'
	else
		W=$WORKLOADS
		first=_start
	fi

	record "$row" chain 60 "$W/chain" 1.5
	$CHECK share "$TMP/$row-chain.json" --exe chain --first "$first" --seq 'main;a;b;c' \
		--min 90 --label "[$row] chain" ||
		failed="$failed $row:chain"

	record "$row" threads 60 "$W/threads" 1.5
	$CHECK threads "$TMP/$row-threads.json" --exe threads --min 90 || failed="$failed $row:threads"

	record "$row" forkexec 60 "$W/forkexec" 1.5
	$CHECK forkexec "$TMP/$row-forkexec.json" || failed="$failed $row:forkexec"

	# off-cpu: switch records from 4.3, the sched_switch tracepoint before
	# (events on every CPU: 2.6.32 has no sample_id_all to follow a
	# command's tree by, so -a there)
	if [ "$row" = 2.6.32 ]; then
		"$W/waits" 3 >/dev/null 2>&1 &
		wpid=$!
		sleep 0.3
		echo "+ [$row] smolder record -a --event off-cpu -F 999 -d 2"
		in_row "$row" timeout -k 5 60 "$SMOLDER" record -a --event off-cpu -F 999 -d 2 \
			-o "$TMP/$row-offcpu.json" >"$TMP/rec.out" 2>"$TMP/rec.err" ||
			{ tail -n 5 "$TMP/rec.err"; fail "[$row] record -a --event off-cpu failed"; }
		wait "$wpid"
		# the kernel's frame-pointer walk from a system call starts
		# in the waiting function's caller (libc keeps no frame)
		$CHECK offcpu "$TMP/$row-offcpu.json" --exe waits --total 6 --tol 25 \
			--waiters sleeper,reader,main --label "[$row] off-cpu" || failed="$failed $row:offcpu"
	else
		echo "+ [$row] smolder record --event cpu-clock,off-cpu -- waits 2"
		in_row "$row" timeout -k 5 60 "$SMOLDER" record --event cpu-clock,off-cpu \
			-o "$TMP/$row-offcpu.json" -- env -u LD_PRELOAD -u SMOLDER_FAKE_KERNEL \
			"$WORKLOADS/waits" 2 >"$TMP/rec.out" 2>"$TMP/rec.err" ||
			{ tail -n 5 "$TMP/rec.err"; fail "[$row] record --event cpu-clock,off-cpu failed"; }
		$CHECK offcpu "$TMP/$row-offcpu.json" --exe waits --total 6 --label "[$row] off-cpu" ||
			failed="$failed $row:offcpu"
	fi
	[ -n "$ART" ] && cp "$TMP/$row-offcpu.json" "$ART/$row-offcpu.out.json" 2>/dev/null
done

[ -z "$failed" ] || fail "rows with wrong stacks:$failed"
echo "matrix: every row passed ($ROWS)"
