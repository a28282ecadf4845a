#!/bin/sh
# systemd integration of `smolder run`: READY=1 on NOTIFY_SOCKET once sampling,
# RELOADING=1 then READY=1 around a SIGHUP, STOPPING=1 on SIGTERM, and the
# stop (flush + exit 0) within 5 s. Also --daemon --pidfile: the parent returns
# once the daemon runs, the pidfile names it and disappears at exit.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf system

cat >"$TMP/s.conf" <<CONF
interval = 2s
export = none
spool_dir = $TMP/spool
stats_interval = 0
CONF

"$PYTHON3" "$TESTS_SRCDIR/integration/notify_listener.py" "$TMP/notify.sock" "$TMP/notify.log" 40 &
BG_PIDS="$BG_PIDS $!"
i=0
while ! grep -q LISTENING "$TMP/notify.log" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 50 ] || fail "notify listener did not start"; sleep 0.1
done

NOTIFY_SOCKET="$TMP/notify.sock" timeout -k 5 60 "$SMOLDER" run -c "$TMP/s.conf" 2>"$TMP/run.err" &
DPID=$!
BG_PIDS="$BG_PIDS $DPID"
wait_for() { # wait_for PATTERN SECONDS
	_i=0
	while ! grep -q "$1" "$TMP/notify.log"; do
		_i=$((_i + 1)); [ $_i -lt $(($2 * 10)) ] || { cat "$TMP/run.err"; fail "no '$1' on NOTIFY_SOCKET within $2 s"; }
		sleep 0.1
	done
}
wait_for '^READY=1$' 15
echo "READY=1 received"
kill -HUP "$DPID"
wait_for '^RELOADING=1$' 5
[ "$(grep -c '^READY=1$' "$TMP/notify.log")" -ge 1 ] || fail "READY=1 missing"
i=0
while [ "$(grep -c '^READY=1$' "$TMP/notify.log")" -lt 2 ]; do
	i=$((i + 1)); [ $i -lt 50 ] || fail "no READY=1 after the reload"; sleep 0.1
done
echo "RELOADING=1 then READY=1 received on SIGHUP"
start=$(date +%s%N)
kill -TERM "$DPID"
wait "$DPID"; rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
echo "stopped with status $rc in ${elapsed_ms} ms"
[ "$rc" -eq 0 ] || { cat "$TMP/run.err"; fail "smolder run exited $rc on SIGTERM"; }
[ "$elapsed_ms" -lt 5000 ] || fail "stop took ${elapsed_ms} ms (limit 5000)"
grep -q '^STOPPING=1$' "$TMP/notify.log" || fail "no STOPPING=1"
ls "$TMP/spool"/*.json.gz >/dev/null 2>&1 || fail "no dump flushed to the spool"

# SysV style: --daemon returns once the daemon runs; the pidfile is locked and removed at exit.
timeout 20 "$SMOLDER" run -c "$TMP/s.conf" --daemon --pidfile "$TMP/smolder.pid" 2>"$TMP/daemon.err"
rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/daemon.err"; fail "--daemon exited $rc"; }
[ -s "$TMP/smolder.pid" ] || fail "no pidfile"
DAEMON=$(cat "$TMP/smolder.pid")
BG_PIDS="$BG_PIDS $DAEMON"
kill -0 "$DAEMON" 2>/dev/null || fail "pid $DAEMON from the pidfile is not running"
timeout 10 "$SMOLDER" run -c "$TMP/s.conf" --daemon --pidfile "$TMP/smolder.pid" 2>"$TMP/second.err"
[ $? -ne 0 ] || fail "a second daemon with the same pidfile started"
grep -q "another smolder" "$TMP/second.err" || { cat "$TMP/second.err"; fail "second daemon: no clear message"; }
kill -TERM "$DAEMON"
i=0
while kill -0 "$DAEMON" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 60 ] || fail "daemon did not stop"; sleep 0.1
done
[ ! -e "$TMP/smolder.pid" ] || fail "pidfile left behind"
echo "--daemon/--pidfile: detached, locked, removed at exit"
