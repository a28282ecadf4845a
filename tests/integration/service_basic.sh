#!/bin/sh
# smolder run, interval 2 s, export json, for about 7 s: at least 3 POSTs, each
# a valid gzip JSON dump (dumpcheck + JSON Schema) with the JSON sink's
# headers; windows contiguous (end_i == start_i+1), interior boundaries
# aligned to the interval, distinct ids HOST@START_NS; SIGUSR1 ends a window
# early; SIGTERM flushes and exits 0 within 5 s leaving the spool empty.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

start_receiver ok
base_conf "$TMP/smolder.conf" "interval = 2s" "export = json" "url = $RCV_URL/v1/profiles" \
	"timeout = 5s" "retry_backoff_min = 200ms" "retry_backoff_max = 1s" "stats_interval = 1s" \
	"label.suite = service_basic"
start_load 20
start_daemon "$TMP/smolder.conf" 40
sleep 4.6
usr1_ns=$(date +%s%N)
kill -USR1 "$DAEMON_PID"
echo "SIGUSR1 at $usr1_ns"
sleep 2.4
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "smolder run exited with status $DAEMON_RC after SIGTERM, expected 0"
sleep 0.3

left=$(spool_files | wc -l)
[ "$left" -eq 0 ] || fail "$left dump(s) left in the spool after SIGTERM with a working collector: $(spool_files | tr '\n' ' ')"
[ -z "$(ls -A "$SPOOL/rejected" 2>/dev/null)" ] || fail "files in rejected/: $(ls "$SPOOL/rejected")"
mode=$(stat -c %a "$SPOOL")
[ "$mode" = 700 ] || fail "spool directory mode $mode, want 700"

rcv_py "$usr1_ns" <<'EOF' || fail "the POSTed windows are wrong (above)"
import sys, rcv_env, receiver as rcv
usr1_ns = int(sys.argv[1])
reqs = rcv.load_log(rcv_env.LOG)
errs = []
print("%d requests" % len(reqs))
ok = [r for r in reqs if r.get("status") == 200]
if len(ok) != len(reqs):
    errs.append("%d requests were not answered 200" % (len(reqs) - len(ok)))
if len(ok) < 3:
    errs.append("%d POSTs, want >= 3 in 7 s with interval 2s" % len(ok))
wins, ids = [], {}
for i, r in enumerate(ok):
    h = r["headers"]
    what = "POST #%d" % i
    if r["method"] != "POST" or r["path"] != "/v1/profiles":
        errs.append("%s: %s %s, want POST /v1/profiles" % (what, r["method"], r["path"]))
    if h.get("content-type", "").split(";")[0].strip() != "application/json":
        errs.append("%s: Content-Type %r" % (what, h.get("content-type")))
    if h.get("content-encoding") != "gzip":
        errs.append("%s: Content-Encoding %r, want gzip" % (what, h.get("content-encoding")))
    if not h.get("user-agent", "").startswith("smolder/"):
        errs.append("%s: User-Agent %r, want smolder/VERSION" % (what, h.get("user-agent")))
    if "dump" not in r:
        errs.append("%s: body is not gzip JSON: %s" % (what, r.get("decode_error")))
        continue
    d = r["dump"]
    errs += rcv.full_check(d, what, rcv_env.SCHEMA)
    if errs:
        continue
    if d["agent"]["version"] != h["user-agent"].split("/", 1)[1].split()[0]:
        errs.append("%s: User-Agent %r but agent.version %r" % (what, h["user-agent"], d["agent"]["version"]))
    if d["labels"].get("suite") != "service_basic":
        errs.append("%s: labels %r lack suite=service_basic" % (what, d["labels"]))
    w = d["window"]
    ids[w["id"]] = ids.get(w["id"], 0) + 1
    wins.append((w["start_ns"], w["end_ns"], w["id"]))
    print("  %s  %.3f s  %d samples, %d profiles, lost %d" % (w["id"], (w["end_ns"] - w["start_ns"]) / 1e9,
          d["stats"]["samples"], len(d["profiles"]), d["stats"]["lost"]))
    # windows end on the clock's whole intervals: the first may last only
    # milliseconds (CI's lasted 8 ms) and hold no sample at 99 Hz
    if sum(p["samples"] for p in d["profiles"]) == 0 and w["end_ns"] - w["start_ns"] >= 100000000:
        errs.append("%s: no samples at all while a CPU-bound workload ran" % what)
dup = [k for k, v in ids.items() if v > 1]
if dup:
    errs.append("window ids POSTed more than once: %s" % dup)
errs += rcv.contiguity_errors(wins)
ws = sorted(wins)
interval = 2 * 10**9
# Interior boundaries are the wall-clock grid, except the one SIGUSR1 made.
early = [w for w in ws[:-1] if w[1] % interval]
if len(early) > 1:
    errs.append("window ends not on the 2 s grid (only the SIGUSR1 one may be): %s" % early)
if not any(abs(w[1] - usr1_ns) < 600 * 10**6 for w in ws):
    errs.append("no window ended within 0.6 s of SIGUSR1 (%d): ends %s" % (usr1_ns, [w[1] for w in ws]))
for e in errs[:30]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
grep -qi 'stats' "$TMP/daemon.err" || fail "no stats line in the daemon's log (stats_interval = 1s)"
echo "stats lines: $(grep -ci 'stats' "$TMP/daemon.err")"
echo "service_basic: OK"
