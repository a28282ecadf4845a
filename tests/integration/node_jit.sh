#!/bin/sh
# node --perf-basic-prof (a perf map) and --perf-prof (a jitdump file):
# JavaScript frames are JIT code without CFI, kept with frame pointers; the
# unwinder steps over them and goes back to CFI in node's own code. >= 90% of node's user stacks must reach _start and >= 50%
# hold a named JS frame of the workload (outerLoop, leafWork, or the script
# itself, into which V8 may inline them).
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v node >/dev/null 2>&1 || skip "node not installed (Debian: nodejs)"

for flag in --perf-basic-prof --perf-prof; do
mkdir -p "$TMP/$flag"
# --perf-prof writes jit-PID.dump in the current directory
(cd "$TMP/$flag" && run_smolder 90 record -F 999 -o "$TMP/$flag/out.json" -- node "$flag" \
	"$TESTS_SRCDIR/workloads/node_loop.js" 3 && [ "$SM_RC" -eq 0 ]) || fail "$flag: record failed"
keep_artifact "$TMP/$flag/out.json" "node_jit$flag.out.json"
"$PYTHON3" - "$TMP/$flag/out.json" "$flag" <<'PY' || fail "$flag: node's stacks are not unwound and named well enough"
import json, sys
d = json.load(open(sys.argv[1]))
total = rooted = named = 0
for p in d["profiles"]:
    if p["labels"].get("comm") != "node":
        continue
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        if fr[-1].endswith("_[k]") and all(f.endswith("_[k]") for f in fr):
            continue  # no user stack
        total += s["count"]
        if fr[0] == "_start":
            rooted += s["count"]
        if any("node_loop.js" in f and f.endswith("_[j]") for f in fr):
            named += s["count"]
pr = 100.0 * rooted / total if total else 0
pn = 100.0 * named / total if total else 0
print("node %s: %d samples with a user stack, %.1f%% from _start (>= 90), %.1f%% with the named JS "
      "frames (>= 50)" % (sys.argv[2], total, pr, pn))
print("  unwind: %s" % json.dumps(d["stats"]["unwind"], sort_keys=True))
sys.exit(0 if pr >= 90 and pn >= 50 else 1)
PY
done
