#!/bin/sh
# A Go stack deeper than the kernel's 16 KiB copy whose frames beyond the
# copy change every ~50 us (tests/workloads/go_deep.go: deepA or deepB, by
# the pass's parity, 100 levels of some 250 bytes, each frame holding its
# pass number). The part beyond the copy is read from the thread after the
# sample, by then usually another pass's: a seam that reads back as held
# proves nothing there, and one that moved cut the stack. Frames read
# beyond the copy are kept only where the kernel's frame-pointer walk taken
# with the sample has their return addresses, in order, and where the live
# stack moved, the stack goes on from the walk (unwind/stackmem.h). Of the
# samples in leaf: >= 95 % whole from runtime.goexit with all 101 deep
# frames, none mixing deepA and deepB (before: 71.5 % whole, 1.2 % mixed,
# 28.5 % [truncated]).
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v go >/dev/null 2>&1 || skip "go not installed (Debian: golang-go)"

mkdir -p "$TMP/go"
cp "$TESTS_SRCDIR/workloads/go_deep.go" "$TMP/go/deep.go"
(cd "$TMP/go" && GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GO111MODULE=off \
	go build -o go_deep deep.go) 2>"$TMP/go.err" || fail "go build: $(tail -n 3 "$TMP/go.err")"

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$TMP/go/go_deep" 3
[ "$SM_RC" -eq 0 ] || fail "record failed"
keep_artifact "$TMP/out.json" go_deep.out.json
"$PYTHON3" - "$TMP/out.json" <<'PY' || fail "deep Go stacks are cut or not the sample's"
import json, re, sys
d = json.load(open(sys.argv[1]))
ROOT = re.compile(r"^runtime\.(goexit|mstart|rt0_go)(\.abi0)?$")
tot = whole = mixed = cut = 0
for p in d["profiles"]:
    if not p["labels"].get("exe", "").endswith("/go_deep"):
        continue
    for s in p["stacks"]:
        fr = [f for f in s["stack"].split(";") if not f.endswith("_[k]")]
        if "main.leaf" not in fr:
            continue
        n = s["count"]
        tot += n
        a, b = fr.count("main.deepA"), fr.count("main.deepB")
        if a and b:
            mixed += n
            print("  mixed (%d): %s" % (n, ";".join(fr)[-200:]))
        if fr[0] == "[truncated]":
            cut += n
        if ROOT.match(fr[0]) and a + b == 101:
            whole += n
st = d["stats"]
pct = lambda x: 100.0 * x / tot if tot else 0
print("go_deep: %d samples in leaf, %.1f%% whole from the root with 101 deep frames (>= 95), "
      "%.2f%% mixing deepA and deepB (0), %.1f%% [truncated]; deep_stacks %d, deep_stale %d, "
      "deep_walk_proved %d" % (tot, pct(whole), pct(mixed), pct(cut), st.get("deep_stacks", 0),
                               st.get("deep_stale", 0), st.get("deep_walk_proved", 0)))
sys.exit(0 if tot >= 200 and pct(whole) >= 95 and mixed == 0 else 1)
PY
exit 0
