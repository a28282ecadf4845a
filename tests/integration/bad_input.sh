#!/bin/sh
# Bad input: one line on stderr naming the problem, non-zero exit (2 for usage
# errors), no death by signal, and nothing left at the -o path.
. "$TESTS_SRCDIR/integration/lib.sh"

OUT="$TMP/out.json"
failures=0
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

# check NAME WANT_STATUS(any|2) PATTERN(ERE, on stderr)
check() {
	name=$1 want=$2 pat=$3
	if [ "$SM_RC" -eq 0 ]; then
		bad "$name: exit status 0, expected non-zero"
	elif [ "$want" != any ] && [ "$SM_RC" -ne "$want" ]; then
		bad "$name: exit status $SM_RC, expected $want"
	fi
	if [ ! -s "$TMP/smolder.err" ]; then
		bad "$name: nothing on stderr"
	elif ! grep -Eq -- "$pat" "$TMP/smolder.err"; then
		bad "$name: stderr does not mention /$pat/"
	fi
	if [ -e "$OUT" ] || ls "$TMP/odir"/* >/dev/null 2>&1; then
		bad "$name: output left behind: $(ls -a "$TMP/odir" "$OUT" 2>/dev/null | tr '\n' ' ')"
	fi
	echo "$name: status $SM_RC, stderr: $(head -n 1 "$TMP/smolder.err")"
	rm -rf "$OUT" "$TMP/odir"
	mkdir -p "$TMP/odir"
}
mkdir -p "$TMP/odir"

run_smolder 20 record --no-such-flag -o "$OUT" -d 1
check "unknown flag" 2 'no-such-flag'

run_smolder 20 record -F 99 -o "$OUT" --format nonsense -d 1
check "bad --format value" 2 'nonsense'

run_smolder 20 record -p 999999 -d 1 -o "$OUT"
check "missing pid" any '999999'

run_smolder 20 record -d 1 -o "$TMP/odir/out.json" -- /nonexistent/cmd arg
OUT="$TMP/odir/out.json"
check "command that cannot run" any '/nonexistent/cmd'
OUT="$TMP/out.json"

# Unprivileged system-wide recording where perf_event_paranoid forbids it.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)
if ! command -v setpriv >/dev/null 2>&1; then
	echo "unprivileged case skipped: setpriv not found"
elif [ "$(id -u)" -ne 0 ]; then
	echo "unprivileged case skipped: not running as root, cannot switch to nobody"
elif [ "$paranoid" = unknown ] || [ "$paranoid" -lt 1 ]; then
	echo "unprivileged case skipped: perf_event_paranoid=$paranoid permits unprivileged system-wide sampling"
elif ! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$SMOLDER"; then
	echo "unprivileged case skipped: nobody cannot execute $SMOLDER"
else
	chmod 0777 "$TMP/odir"
	chmod 0755 "$TMP"
	echo "+ (as nobody) smolder record -a -d 1 -o $TMP/odir/out.json"
	timeout -k 5 20 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SMOLDER" record -a -d 1 -o "$TMP/odir/out.json" >"$TMP/smolder.out" 2>"$TMP/smolder.err"
	SM_RC=$?
	[ "$SM_RC" -eq 124 ] && bad "as nobody: smolder did not finish within 20s"
	[ "$SM_RC" -ge 128 ] && bad "as nobody: smolder died by signal $((SM_RC - 128))"
	OUT="$TMP/odir/out.json"
	check "as nobody (paranoid=$paranoid)" any 'perf_event_paranoid|CAP_PERFMON|CAP_SYS_ADMIN'
	OUT="$TMP/out.json"
fi

[ "$failures" -eq 0 ] || fail "$failures bad-input check(s) failed"
echo "bad_input: all checks passed"
