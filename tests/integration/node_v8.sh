#!/bin/sh
# node with no flags: the V8 reader (runtimes/v8_reader.c) names its
# JavaScript frames from node's own metadata and frame pointers. On
# tests/workloads/node_loop.js (outerLoop -> middleStep -> leafWork, which
# V8 optimizes and inlines): >= 90% of node's user stacks reach _start,
# >= 85% hold the chain in order, named "function (node_loop.js:LINE)"
# with the line each function is defined on (_[j], or _[i] where V8
# inlined it), [unknown] in <= 2%; the process is labelled by its script;
# no perf map is written. With --perf-basic-prof the same names; the perf
# map's ("JS:*leafWork ...") only on frames the reader failed to read (at
# most one per failure, <= 1 %).
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v node >/dev/null 2>&1 || skip "node not installed (Debian: nodejs)"

for flag in none --perf-basic-prof; do
mkdir -p "$TMP/$flag"
if [ "$flag" = none ]; then set --; else set -- "$flag"; fi
(cd "$TMP/$flag" && run_smolder 60 record -F 999 --per-pid -o "$TMP/$flag/out.json" -- node "$@" \
	"$TESTS_SRCDIR/workloads/node_loop.js" 6 && [ "$SM_RC" -eq 0 ]) || fail "$flag: record failed"
keep_artifact "$TMP/$flag/out.json" "node_v8_$flag.out.json"
"$PYTHON3" - "$TMP/$flag/out.json" "$flag" "$TMP/$flag/pids" <<'PY' || fail "$flag: node's JavaScript frames are not named well enough"
import json, sys
d = json.load(open(sys.argv[1]))
want = ["outerLoop (node_loop.js:6)", "middleStep (node_loop.js:5)", "leafWork (node_loop.js:4)"]
total = rooted = chain = unknown = foreign = 0
labels, pids = set(), set()
for p in d["profiles"]:
    if p["labels"].get("comm") != "node":
        continue
    labels.add(p["labels"].get("service_name"))
    pids.add(str(p["labels"].get("pid")))
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        if all(f.endswith("_[k]") for f in fr):
            continue  # no user stack
        n = s["count"]
        total += n
        rooted += n if fr[0] == "_start" else 0
        unknown += n if "[unknown]" in fr else 0
        foreign += n if any(f.startswith(("JS:", "LazyCompile:", "Function:")) for f in fr) else 0
        k = 0
        for f in fr:
            if k < 3 and f in (want[k] + "_[j]", want[k] + "_[i]"):
                k += 1
        chain += n if k == 3 else 0
pct = lambda x: 100.0 * x / total if total else 0
print("node %s: %d samples with a user stack, %.1f%% from _start (>= 90), %.1f%% with the chain "
      "(>= 85), %.2f%% [unknown] (<= 2), %.2f%% perf map names (<= 1), labels %s"
      % (sys.argv[2], total, pct(rooted), pct(chain), pct(unknown), pct(foreign), sorted(labels)))
print("  unwind: %s" % json.dumps(d["stats"]["unwind"], sort_keys=True))
print("  v8: %s" % json.dumps(d["stats"]["runtimes"].get("v8"), sort_keys=True))
open(sys.argv[3], "w").write("\n".join(sorted(pids)) + "\n")
# a frame the reader could not read keeps what the symbolizer found at its
# pc, the perf map's name: only such frames may carry one
v8 = d["stats"]["runtimes"].get("v8") or {}
failed = v8.get("failures", 0) + v8.get("refused", 0)  # refused: a whole stack unread
if foreign:
    print("  %d samples with a perf map name, %d frames the reader failed or stacks it refused" % (foreign, failed))
ok = total >= 200 and pct(rooted) >= 90 and pct(chain) >= 85 and pct(unknown) <= 2
ok = ok and foreign <= failed and pct(foreign) <= 1
sys.exit(0 if ok and labels == {"node_loop.js"} else 1)
PY
done
# smolder never asks for a perf map: the node run without the flag wrote
# none (other tests' processes may write theirs meanwhile: only ours count)
for pid in $(cat "$TMP/none/pids"); do
	[ ! -e "/tmp/perf-$pid.map" ] || fail "node $pid wrote a perf map without --perf-basic-prof"
done
for pid in $(cat "$TMP/--perf-basic-prof/pids"); do rm -f "/tmp/perf-$pid.map"; done
exit 0
