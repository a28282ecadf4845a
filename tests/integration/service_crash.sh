#!/bin/sh
# kill -9 of the daemon at several moments around the window ends (interval
# 1s: windows are written just after each whole second) while the collector
# refuses connections; then a restart with the collector up: no partial file
# is ever visible in the spool (every dump-named file parses; a stale '.tmp'
# file is never sent), and every complete window is delivered exactly once.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

start_receiver refuse
base_conf "$TMP/smolder.conf" "interval = 1s" "export = json" "url = $RCV_URL/v1/profiles" \
	"timeout = 2s" "connect_timeout = 1s" "retry_backoff_min = 200ms" "retry_backoff_max = 1s"
start_load 40

# sleep_to_second MS: sleep until MS milliseconds past a whole second, 1-2 s ahead.
sleep_to_second() {
	$PYTHON3 -c 'import time, sys; t = time.time(); time.sleep(2 - t % 1 + float(sys.argv[1]) / 1000)' "$1"
}
rnd() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }

: >"$TMP/complete"
for round in 1 2 3 4 5 6; do
	start_daemon "$TMP/smolder.conf" 30
	off=$(( $(rnd) % 40 ))
	[ "$round" -eq 6 ] && off=$(( 100 + $(rnd) % 800 ))
	sleep_to_second "$off"
	kill9_daemon
	echo "round $round: kill -9 at +${off} ms past the second; spool: $(ls -A "$SPOOL" | tr '\n' ' ')"
	rcv_py <<'EOF' || fail "a partial or corrupt dump is visible in the spool after kill -9 (above)"
import os, sys, rcv_env, receiver as rcv
errs = []
for f in sorted(os.listdir(rcv_env.SPOOL)):
    p = os.path.join(rcv_env.SPOOL, f)
    if f == "rejected" or f.startswith("."):
        continue
    try:
        d = rcv.load_gz_dump(p)
    except Exception as e:
        errs.append("%s (%d bytes) does not parse: %s" % (f, os.path.getsize(p), e))
        continue
    errs += rcv.full_check(d, f, rcv_env.SCHEMA)
for e in errs:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
	spool_files >>"$TMP/complete"
done
dots=$(ls -A "$SPOOL" | grep '^\.' | tr '\n' ' ')
[ -n "$dots" ] && echo "note: stale temp files after the kills (allowed by doc/format.md §5): $dots"
sort -u "$TMP/complete" >"$TMP/complete.u"
echo "complete dumps spooled across the kills: $(wc -l <"$TMP/complete.u")"
[ -s "$TMP/complete.u" ] || fail "no complete dump in the spool after 6 runs of 1-2 s each"

rcv_mode ok
start_daemon "$TMP/smolder.conf" 40
wait_gone "$TMP/complete.u" 10 || fail "the restarted daemon did not deliver the spooled dumps within 10 s"
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"

rcv_py "$TMP/complete.u" <<'EOF' || fail "windows lost, duplicated or corrupt after the kills (above)"
import sys, collections, rcv_env, receiver as rcv
want = [l.strip() for l in open(sys.argv[1]) if l.strip()]
reqs = rcv.load_log(rcv_env.LOG)
ok = [r for r in reqs if r.get("status") == 200]
errs = []
for r in ok:
    if "dump" not in r:
        errs.append("a POST that is not a gzip JSON dump (%d bytes): %s" % (r["body_len"], r.get("decode_error")))
    else:
        errs += rcv.full_check(r["dump"], r.get("window_id"), rcv_env.SCHEMA)
ids = collections.Counter(r.get("window_id") for r in ok)
dups = {k: v for k, v in ids.items() if v > 1}
if dups:
    errs.append("delivered more than once: %s" % dups)
starts = {int(w.rsplit("@", 1)[1]) for w in ids if w}
for name in want:
    if int(name.split("-", 1)[0]) not in starts:
        errs.append("complete window %s spooled before a kill -9 was never delivered" % name)
print("%d windows delivered, %d were spooled across the kills" % (len(ok), len(want)))
for e in errs[:30]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
dots=$(ls -A "$SPOOL" | grep '^\.' | tr '\n' ' ')
[ -z "$dots" ] || fail "temp files of interrupted writes still in the spool after the restart: $dots"
echo "service_crash: OK"
