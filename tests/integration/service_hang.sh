#!/bin/sh
# The collector accepts and never answers (timeout = 2s): the timeouts are
# logged, the daemon keeps sampling (windows keep landing in the spool, with
# samples and stats.lost == 0), and SIGTERM still exits 0 within 5 s.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

start_receiver hang
base_conf "$TMP/smolder.conf" "interval = 1s" "export = json" "url = $RCV_URL/v1/profiles" \
	"timeout = 2s" "connect_timeout = 1s" "retry_backoff_min = 200ms" "retry_backoff_max = 1s"
start_load 30
start_daemon "$TMP/smolder.conf" 60
sleep 3
n1=$(spool_files | wc -l)
sleep 5
n2=$(spool_files | wc -l)
echo "spooled dumps: $n1 after 3 s, $n2 after 8 s"
[ "$n2" -ge $((n1 + 3)) ] || fail "windows stopped being spooled while the collector hangs ($n1 -> $n2 in 5 s, interval 1s)"
nreq=$(rcv_count 'r.get("hung")')
echo "requests the collector held: $nreq (logged when released)"
grep -Eiq 'time(d)? ?out' "$TMP/daemon.err" || fail "no timeout logged while the collector hangs"
grep -Ei 'time(d)? ?out' "$TMP/daemon.err" | head -n 2 | cut -c1-300
cp -p "$SPOOL"/*.json.gz "$TMP/" 2>/dev/null
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"
rcv_mode ok   # releases the held requests, which the receiver then logs
sleep 0.3
nreq=$(rcv_count 'r.get("hung")')
[ "$nreq" -ge 2 ] || fail "only $nreq request(s) reached the hanging collector in 8 s (timeout 2s: expected retries)"

rcv_py <<'EOF' || fail "dumps written while the collector hangs are wrong (above)"
import os, glob, sys, rcv_env, receiver as rcv
errs = []
wins = []
files = sorted(set(glob.glob(os.path.join(rcv_env.SPOOL, "*.json.gz"))) |
               set(glob.glob(os.path.join(rcv_env.TMP, "[0-9]*.json.gz"))), key=os.path.basename)
seen = set()
for f in files:
    b = os.path.basename(f)
    if b in seen:
        continue
    seen.add(b)
    d = rcv.load_gz_dump(f)
    e = rcv.full_check(d, b, rcv_env.SCHEMA)
    errs += e
    if e:
        continue
    st = d["stats"]
    print("  %s samples=%d lost=%d" % (b, st["samples"], st["lost"]))
    if st["lost"] != 0:
        errs.append("%s: stats.lost = %d (window %d of the run) while the collector hangs"
                    % (b, st["lost"], len(wins) + 1))
    wins.append((d["window"]["start_ns"], d["window"]["end_ns"], b))
if len(wins) < 6:
    errs.append("only %d windows spooled in ~8 s" % len(wins))
errs += rcv.contiguity_errors(wins)
for e in errs[:30]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
echo "service_hang: OK"
