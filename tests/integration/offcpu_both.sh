#!/bin/sh
# --event cpu-clock,off-cpu: both in one run. One dump file holds a
# document per event (a line each); the CPU part is unchanged by the
# off-cpu twin (the spinner is the hot function of tests/workloads/waits.c)
# and the off-cpu part meets offcpu.sh's targets. report picks an event (the
# first by default, saying so), --event wall merges CPU samples (times their
# period) and waits into one time, about 4 threads x the run. The daemon
# (events = cpu-clock, off-cpu) writes a dump per event and window, whose
# ids differ; uploaded to a receiver that validates like Pyroscope's
# /ingest, CPU goes as .cpu and off-CPU time as .block_duration.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload waits
need_perf system

run_smolder 60 record --event cpu-clock,off-cpu -o "$TMP/both.json" -- "$WORKLOADS/waits" 3
keep_artifact "$TMP/both.json" offcpu_both.out.json
expect_ok
expect_dump "$TMP/both.json"
spun=$(sed -n 's/^spinner_cpu_s //p' "$TMP/smolder.out")
PYTHONPATH="$TESTS_SRCDIR/integration" PYTHONDONTWRITEBYTECODE=1 "$PYTHON3" - "$TMP/both.json" 3.0 "${spun:-3.0}" <<'PY' \
	|| fail "the two events' documents are not what the workload did"
import sys, dumpcheck
docs = dumpcheck.load_all(sys.argv[1])
run, spun = float(sys.argv[2]), float(sys.argv[3])
assert [d["event"]["name"] for d in docs] == ["cpu-clock", "off-cpu"], [d["event"] for d in docs]
assert [d["event"]["unit"] for d in docs] == ["samples", "nanoseconds"]
assert docs[0]["window"] == docs[1]["window"], "one recording, one window"

def shares(d, names):
    total, by, rooted = 0, dict.fromkeys(names, 0), 0
    for p in d["profiles"]:
        if not p["labels"]["exe"].endswith("/waits"):
            continue
        for s in p["stacks"]:
            fr = s["stack"].split(";")
            total += s["count"]
            rooted += s["count"] if fr[0] in ("_start", "clone", "clone3", "__clone", "__clone3") else 0
            for f in names:
                by[f] += s["count"] if f in fr else 0
    return total, by, rooted

cpu, cby, _ = shares(docs[0], ["spin", "f_sleep", "f_read", "f_feed"])
off, oby, rooted = shares(docs[1], ["spin", "f_sleep", "f_read", "f_feed"])
print("cpu-clock: %d samples, spin %.1f%%; off-cpu: %.2f s (%.2f expected), rooted %.1f%%, %s"
      % (cpu, 100.0 * cby["spin"] / max(cpu, 1), off / 1e9, 3 * run, 100.0 * rooted / max(off, 1),
         ", ".join("%s %.1f%%" % (f, 100.0 * v / max(off, 1)) for f, v in oby.items())))
# the spinner runs the whole time at 99 Hz, or less beside other tests: a
# sample per 10 ms it spun (its own clock says), nearly all of them in spin
print("the spinner ran %.2f s on a CPU" % spun)
assert cpu >= 0.6 * 99 * spun and cby["spin"] >= 0.9 * cpu, "the CPU part lost its hot function"
assert off and abs(off - 3 * run * 1e9) <= 0.2 * 3 * run * 1e9, "off-cpu total %.2f s" % (off / 1e9)
for f in ("f_sleep", "f_read", "f_feed"):
    assert 25 <= 100.0 * oby[f] / off <= 42, "%s holds %.1f%% of the waits" % (f, 100.0 * oby[f] / off)
assert oby["spin"] <= 0.03 * off and rooted >= 0.95 * off
# each document's own samples' counters; the recording's are the same in both
assert docs[0]["stats"]["off_cpu_switches"] == 0 and docs[1]["stats"]["off_cpu_switches"] > 0
assert docs[1]["stats"]["unwind"]["complete"] != docs[0]["stats"]["unwind"]["complete"]
assert docs[0]["stats"]["agent_cpu_ns"] == docs[1]["stats"]["agent_cpu_ns"]
PY

# report: the first event by default, saying so; one event by name; wall
run_smolder 30 report "$TMP/both.json"
expect_ok
grep -q 'holds cpu-clock and off-cpu: reporting cpu-clock' "$TMP/smolder.err" \
	|| fail "report does not say which event of the two it shows"
grep -Eq '^samples: [0-9]+ ' "$TMP/smolder.out" || fail "report's default is not the CPU event"
run_smolder 30 report --event off-cpu "$TMP/both.json"
expect_ok
grep -Eq '^off-cpu: [0-9.]+s ' "$TMP/smolder.out" || fail "report --event off-cpu"
run_smolder 30 report --event wall -f json -o "$TMP/wall.json" "$TMP/both.json"
expect_ok
run_smolder 30 report --event wall -f pprof -o "$TMP/wall.pb.gz" "$TMP/both.json"
expect_ok
PYTHONPATH="$TESTS_SRCDIR/integration" PYTHONDONTWRITEBYTECODE=1 "$PYTHON3" - "$TMP/wall.json" "$TMP/wall.pb.gz" 3.0 "${spun:-3.0}" <<'PY' \
	|| fail "report --event wall is not where the threads' time went"
import json, sys, pprof_read
d = json.load(open(sys.argv[1]))
run, spun = float(sys.argv[3]), float(sys.argv[4])
# three threads wait the whole run; the spinner is on a CPU for what its
# clock says (beside other tests, less than the run: the time it waited
# to run, preempted, is neither CPU nor a wait)
want = 3 * run + spun
assert d["event"]["name"] == "wall" and d["event"]["unit"] == "nanoseconds", d["event"]
total = spin = 0
for p in d["profiles"]:
    if p["labels"]["exe"].endswith("/waits"):
        for s in p["stacks"]:
            total += s["count"]
            spin += s["count"] if "spin" in s["stack"].split(";") else 0
print("wall: %.2f s of the workload (%.2f expected), spin %.1f%% (%.1f%% expected)"
      % (total / 1e9, want, 100.0 * spin / total, 100.0 * spun / want))
assert abs(total - want * 1e9) <= 0.2 * want * 1e9, "wall total %.2f s" % (total / 1e9)
assert abs(100.0 * spin / total - 100.0 * spun / want) <= 7, "the spinner holds %.1f%% of the wall time" % (100.0 * spin / total)
strings, samples = pprof_read.read(sys.argv[2])
assert "wall" in strings and "off_cpu" not in strings, strings[:8]
PY

# the daemon: a dump per event and window, uploaded to Pyroscope as two types
start_receiver pyroscope
base_conf "$TMP/both.conf" "interval = 1s" "export = none" "events = cpu-clock, off-cpu"
"$WORKLOADS/waits" 4 >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
start_daemon "$TMP/both.conf" 30
sleep 3.5
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"
grep -q 'running: .*cpu-clock,off-cpu at 99 Hz' "$TMP/daemon.err" || fail "the daemon does not say its events"
spool_files
rcv_py <<'PY' || fail "the spool does not hold a dump per event and window"
import os, re, rcv_env, receiver as rcv
names = sorted(f for f in os.listdir(rcv_env.SPOOL) if f.endswith(".json.gz"))
cpu = [f for f in names if not f.endswith(".off-cpu.json.gz")]
assert len(cpu) >= 3, names
for f in cpu:
    twin = f[:-len(".json.gz")] + ".off-cpu.json.gz"
    assert twin in names, "%s has no off-cpu twin" % f
    a, b = rcv.load_gz_dump(os.path.join(rcv_env.SPOOL, f)), rcv.load_gz_dump(os.path.join(rcv_env.SPOOL, twin))
    for d, ev in ((a, "cpu-clock"), (b, "off-cpu")):
        errs = rcv.full_check(d, f, rcv_env.SCHEMA)
        assert not errs, errs
        assert d["event"]["name"] == ev
    assert b["window"]["id"] == a["window"]["id"] + "/off-cpu", (a["window"]["id"], b["window"]["id"])
    assert a["window"]["start_ns"] == b["window"]["start_ns"] and a["window"]["end_ns"] == b["window"]["end_ns"]
PY
base_conf "$TMP/pyro.conf" "export = pyroscope" "url = $RCV_URL" "timeout = 5s"
run_smolder 60 upload -c "$TMP/pyro.conf"
expect_ok
[ "$(spool_files | wc -l)" -eq 0 ] || fail "smolder upload left dumps in the spool"
rcv_py <<'PY' || fail "Pyroscope did not get both profile types"
import collections, rcv_env, receiver as rcv
reqs = rcv.load_log(rcv_env.LOG)[rcv_env.SKIP:]
bad = [r for r in reqs if r.get("status") != 200]
assert not bad, ["%s: %s" % (r["params"].get("name"), r.get("answer")) for r in bad[:3]]
types = collections.Counter(r["app"].rsplit(".", 1)[1] for r in reqs)
print("pyroscope requests by type: %s" % dict(types))
assert types["cpu"] and types["block_duration"], types
PY

# a recording's file of two documents is uploaded a document at a time
RCV_SKIP=$(rcv_count)
rcv_mode ok
base_conf "$TMP/json.conf" "export = json" "url = $RCV_URL/v1/profiles" "timeout = 5s"
cp "$TMP/both.json" "$TMP/upload.json"
run_smolder 60 upload -c "$TMP/json.conf" "$TMP/upload.json"
expect_ok
[ ! -e "$TMP/upload.json" ] || fail "a delivered file of two documents was kept"
rcv_py <<'PY' || fail "the receiver did not get each event's document"
import rcv_env, receiver as rcv
got = [r["dump"]["event"]["name"] for r in rcv.load_log(rcv_env.LOG)[rcv_env.SKIP:] if r.get("dump")]
print("json receiver got: %s" % got)
assert got[-2:] == ["cpu-clock", "off-cpu"], got
PY
exit 0
