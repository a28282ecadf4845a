#!/bin/sh
# record --group-by thread of a program whose threads name themselves
# ("worker-a" spins in spin_a, "worker-b" in spin_b): one profile per thread
# name, each holding its own function in >= 95% of its samples; the name
# reaches the dump, pprof (a sample label, decoded here), the top table and
# the collapsed text, and report --label thread=NAME keeps one thread.
# Without --group-by the profiles are keyed as before, and report
# --group-by thread says that they carry no thread.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload threads
need_perf process

run_smolder 60 record -q --group-by thread -F 499 -o "$TMP/thr.json" -- "$WORKLOADS/threads" 3
keep_artifact "$TMP/thr.json" thread_view.out.json
expect_ok
expect_dump "$TMP/thr.json"
$PYTHON3 - "$TMP/thr.json" <<'PY' || fail "profiles per thread wrong"
import json, sys
d = json.load(open(sys.argv[1]))
mine = [p for p in d["profiles"] if p["labels"]["exe"].endswith("/threads")]
assert mine, "no profile of the workload"
for p in mine:
    assert "thread" in p["labels"], "a profile without a thread label: %s" % p["labels"]
    assert p["labels"]["comm"] == "threads", "a thread renamed the process: %s" % p["labels"]
for name, own, other in (("worker-a", "spin_a", "spin_b"), ("worker-b", "spin_b", "spin_a")):
    ps = [p for p in mine if p["labels"]["thread"] == name]
    assert len(ps) == 1, "%d profiles of thread %s" % (len(ps), name)
    n = ps[0]["samples"]
    hit = sum(s["count"] for s in ps[0]["stacks"] if own in s["stack"].split(";"))
    bad = sum(s["count"] for s in ps[0]["stacks"] if other in s["stack"].split(";"))
    print("thread %s: %d samples, %.1f%% in %s, %d in %s" % (name, n, 100.0 * hit / n, own, bad, other))
    assert n >= 50, "too few samples of %s to judge" % name
    assert hit >= 0.95 * n, "%s: %s in %.1f%% of its samples" % (name, own, 100.0 * hit / n)
    assert bad == 0, "%s ran %s" % (name, other)
PY

# pprof: every sample of the workload carries its thread's name, as in the
# dump; a thread whose name could not be read in time (it ended first) has
# "" in the dump and no thread label in pprof, whose empty labels say
# nothing
run_smolder 30 report --group-by thread -f pprof -o "$TMP/thr.pb.gz" "$TMP/thr.json"
expect_ok
PYTHONPATH="$TESTS_SRCDIR/integration" PYTHONDONTWRITEBYTECODE=1 "$PYTHON3" - "$TMP/thr.pb.gz" "$TMP/thr.json" <<'PY' \
	|| fail "pprof thread labels wrong"
import json, sys
import pprof_read
strings, samples = pprof_read.read(sys.argv[1])
per = {}
for values, lab in samples:
    assert lab.get("comm"), "sample without comm: %s" % lab
    if lab["comm"] == "threads":
        assert lab.get("thread", None) != "", "an empty thread label: %s" % lab
        t = lab.get("thread", "")
        per[t] = per.get(t, 0) + values[0]
want = {}
for p in json.load(open(sys.argv[2]))["profiles"]:
    if p["labels"]["comm"] == "threads":
        want[p["labels"]["thread"]] = want.get(p["labels"]["thread"], 0) + p["samples"]
print("pprof samples per thread label: %s (dump: %s)" % (per, want))
assert per == want, "pprof %s, dump %s" % (per, want)
assert "worker-a" in per and "worker-b" in per
PY

# top: a section per thread; collapsed: the thread frame under the comm
run_smolder 30 report --group-by thread "$TMP/thr.json"
expect_ok
grep -Eq '^threads / worker-a: [0-9]+ samples' "$TMP/smolder.out" || fail "top has no section of worker-a"
grep -Eq '^threads / worker-b: [0-9]+ samples' "$TMP/smolder.out" || fail "top has no section of worker-b"
run_smolder 30 report --group-by thread -f collapsed "$TMP/thr.json"
expect_ok
grep -q '^threads;\[thread worker-a\];.*;worker_a;spin_a ' "$TMP/smolder.out" \
	|| fail "collapsed has no threads;[thread worker-a];...;spin_a line"

# --label thread=NAME keeps one thread, through the label filter
run_smolder 30 report --label thread=worker-b -f collapsed "$TMP/thr.json"
expect_ok
grep -q 'spin_b' "$TMP/smolder.out" || fail "--label thread=worker-b lost spin_b"
grep -q 'spin_a' "$TMP/smolder.out" && fail "--label thread=worker-b kept spin_a"

# threads named before the recording began: no record names them, their
# names are read from /proc
"$WORKLOADS/threads" 4 >/dev/null 2>&1 &
wl=$!
BG_PIDS="$BG_PIDS $wl"
sleep 1
run_smolder 60 record -q --group-by thread -F 499 -d 1500ms -o "$TMP/late.json" -p "$wl"
expect_ok
$PYTHON3 - "$TMP/late.json" <<'PY' || fail "threads named before the recording lost their names"
import json, sys
d = json.load(open(sys.argv[1]))
by = {}
for p in d["profiles"]:
    by[p["labels"].get("thread")] = by.get(p["labels"].get("thread"), 0) + p["samples"]
print("record -p: samples per thread: %s" % by)
total = sum(by.values())
named = by.get("worker-a", 0) + by.get("worker-b", 0)
assert total > 0 and named >= 0.95 * total, "named threads hold %d of %d samples" % (named, total)
PY

# the default keys the profiles as before: no thread label
run_smolder 60 record -q -F 499 -o "$TMP/proc.json" -- "$WORKLOADS/threads" 1
expect_ok
$PYTHON3 - "$TMP/proc.json" <<'PY' || fail "default profiles carry a thread label"
import json, sys
d = json.load(open(sys.argv[1]))
assert not any("thread" in p["labels"] for p in d["profiles"])
mine = [p for p in d["profiles"] if p["labels"]["exe"].endswith("/threads")]
assert len(mine) == 1, "one profile for the process, got %d" % len(mine)
PY
run_smolder 30 report --group-by thread "$TMP/proc.json"
[ "$SM_RC" -eq 1 ] || fail "report --group-by thread on dumps without threads exited $SM_RC, want 1"
grep -q 'has a thread label' "$TMP/smolder.err" || fail "no message saying the dumps carry no thread"
echo "thread_view: OK"
