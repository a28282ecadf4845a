#!/bin/sh
# Output formats of record (export/encode.c, shared with report): --format
# collapsed to a file ('comm;root;...;leaf count'), json to stdout, pprof
# and svg to files, and the default top table on stdout.
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
run_smolder 60 record -F 499 --format pprof -o "$TMP/out.pb.gz" -- "$WORKLOADS/chain" 1.5
expect_ok
PYTHONPATH="$TESTS_SRCDIR/integration" PYTHONDONTWRITEBYTECODE=1 "$PYTHON3" - "$TMP/out.pb.gz" <<'PY' || fail "record --format pprof: not a profile.proto naming the chain"
import sys
import pprof_read
strings, samples = pprof_read.read(sys.argv[1])
print("pprof: %d samples, %d strings" % (len(samples), len(strings)))
assert strings and strings[0] == "", "string_table[0] must be empty"
for name in ("main", "a", "b", "c", "samples", "cpu"):
    assert name in strings, "%r missing from the string table" % name
assert samples, "no samples"
PY
run_smolder 60 record -F 499 --format svg -o "$TMP/out.svg" -- "$WORKLOADS/chain" 1.5
expect_ok
"$PYTHON3" - "$TMP/out.svg" <<'PY' || fail "record --format svg: not a flame graph of the chain"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
titles = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title")]
print("svg: %d frames with a title" % len(titles))
for name in ("main", "c"):
    assert any(t.startswith(name + " (") for t in titles), "no frame titled %r" % name
PY
echo "formats: collapsed, json-on-stdout, pprof, svg and top table OK"
