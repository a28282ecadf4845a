#!/bin/sh
# 500 then 200: the window is retried and delivered once (the receiver sees
# its id twice: 500, then 200). Then 400 "bad profile: test rejection": the
# dump moves to spool/rejected/NAME with NAME.reason holding the server's
# message, the daemon's stderr has the message, the window is never retried,
# and later windows are delivered again once the collector accepts.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

start_receiver sequence 500,200
base_conf "$TMP/smolder.conf" "interval = 1s" "export = json" "url = $RCV_URL/v1/profiles" \
	"timeout = 2s" "retry_backoff_min = 200ms" "retry_backoff_max = 1s"
start_load 30
start_daemon "$TMP/smolder.conf" 60
wait_rcv 2 8 'r.get("status") == 200' || fail "fewer than 2 windows delivered within 8 s"
rcv_mode status 400 bad profile: test rejection
wait_rcv 1 6 'r.get("status") == 400' || fail "no request reached the collector within 6 s of the 400 mode"
sleep 0.5
rcv_mode ok
n400=$(rcv_count 'r.get("status") == 400')
wait_rcv $((n400 + 3)) 8 'r.get("status") is not None' || fail "windows not delivered again after the 400 phase"
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"

echo "rejected/: $(ls "$SPOOL/rejected" 2>/dev/null | tr '\n' ' ')"
grep -q 'bad profile: test rejection' "$TMP/daemon.err" \
	|| fail "the daemon's stderr does not show the server's answer 'bad profile: test rejection'"
grep 'bad profile: test rejection' "$TMP/daemon.err" | head -n 3 | cut -c1-300

rcv_py <<'EOF' || fail "retry/reject behaviour wrong (above)"
import os, sys, collections, rcv_env, receiver as rcv
reqs = [r for r in rcv.load_log(rcv_env.LOG) if r.get("status") is not None]
errs = []
if not reqs or reqs[0].get("status") != 500:
    errs.append("first request was not answered 500")
else:
    w500 = reqs[0].get("window_id")
    later = [r.get("status") for r in reqs[1:] if r.get("window_id") == w500]
    print("window %s: 500, then %s" % (w500, later))
    if later[:1] != [200]:
        errs.append("window %s answered 500 was not retried first (next requests for it: %s; "
                    "next request overall for %s)" % (w500, later, reqs[1].get("window_id") if len(reqs) > 1 else None))
delivered = collections.Counter(r.get("window_id") for r in reqs if r["status"] == 200)
dups = {k: v for k, v in delivered.items() if v > 1}
if dups:
    errs.append("delivered more than once: %s" % dups)
rej = {r.get("window_id"): r for r in reqs if r["status"] == 400}
if not rej:
    errs.append("no request answered 400")
rdir = os.path.join(rcv_env.SPOOL, "rejected")
files = sorted(os.listdir(rdir)) if os.path.isdir(rdir) else []
dumps = [f for f in files if f.endswith(".json.gz")]
for wid, r in rej.items():
    if wid in delivered:
        errs.append("window %s was rejected (400) but later delivered: a rejected dump must not be retried" % wid)
    host, start = wid.rsplit("@", 1)
    cand = [f for f in dumps if f.startswith("%020d-" % int(start))]
    if len(cand) != 1:
        errs.append("rejected window %s: no single file in rejected/ (have %s)" % (wid, files))
        continue
    f = cand[0]
    try:
        d = rcv.load_gz_dump(os.path.join(rdir, f))
        if d["window"]["id"] != wid:
            errs.append("rejected/%s holds window %s, want %s" % (f, d["window"]["id"], wid))
    except Exception as e:
        errs.append("rejected/%s is not a readable dump: %s" % (f, e))
    reason = os.path.join(rdir, f + ".reason")
    try:
        text = open(reason, encoding="utf-8", errors="replace").read()
        print("%s.reason: %r" % (f, text[:200]))
        if "bad profile: test rejection" not in text:
            errs.append("%s.reason lacks the server's message: %r" % (f, text[:300]))
    except OSError as e:
        errs.append("no %s.reason: %s" % (f, e))
extra = [f for f in dumps if not any(f.startswith("%020d-" % int(w.rsplit("@", 1)[1])) for w in rej)]
if extra:
    errs.append("files in rejected/ that were never answered 400: %s" % extra)
for f in os.listdir(rcv_env.SPOOL):
    if f.endswith(".json.gz"):
        errs.append("dump left in the spool after SIGTERM: %s" % f)
print("%d requests: %s" % (len(reqs), collections.Counter(r["status"] for r in reqs)))
for e in errs[:30]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
echo "service_retry: OK"
