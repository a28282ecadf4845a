#!/bin/sh
# smolder report on bad input: a message naming the problem, a non-zero exit
# (2 for usage errors), no death by signal and no output file left behind.
. "$TESTS_SRCDIR/integration/lib.sh"
FIX="$TESTS_SRCDIR/fixtures/report"
OUT="$TMP/out"
failures=0
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

# check NAME WANT_STATUS(any|N) PATTERN(ERE, on stderr)
check() {
	name=$1 want=$2 pat=$3
	if [ "$SM_RC" -eq 0 ]; then
		bad "$name: exit status 0, expected non-zero"
	elif [ "$want" != any ] && [ "$SM_RC" -ne "$want" ]; then
		bad "$name: exit status $SM_RC, expected $want"
	fi
	if ! grep -Eq -- "$pat" "$TMP/smolder.err"; then
		bad "$name: stderr does not mention /$pat/"
	fi
	[ -e "$OUT" ] && bad "$name: output file left behind"
	echo "$name: status $SM_RC, stderr: $(head -n 1 "$TMP/smolder.err")"
	rm -f "$OUT"
}

run_smolder 30 report -o "$OUT" "$FIX/a.json" "$FIX/truncated.json"
check "truncated dump" 1 'truncated\.json: not a valid smolder dump: '
run_smolder 30 report -o "$OUT" "$FIX/a.json" "$FIX/../dumps/bad_sum.json"
check "inconsistent dump" 1 'bad_sum\.json: not a valid smolder dump: '
run_smolder 30 report -o "$OUT" "$FIX/no-such.json"
check "missing file" 1 'no-such\.json: No such file'
run_smolder 30 report -o "$OUT" --label region=eu "$FIX/a.json"
check "unknown label" 1 "no dump has a label 'region'"
run_smolder 30 report -o "$OUT" --label pid=1 "$FIX/a.json"
check "pid label without per_pid" 1 "no dump has a label 'pid'"
run_smolder 30 report -o "$OUT" --label env=dev "$FIX/a.json" "$FIX/c.json"
check "label value matching nothing" 1 'no samples match: 2 dumps read, 2 in the time range, no profile has env=dev'
run_smolder 30 report -o "$OUT" --pid 4242 "$FIX/c.json"
check "pid matching nothing" 1 'none has pid 4242'
run_smolder 30 report -o "$OUT" --from 2026-01-01T00:00:00Z "$FIX/a.json" "$FIX/b.json"
check "range after the dumps" 1 'no samples match: 2 dumps read, none overlaps 2026-01-01T00:00:00Z to the end'
run_smolder 30 report -o "$OUT" --from 2025-11-21T16:00:10Z --until 2025-11-21T16:00:10Z "$FIX/a.json"
check "empty range" 2 'time range is empty'
run_smolder 30 report -o "$OUT" --from yesterday "$FIX/a.json"
check "bad time" 2 "--from 'yesterday': not a time"
run_smolder 30 report -o "$OUT" --format flame "$FIX/a.json"
check "unknown format" 2 "unknown format 'flame'"
run_smolder 30 report -o "$OUT" --format pprof --diff "$FIX/a.json" "$FIX/b.json"
check "diff with pprof" 2 '--diff needs --format svg or top'
run_smolder 30 report -o "$OUT" --label noequals "$FIX/a.json"
check "bad label" 2 'expected NAME=VALUE'
run_smolder 30 report -o "$OUT"
check "no input" 2 'no dumps given'
mkdir "$TMP/empty"
run_smolder 30 report -o "$OUT" "$TMP/empty"
check "empty directory" 1 'no dump files found'

[ "$failures" -eq 0 ] || fail "$failures checks failed"
echo "report errors OK"
