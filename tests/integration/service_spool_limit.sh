#!/bin/sh
# spool_max_size = 16KiB with the collector down: the dumps in the spool never
# total more than 16 KiB (sampled every 200 ms), the oldest are dropped first,
# the drop is logged and counted in a later dump's stats.spool_dropped (seen
# once the collector is back).
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain threads recurse
need_perf system

LIMIT=16384
start_receiver refuse
base_conf "$TMP/smolder.conf" "interval = 1s" "frequency = 499" "export = json" "url = $RCV_URL/v1/profiles" \
	"spool_max_size = 16KiB" "timeout = 2s" "connect_timeout = 1s" \
	"retry_backoff_min = 200ms" "retry_backoff_max = 1s"
# Varied stacks make bigger dumps, so the limit is reached within seconds.
start_load 60
"$WORKLOADS/threads" 60 >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
"$WORKLOADS/recurse" 60 >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
start_daemon "$TMP/smolder.conf" 90

# Sample the spool every 200 ms until dumps have been dropped (or 40 s).
rcv_py "$LIMIT" <<'EOF' || fail "the spool exceeded spool_max_size or never filled (above)"
import os, sys, time, rcv_env
limit = int(sys.argv[1])
seen, first_drop, over, maxtotal, sizes = set(), None, [], 0, {}
t_end = time.time() + 40
while time.time() < t_end:
    try:
        names = sorted(f for f in os.listdir(rcv_env.SPOOL) if f.endswith(".json.gz") and not f.startswith("."))
    except FileNotFoundError:
        names = []
    total = 0
    for f in names:
        try:
            sizes[f] = os.path.getsize(os.path.join(rcv_env.SPOOL, f))
            total += sizes[f]
        except FileNotFoundError:
            pass
    maxtotal = max(maxtotal, total)
    if total > limit:
        over.append("%.1f: %d bytes in %d files: %s" % (time.time(), total, len(names), names))
    gone = seen - set(names)
    if gone and names:
        if max(gone) > min(names):
            over.append("dropped %s while older %s stays: not oldest first" % (sorted(gone), min(names)))
        if first_drop is None:
            first_drop = time.time()
            print("first drop after %d dumps (sizes %s)" % (len(seen), sorted(sizes[f] for f in seen)[:8]))
    seen |= set(names)
    if first_drop and time.time() > first_drop + 4:
        break
    time.sleep(0.2)
print("max spool total %d bytes (limit %d), %d dumps seen, drops: %s" % (maxtotal, limit, len(seen), bool(first_drop)))
for o in over[:10]:
    print("ERROR: " + o)
if first_drop is None:
    print("ERROR: no dump was ever dropped in 40 s (dumps of %s bytes)" % sorted(sizes.values())[:10])
sys.exit(1 if over or first_drop is None else 0)
EOF
rcv_mode ok
spool_files >"$TMP/left"
wait_gone "$TMP/left" 10 || fail "the spooled dumps were not delivered within 10 s of the collector's return"
sleep 1.2
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"
grep -Ei 'drop' "$TMP/daemon.err" | grep -Ei 'spool' | head -n 3 | cut -c1-300
grep -Ei 'drop' "$TMP/daemon.err" | grep -qi 'spool' || fail "no log line about dumps dropped from the spool"

rcv_py <<'EOF' || fail "spool drops not counted in the dumps (above)"
import sys, rcv_env, receiver as rcv
ok = [r for r in rcv.load_log(rcv_env.LOG) if r.get("status") == 200 and "dump" in r]
errs = []
tot = 0
for r in ok:
    errs += rcv.full_check(r["dump"], r.get("window_id"), rcv_env.SCHEMA)
    sd = r["dump"]["stats"].get("spool_dropped")
    if sd is not None:
        tot += sd
    print("  %s spool_dropped=%s" % (r.get("window_id"), sd))
if not ok:
    errs.append("nothing delivered after the collector came back")
if tot < 1:
    errs.append("no delivered dump counts stats.spool_dropped > 0, though dumps were dropped")
for e in errs[:30]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
echo "service_spool_limit: OK"
