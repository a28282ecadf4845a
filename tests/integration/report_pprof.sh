#!/bin/sh
# smolder report --format pprof, read back by `go tool pprof`: sample totals
# (counts and cpu nanoseconds) equal the merged dumps', inlined frames fold
# into one location. Skips where Go is not installed.
. "$TESTS_SRCDIR/integration/lib.sh"
FIX="$TESTS_SRCDIR/fixtures/report"

GO=$(command -v go 2>/dev/null) || skip "go not installed (Debian: apt-get install golang-go): cannot check pprof output with go tool pprof"
# go tool pprof needs a writable HOME and build cache, nothing from the network.
HOME="$TMP/home" GOCACHE="$TMP/gocache" GOFLAGS= GOTOOLCHAIN=local GOPROXY=off
export HOME GOCACHE GOFLAGS GOTOOLCHAIN GOPROXY
mkdir -p "$HOME"

run_smolder 30 report -f pprof -o "$TMP/ab.pb.gz" "$FIX/a.json" "$FIX/b.json"
expect_ok
keep_artifact "$TMP/ab.pb.gz" report.out.pb.gz
"$GO" tool pprof -raw "$TMP/ab.pb.gz" >"$TMP/raw.txt" 2>"$TMP/raw.err" \
	|| { cat "$TMP/raw.err"; fail "go tool pprof -raw cannot read the profile"; }
sed 's/^/    /' "$TMP/raw.txt" | head -n 60
$PYTHON3 - "$TMP/raw.txt" <<'PY' || fail "go tool pprof -raw: wrong content"
import re, sys
text = open(sys.argv[1]).read()
assert "PeriodType: cpu nanoseconds" in text, "period type"
assert re.search(r"^Period: 10101010$", text, re.M), "period"
assert "samples/count cpu/nanoseconds" in text, "sample types"
samples = text.split("Samples:")[1].split("Locations")[0]
rows = re.findall(r"^\s+(\d+)\s+(\d+):((?: \d+)*)", samples, re.M)
count = sum(int(r[0]) for r in rows)
cpu = sum(int(r[1]) for r in rows)
assert count == 30, "samples total %d, expected 30" % count
assert cpu == 30 * 10101010, "cpu total %d" % cpu
locs = text.split("Locations")[1].split("Mappings")[0]
assert re.search(r"M=\d+ hotter :0 s=0\n\s+hot :0 s=0\n\s+compute :0 s=0", locs), "inline folding"
assert "[kernel.kallsyms]" in text.split("Mappings")[1], "kernel mapping"
print("go tool pprof -raw: %d samples, %d cpu ns, in %d sample rows" % (count, cpu, len(rows)))
PY
"$GO" tool pprof -top "$TMP/ab.pb.gz" >"$TMP/top.txt" 2>&1 || { cat "$TMP/top.txt"; fail "go tool pprof -top failed"; }
sed 's/^/    /' "$TMP/top.txt"
grep -Eq '^ *121\.21ms +40\.00% .* do_epoll_wait$' "$TMP/top.txt" || fail "go tool pprof -top: do_epoll_wait not at 40%"
# Per-pid labels survive: -tagfocus selects one pid of c.json (a regexp:
# pprof reads a bare number as a range of numeric labels).
run_smolder 30 report -f pprof -o "$TMP/c.pb.gz" "$FIX/c.json"
expect_ok
"$GO" tool pprof -raw -tagfocus 'pid=^100$' "$TMP/c.pb.gz" >"$TMP/c.txt" 2>&1 || { cat "$TMP/c.txt"; fail "go tool pprof -tagfocus failed"; }
grep -q 'pid:\[100\]' "$TMP/c.txt" || fail "pid label missing"
grep -q 'pid:\[101\]' "$TMP/c.txt" && fail "-tagfocus 'pid=^100$' kept pid 101"
echo "pprof read by go tool pprof OK"
