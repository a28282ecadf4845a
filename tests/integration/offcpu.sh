#!/bin/sh
# --event off-cpu: where threads wait, weighted by how long. The workload
# (tests/workloads/waits.c) runs 3 s with three threads that wait nearly
# all the time, in f_sleep (10 ms sleeps), f_read (a pipe) and f_feed (the
# main thread, 20 ms sleeps between writes to that pipe), and one that
# spins. The process's off-CPU total is within 20 % of 3 x 3 s; each of
# the three waiting functions holds 25-42 % of it, the spinner <= 3 %; >= 95 %
# of the time is on stacks rooted at _start or clone; the dump says
# off-cpu in nanoseconds, and its exact counters agree with the stacks.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload waits
need_perf process

run_smolder 60 record --event off-cpu -o "$TMP/out.json" -- "$WORKLOADS/waits" 3
keep_artifact "$TMP/out.json" offcpu.out.json
expect_ok
expect_dump "$TMP/out.json"
"$PYTHON3" - "$TMP/out.json" 3.0 <<'PY' || fail "off-cpu time is not where the workload waits"
import json, sys
d = json.load(open(sys.argv[1]))
run = float(sys.argv[2])
ev = d["event"]
assert ev["name"] == "off-cpu" and ev["unit"] == "nanoseconds", "event %s" % ev
mine = [p for p in d["profiles"] if p["labels"]["exe"].endswith("/waits")]
assert mine, "no profile of the workload"
total = rooted = 0
by = {"f_sleep": 0, "f_read": 0, "f_feed": 0, "spin": 0}
for p in mine:
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        total += s["count"]
        if fr[0] in ("_start", "clone", "clone3", "__clone", "__clone3"):
            rooted += s["count"]
        for f in by:
            if f in fr:
                by[f] += s["count"]
st = d["stats"]
print("off-cpu: %.2f s of the workload (%.2f s expected), rooted %.1f%%; %s"
      % (total / 1e9, 3 * run, 100.0 * rooted / max(total, 1),
         ", ".join("%s %.1f%%" % (f, 100.0 * v / max(total, 1)) for f, v in by.items())))
print("stats: " + ", ".join("%s=%s" % (k, st[k]) for k in sorted(st) if k.startswith("off_cpu")))
assert abs(total - 3 * run * 1e9) <= 0.2 * 3 * run * 1e9, "total %.2f s" % (total / 1e9)
for f in ("f_sleep", "f_read", "f_feed"):
    share = 100.0 * by[f] / total
    assert 25 <= share <= 42, "%s holds %.1f%%" % (f, share)
assert 100.0 * by["spin"] / total <= 3, "the spinner holds %.1f%%" % (100.0 * by["spin"] / total)
assert rooted >= 0.95 * total, "rooted %.1f%%" % (100.0 * rooted / total)
# the stacks' time estimates the exact time of every wait (all processes')
assert st["off_cpu_sampled"] > 0 and st["off_cpu_ns"] > 0
assert abs(st["off_cpu_weighted_ns"] - sum(p["samples"] for p in d["profiles"])) <= len(d["profiles"]), \
    "the profiles do not hold what the stacks were given"
PY

# every output says time, not samples
run_smolder 30 report "$TMP/out.json"
expect_ok
grep -Eq '^off-cpu: [0-9.]+s  profiles:' "$TMP/smolder.out" || fail "top's header is not a time"
grep -Eq '^ *[0-9.]+%  +[0-9.]+(s|ms|us|ns) ' "$TMP/smolder.out" || fail "top's rows are not times"
run_smolder 30 report -f svg -o "$TMP/out.svg" "$TMP/out.json"
expect_ok
grep -q '<text id="title"[^<]*Off-CPU:[^<]*waited' "$TMP/out.svg" || fail "the flame graph's title does not say off-CPU time"
grep -Eq '<title>f_read \([0-9.]+(s|ms), [0-9.]+%\)' "$TMP/out.svg" || fail "the flame graph's frames are not times"
run_smolder 30 report -f pprof -o "$TMP/out.pb.gz" "$TMP/out.json"
expect_ok
PYTHONPATH="$TESTS_SRCDIR/integration" PYTHONDONTWRITEBYTECODE=1 "$PYTHON3" - "$TMP/out.pb.gz" "$TMP/out.json" <<'PY' \
	|| fail "pprof does not carry off-cpu nanoseconds"
import json, sys
import pprof_read
strings, samples = pprof_read.read(sys.argv[1])
assert "off_cpu" in strings and "samples" not in strings, "sample types: %s" % strings[:8]
total = sum(v[0] for v, lab in samples)
want = sum(p["samples"] for p in json.load(open(sys.argv[2]))["profiles"])
assert all(len(v) == 1 for v, lab in samples), "more than one value a sample"
assert total == want, "pprof %d ns, dump %d ns" % (total, want)
PY
# one event at a time: nanoseconds and samples do not add up
run_smolder 30 report --event cpu-clock "$TMP/out.json"
[ "$SM_RC" -ne 0 ] && grep -q 'none of event cpu-clock' "$TMP/smolder.err" || fail "--event cpu-clock kept an off-cpu dump"
run_smolder 60 record -F 199 -o "$TMP/cpu.json" -- "$WORKLOADS/waits" 1
expect_ok
run_smolder 30 report "$TMP/out.json" "$TMP/cpu.json"
[ "$SM_RC" -ne 0 ] && grep -q 'pick one event' "$TMP/smolder.err" || fail "off-cpu and CPU dumps were merged"
run_smolder 30 report --event off-cpu -f collapsed "$TMP/out.json" "$TMP/cpu.json"
expect_ok
grep -q '^waits;.*f_read' "$TMP/smolder.out" || fail "--event off-cpu lost the off-cpu dump"

# A Python program's waits carry its Python frames: the main thread's in
# nap() under waiter(), the reader thread's in recv_loop(). What is
# checked is the frames, not the budget: -F 20000 samples nearly every
# switch-out, on a host switching fast as on a quiet one
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 not installed"
run_smolder 60 record --event off-cpu -F 20000 -o "$TMP/py.json" -- /usr/bin/python3 "$TESTS_SRCDIR/workloads/py_waits.py" 3
expect_ok
keep_artifact "$TMP/py.json" offcpu_python.out.json
"$PYTHON3" - "$TMP/py.json" <<'PY' || fail "a Python program's waits do not carry its Python frames"
import json, sys
d = json.load(open(sys.argv[1]))
total = nap = recv = 0
for p in d["profiles"]:
    for s in p["stacks"]:
        names = [f.split(" (")[0] for f in s["stack"].split(";") if f.endswith("_[py]")]
        total += s["count"]
        if names[-2:] == ["waiter", "nap"]:
            nap += s["count"]
        elif names and names[-1] == "recv_loop":
            recv += s["count"]
print("python off-cpu: %.2f s; %.1f%% in waiter;nap, %.1f%% in recv_loop; %s"
      % (total / 1e9, 100.0 * nap / total, 100.0 * recv / total, d["stats"]["runtimes"].get("cpython")))
assert 30 <= 100.0 * nap / total <= 60 and 30 <= 100.0 * recv / total <= 60
PY
exit 0
