#!/bin/sh
# The collector refuses connections for ~5 s, then comes back: the windows
# produced meanwhile pile up in the spool (files 0600, dir 0700), then every
# one of them arrives, none twice (by window.id); after SIGTERM the spool is
# empty and the delivered windows cover the whole run without gap.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

start_receiver ok
base_conf "$TMP/smolder.conf" "interval = 1s" "export = json" "url = $RCV_URL/ingest/json" \
	"timeout = 2s" "connect_timeout = 1s" "retry_backoff_min = 200ms" "retry_backoff_max = 1s"
start_load 30
start_daemon "$TMP/smolder.conf" 60
wait_rcv 1 6 'r.get("status") == 200' || fail "no window delivered within 6 s"
rcv_mode refuse
: >"$TMP/seen"
i=0
while [ "$i" -lt 25 ]; do
	spool_files >>"$TMP/seen"
	sleep 0.2
	i=$((i + 1))
done
sort -u "$TMP/seen" >"$TMP/seen.u"
n=$(wc -l <"$TMP/seen.u")
echo "dumps seen in the spool while refused: $n"
[ "$n" -ge 3 ] || fail "only $n dump(s) spooled during 5 s of refused connections (interval 1s)"
f=$(spool_files | head -n 1)
[ -n "$f" ] || fail "spool empty while the collector refuses connections"
fm=$(stat -c %a "$SPOOL/$f")
dm=$(stat -c %a "$SPOOL")
[ "$fm" = 600 ] || fail "spool file $f has mode $fm, want 600"
[ "$dm" = 700 ] || fail "spool dir has mode $dm, want 700"
rcv_mode ok
# Backoff is capped at 1 s: everything must be through within a few seconds.
wait_gone "$TMP/seen.u" 10 || fail "dumps spooled during the outage still in the spool 10 s after the collector came back"
sleep 1.5
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"
sleep 0.3
[ -z "$(spool_files)" ] || fail "spool not empty after SIGTERM: $(spool_files | tr '\n' ' ')"

rcv_py "$TMP/seen.u" <<'EOF' || fail "windows lost or duplicated (above)"
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
    st = int(name.split("-", 1)[0])
    if st not in starts:
        errs.append("spooled while refused but never delivered: %s" % name)
errs += rcv.contiguity_errors(wins)
print("%d requests, %d delivered windows, %d spooled during the outage, %d unanswered"
      % (len(reqs), len(ok), len(seen), sum(1 for r in reqs if r.get("status") is None)))
for e in errs[:30]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
echo "service_refuse: OK"
