#!/bin/sh
# A collector flapping: the receiver alternates ok / refused connections every
# 2 s for 40 s (rather than minutes, to fit make check's 90 s per test), then
# stays up. With interval 1s and export = json: after the final ok period and
# SIGTERM, the spool is empty, every window produced was
# delivered exactly once (by window.id), each delivered dump passes the full
# check, and the delivered windows are contiguous (no gap, no overlap) over
# the whole run; the daemon never died and exits 0.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

FLAP_SECS=40
start_receiver ok
base_conf "$TMP/smolder.conf" "interval = 1s" "export = json" "url = $RCV_URL/ingest/json" \
	"timeout = 2s" "connect_timeout = 1s" "retry_backoff_min = 200ms" "retry_backoff_max = 1s" \
	"cpu_budget = 50%"
start_load 80
start_daemon "$TMP/smolder.conf" 85
wait_rcv 1 6 'r.get("status") == 200' || fail "no window delivered within 6 s"
: >"$TMP/seen"
t=0
mode=refuse
while [ "$t" -lt "$FLAP_SECS" ]; do
	rcv_mode "$mode" >/dev/null
	i=0
	while [ "$i" -lt 4 ]; do
		spool_files >>"$TMP/seen"
		sleep 0.5
		i=$((i + 1))
	done
	daemon_alive || fail "the daemon died while the collector flapped (at ${t}s)"
	t=$((t + 2))
	if [ "$mode" = refuse ]; then mode=ok; else mode=refuse; fi
done
rcv_mode ok
sort -u "$TMP/seen" >"$TMP/seen.u"
echo "flapped for ${FLAP_SECS}s; $(wc -l <"$TMP/seen.u") distinct dumps seen in the spool meanwhile"
wait_gone "$TMP/seen.u" 15 || fail "dumps spooled while flapping still in the spool 15 s after the collector settled"
sleep 1.5
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"
sleep 0.3
[ -z "$(spool_files)" ] || fail "spool not empty after SIGTERM: $(spool_files | tr '\n' ' ')"
nlost=$(grep -c 'the window is lost' "$TMP/daemon.err")
[ "$nlost" -eq 0 ] || fail "$nlost windows lost (not spooled)"

rcv_py "$TMP/seen.u" <<'PYEOF' || fail "windows lost or duplicated (above)"
import sys, collections, rcv_env, receiver as rcv
seen = [l.strip() for l in open(sys.argv[1]) if l.strip()]
reqs = rcv.load_log(rcv_env.LOG)
ok = [r for r in reqs if r.get("status") == 200]
errs = []
byid = collections.Counter(r.get("window_id") for r in ok)
dups = {k: v for k, v in byid.items() if v > 1}
if dups:
    errs.append("windows delivered more than once: %s" % dups)
wins = []
for r in ok:
    if "dump" not in r:
        errs.append("a 200 POST without a gzip JSON dump: %s" % r.get("decode_error"))
        continue
    errs += rcv.full_check(r["dump"], r.get("window_id"), rcv_env.SCHEMA)
    w = r["dump"]["window"]
    wins.append((w["start_ns"], w["end_ns"], w["id"]))
starts = {w[0] for w in wins}
for name in seen:
    if int(name.split("-", 1)[0]) not in starts:
        errs.append("spooled while flapping but never delivered: %s" % name)
errs += rcv.contiguity_errors(wins)
span = (max(w[1] for w in wins) - min(w[0] for w in wins)) / 1e9 if wins else 0
print("%d requests (%d refused/unanswered or failed), %d windows delivered covering %.1f s, %d spooled while flapping"
      % (len(reqs), len(reqs) - len(ok), len(ok), span, len(seen)))
if span < 40:
    errs.append("delivered windows cover only %.1f s of a >= 45 s run" % span)
for e in errs[:30]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
PYEOF
echo "fault_flapping: OK"
