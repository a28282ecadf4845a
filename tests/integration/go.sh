#!/bin/sh
# Go programs as built by default and as they ship (-ldflags="-s -w": no
# symbols, no DWARF, no CFI). Go's CFI marks no outermost frame and the
# runtime switches stacks, so its roots (runtime.goexit, mstart, rt0_go)
# and the g0 side of its stack switches end its stacks; without CFI the
# pc-line table's SP deltas unwind and its names name (runtimes/gopclntab).
#  - tests/workloads/go_chain.go, both builds: >= 95 % of user stacks at a
#    Go root, <= 1 % [unknown], >= 90 % complete in the stats, main.* named
#    in >= 80 % of samples, and the two builds' stacks the same (the
#    samples whose stack the other build never showed: <= 5 %);
#  - tests/workloads/go_alloc.go stripped, with Go's own CPU profile of the
#    same run (runtime/pprof) as the reference: the samples of the runtime's
#    work for a goroutine on g0 (GC assist, write-barrier flushes, stack
#    growth) carry the user function that caused it in >= 90 % (g0 stacks
#    joined to their goroutines, runtimes/gojoin.h), and not 10 points
#    fewer than pprof's;
#  - go_chain stripped, --lines: >= 90 % of its samples show outerLoop and
#    middleStep at their calls and leafWork in its loop, from Go's own
#    pc-line table (the build has no DWARF).
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v go >/dev/null 2>&1 || skip "go not installed (Debian: golang-go)"

mkdir -p "$TMP/go"
cp "$TESTS_SRCDIR/workloads/go_chain.go" "$TMP/go/chain.go"
cp "$TESTS_SRCDIR/workloads/go_alloc.go" "$TMP/go/alloc.go"
gobuild() {
	(cd "$TMP/go" && GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GO111MODULE=off \
		go build "$@") 2>"$TMP/go.err" || fail "go build $*: $(tail -n 3 "$TMP/go.err")"
}
gobuild -o go_chain chain.go
gobuild -ldflags="-s -w" -o go_chain_s chain.go
gobuild -ldflags="-s -w" -o go_alloc_s alloc.go
echo "  $(go version)"

for b in go_chain go_chain_s; do
	run_smolder 60 record -F 999 -o "$TMP/$b.json" -- "$TMP/go/$b" 3
	[ "$SM_RC" -eq 0 ] || fail "record of $b failed"
	keep_artifact "$TMP/$b.json" "$b.out.json"
done
run_smolder 60 record -F 999 -o "$TMP/go_alloc_s.json" -- "$TMP/go/go_alloc_s" 3 "$TMP/go_alloc_s.pprof"
[ "$SM_RC" -eq 0 ] || fail "record of go_alloc_s failed"
keep_artifact "$TMP/go_alloc_s.json" go_alloc_s.out.json
go tool pprof -traces "$TMP/go/go_alloc_s" "$TMP/go_alloc_s.pprof" >"$TMP/pprof.txt" 2>/dev/null ||
	fail "go tool pprof could not read the workload's own profile"

"$PYTHON3" - "$TMP" <<'PY' || fail "Go stacks are not what they must be"
import json, re, sys
tmp = sys.argv[1]
ROOT = re.compile(r"^runtime\.(goexit|mstart|rt0_go|systemstack|mcall|morestack)(\.abi0)?$")
WORK = re.compile(r"^runtime\.(gcAssistAlloc1|wbBufFlush1|newstack)$")

def stacks(exe):
    d = json.load(open("%s/%s.json" % (tmp, exe)))
    out = {}
    for p in d["profiles"]:
        if p["labels"].get("exe", "").endswith("/" + exe):
            for s in p["stacks"]:
                user = [f for f in s["stack"].split(";") if not f.endswith("_[k]")]
                if user:
                    key = ";".join(user)
                    out[key] = out.get(key, 0) + s["count"]
    return d, out

def pct(n, t):
    return 100.0 * n / t if t else 0.0

ok = True
profiles = {}
for exe in ("go_chain", "go_chain_s"):
    d, st = stacks(exe)
    profiles[exe] = st
    total = sum(st.values())
    rooted = sum(c for k, c in st.items() if ROOT.match(k.split(";")[0]))
    unknown = sum(c for k, c in st.items() if "[unknown]" in k.split(";"))
    main = sum(c for k, c in st.items() if any(f.startswith("main.") for f in k.split(";")))
    chain = sum(c for k, c in st.items() if "main.outerLoop;main.middleStep;main.leafWork" in k)
    u = d["stats"]["unwind"]
    complete = pct(u["complete"], sum(u.values()))
    print("%s: %d user stacks; %.1f%% rooted at a Go root (>= 95), %.2f%% [unknown] (<= 1), "
          "%.1f%% complete (>= 90), main.* in %.1f%% (>= 80); %.1f%% in the loop's chain"
          % (exe, total, pct(rooted, total), pct(unknown, total), complete, pct(main, total),
             pct(chain, total)))
    print("  unwind: %s" % json.dumps(u, sort_keys=True))
    ok &= total > 0 and pct(rooted, total) >= 95 and pct(unknown, total) <= 1 and complete >= 90 \
        and pct(main, total) >= 80
a, b = profiles["go_chain"], profiles["go_chain_s"]
only_a = pct(sum(c for k, c in a.items() if k not in b), sum(a.values()))
only_b = pct(sum(c for k, c in b.items() if k not in a), sum(b.values()))
print("same stacks: %.1f%% of the unstripped build's samples in stacks the stripped one never "
      "showed, %.1f%% the other way (<= 5 each)" % (only_a, only_b))
ok &= only_a <= 5 and only_b <= 5

# the runtime's g0 work for a goroutine: smolder against pprof
_, st = stacks("go_alloc_s")
work = with_main = 0
for k, c in st.items():
    fr = k.split(";")
    if any(WORK.match(f) for f in fr):
        work += c
        with_main += c if any(f.startswith("main.") for f in fr) else 0
ref = ref_main = 0.0
for block in open(tmp + "/pprof.txt").read().split("-----------+"):
    lines = [l.strip() for l in block.split("\n") if l.strip() and not l.startswith("-")]
    if not lines:
        continue
    m = re.match(r"^([\d.]+)(ms|s|us)\s+(\S.*)$", lines[0])
    if not m:
        continue
    fr = [re.sub(r" \(inline\)$", "", f) for f in [m.group(3)] + lines[1:]]
    v = float(m.group(1)) * {"ms": 1, "s": 1000, "us": 0.001}[m.group(2)]
    if any(WORK.match(f) for f in fr):
        ref += v
        ref_main += v if any(f.startswith("main.") for f in fr) else 0
print("g0 work for a goroutine (gcAssistAlloc1, wbBufFlush1, newstack): smolder %d samples, "
      "%.1f%% with main.* (>= 90); pprof %.0f ms, %.1f%% with main.*"
      % (work, pct(with_main, work), ref, pct(ref_main, ref)))
ok &= work >= 10 and pct(with_main, work) >= 90 and (ref == 0 or pct(with_main, work) >= pct(ref_main, ref) - 10)
sys.exit(0 if ok else 1)
PY

# --lines on the stripped build: places from the pc-line table
run_smolder 60 record --lines -F 999 -o "$TMP/go_lines.json" -- "$TMP/go/go_chain_s" 2
expect_ok
keep_artifact "$TMP/go_lines.json" go_lines.out.json
"$PYTHON3" - "$TMP/go_lines.json" "$TMP/go/chain.go" <<'PY' || fail "Go frames do not carry their lines"
import json, re, sys
d = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read().split("\n")
at = {}
for i, t in enumerate(src, 1):
    for fn in ("leafWork", "middleStep", "outerLoop"):
        if t.startswith("func %s(" % fn):
            at[fn] = i
loop = {at["leafWork"] + k for k in range(1, 6)}
total = good = 0
for p in d["profiles"]:
    if p["labels"]["comm"] != "go_chain_s":
        continue
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        total += s["count"]
        lw = [f for f in fr if f.startswith("main.leafWork (chain.go:")]
        if ("main.outerLoop (chain.go:%d)" % at["outerLoop"]) in fr and \
                ("main.middleStep (chain.go:%d)" % at["middleStep"]) in fr and lw and \
                int(re.search(r":(\d+)\)", lw[-1]).group(1)) in loop:
            good += s["count"]
print("go --lines: %d samples, %.1f%% with outerLoop and middleStep at their calls and leafWork in its loop"
      % (total, 100.0 * good / max(total, 1)))
sys.exit(0 if total >= 300 and good >= 0.9 * total else 1)
PY
exit 0
