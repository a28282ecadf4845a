#!/bin/sh
# Config errors: smolder run -c BROKEN exits 2 with one "PATH:LINE: KEY:
# problem" line. SIGHUP with a broken config: "reload failed ... keeping the
# previous configuration" naming file:line, and the daemon keeps POSTing
# windows with the old configuration. Then the fixed config + SIGHUP: the new
# configuration is in effect (its label shows in the next windows).
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

start_receiver ok
good() {
	base_conf "$TMP/smolder.conf" "interval = 1s" "export = json" "url = $RCV_URL/v1/profiles" \
		"timeout = 2s" "retry_backoff_min = 200ms" "retry_backoff_max = 1s" "label.phase = $1"
}
broken() { # line 4 is the bad one
	{
		echo "# broken on purpose"
		echo "spool_dir = $SPOOL"
		echo "export = json"
		echo "interval = banana"
		echo "url = $RCV_URL/v1/profiles"
	} >"$TMP/smolder.conf"
}

broken
run_smolder 20 run -c "$TMP/smolder.conf"
[ "$SM_RC" -eq 2 ] || fail "smolder run with a broken config exited $SM_RC, want 2"
nl=$(grep -c . "$TMP/smolder.err")
grep -q "$TMP/smolder.conf:4: interval:" "$TMP/smolder.err" \
	|| fail "the error does not read '$TMP/smolder.conf:4: interval: problem'"
[ "$nl" -eq 1 ] || echo "note: $nl lines on stderr for a config error (one expected)"
[ "$(rcv_count)" -eq 0 ] || fail "requests sent by a run with a broken config"

good one
start_load 30
start_daemon "$TMP/smolder.conf" 60
wait_rcv 2 6 'r.get("status") == 200' || fail "fewer than 2 windows POSTed in 6 s"
broken
kill -HUP "$DAEMON_PID"
hup1=$(date +%s%N)
sleep 1
daemon_alive || fail "the daemon died on SIGHUP with a broken config"
grep -i 'reload failed' "$TMP/daemon.err" | head -n 2 | cut -c1-300
grep -i 'reload failed' "$TMP/daemon.err" | grep -q "$TMP/smolder.conf:4" \
	|| fail "no 'reload failed' line naming $TMP/smolder.conf:4"
grep -i 'keeping the previous configuration' "$TMP/daemon.err" >/dev/null \
	|| fail "the reload failure does not say it keeps the previous configuration"
n=$(rcv_count)
wait_rcv $((n + 2)) 5 'r.get("status") == 200' || fail "no more windows POSTed after the failed reload"
good two
kill -HUP "$DAEMON_PID"
hup2=$(date +%s%N)
sleep 1
daemon_alive || fail "the daemon died on SIGHUP with a good config"
n=$(rcv_count)
wait_rcv $((n + 2)) 5 'r.get("status") == 200' || fail "no more windows POSTed after the good reload"
sleep 0.5
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"

rcv_py "$hup1" "$hup2" <<'EOF' || fail "the configuration in effect is wrong (above)"
import sys, rcv_env, receiver as rcv
hup1, hup2 = int(sys.argv[1]), int(sys.argv[2])
errs = []
ok = [r for r in rcv.load_log(rcv_env.LOG) if r.get("status") == 200 and "dump" in r]
rows = []
for r in ok:
    errs += rcv.full_check(r["dump"], r.get("window_id"), rcv_env.SCHEMA)
    w = r["dump"]["window"]
    rows.append((w["start_ns"], w["end_ns"], r["dump"]["labels"].get("phase")))
rows.sort()
for s, e, ph in rows:
    print("  window %d..%d phase=%s" % (s, e, ph))
# Windows that started after the failed reload and ended before the good one: old config.
mid = [x for x in rows if x[0] >= hup1 and x[1] <= hup2]
late = [x for x in rows if x[0] >= hup2 + 10**9]
if not mid:
    errs.append("no window between the two SIGHUPs")
if any(x[2] != "one" for x in mid):
    errs.append("after the failed reload the label changed: %s" % mid)
if not late:
    errs.append("no complete window after the good reload")
if any(x[2] != "two" for x in late):
    errs.append("after the good reload label.phase is not 'two': %s" % late)
errs += rcv.contiguity_errors([(x[0], x[1], str(x[2])) for x in rows])
for e in errs[:30]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
echo "service_reload: OK"
