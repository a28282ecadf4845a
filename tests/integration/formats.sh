#!/bin/sh
# Output formats: --format collapsed to a file ('comm;root;...;leaf count'),
# --format json to stdout, and the default top table on stdout.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain
need_perf process

run_smolder 60 record -F 499 --format collapsed -o "$TMP/out.folded" -- "$WORKLOADS/chain" 1.5
keep_artifact "$TMP/out.folded" formats.out.folded
expect_ok
[ -s "$TMP/out.folded" ] || fail "no collapsed output at -o path"
head -n 3 "$TMP/out.folded" | cut -c1-300
$CHECK collapsed "$TMP/out.folded" --comm chain --first _start --seq 'main;a;b;c' --min 90 \
	|| fail "collapsed output wrong"

run_smolder 60 record -F 499 --format json -- "$WORKLOADS/chain" 1.5
expect_ok
cp "$TMP/smolder.out" "$TMP/stdout.json"
expect_dump "$TMP/stdout.json"
$CHECK share "$TMP/stdout.json" --exe chain --seq 'main;a;b;c' --min 90 --label "json on stdout" \
	|| fail "json on stdout wrong"

run_smolder 60 record -F 499 -- "$WORKLOADS/chain" 1.5
expect_ok
echo "  top table:"
head -n 25 "$TMP/smolder.out" | sed 's/^/    /'
[ -s "$TMP/smolder.out" ] || fail "no top table on stdout"
head -c 1 "$TMP/smolder.out" | grep -q '{' && fail "stdout is JSON, expected the top table"
grep -Eq '(^|[[:space:]])c([[:space:]]|$)' "$TMP/smolder.out" || fail "top table does not list the hot function c"
# A top-20 table: no run of function rows (lines starting with a percentage)
# longer than 20, and the hottest row is c.
rows=$(awk '/^[[:space:]]*[0-9.]+%/ { n++; if (n > max) max = n; next } { n = 0 } END { print max + 0 }' "$TMP/smolder.out")
echo "  longest run of table rows: $rows"
[ "$rows" -ge 1 ] && [ "$rows" -le 20 ] || fail "top table has a run of $rows rows, expected 1..20"
first=$(grep -E '^[[:space:]]*[0-9.]+%' "$TMP/smolder.out" | head -n 1)
echo "$first" | grep -Eq '[[:space:]]c([[:space:]]|$)' || fail "first table row is not the hot function c: $first"
echo "formats: collapsed, json-on-stdout and top table OK"
