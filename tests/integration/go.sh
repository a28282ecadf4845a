#!/bin/sh
# A Go program (go build's defaults): Go's CFI marks no outermost frame and
# the runtime switches stacks, so its roots (runtime.goexit, runtime.mstart,
# runtime.rt0_go) and the g0 side of its stack switches (systemstack, mcall,
# morestack) end its stacks. >= 95% of the user stacks must start at such a
# root, <= 1% hold [unknown], and >= 90% count as complete in the stats.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v go >/dev/null 2>&1 || skip "go not installed (Debian: golang-go)"

mkdir -p "$TMP/go"
cp "$TESTS_SRCDIR/workloads/go_chain.go" "$TMP/go/main.go"
(cd "$TMP/go" && GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GO111MODULE=off \
	go build -o go_chain main.go) 2>"$TMP/go.err" || fail "go build: $(tail -n 3 "$TMP/go.err")"
echo "  $(go version)"
run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$TMP/go/go_chain" 3
[ "$SM_RC" -eq 0 ] || fail "record failed"
keep_artifact "$TMP/out.json" go.out.json
"$PYTHON3" - "$TMP/out.json" <<'PY' || fail "Go stacks are not complete and rooted"
import json, re, sys
d = json.load(open(sys.argv[1]))
root = re.compile(r"^runtime\.(goexit|mstart|rt0_go|systemstack|mcall|morestack)(\.abi0)?$")
total = rooted = unknown = chain = 0
for p in d["profiles"]:
    if not p["labels"].get("exe", "").endswith("/go_chain"):
        continue
    for s in p["stacks"]:
        user = [f for f in s["stack"].split(";") if not f.endswith("_[k]")]
        if not user:
            continue
        total += s["count"]
        if root.match(user[0]):
            rooted += s["count"]
        if "[unknown]" in user:
            unknown += s["count"]
        if "main.outerLoop;main.middleStep;main.leafWork" in s["stack"]:
            chain += s["count"]
u = d["stats"]["unwind"]
complete = 100.0 * u["complete"] / max(1, sum(u.values()))
pct = lambda n: 100.0 * n / total if total else 0.0
print("go: %d user stacks; %.1f%% rooted at a Go root (>= 95), %.2f%% with [unknown] (<= 1), "
      "%.1f%% complete in stats (>= 90); %.1f%% in the loop's chain"
      % (total, pct(rooted), pct(unknown), complete, pct(chain)))
print("  unwind: %s" % json.dumps(u, sort_keys=True))
sys.exit(0 if total and pct(rooted) >= 95 and pct(unknown) <= 1 and complete >= 90 else 1)
PY
