#!/bin/sh
# The SysV init script drives the real daemon: start (0) -> status (0) ->
# start again (0, already running) -> reload (0; the edited configuration is
# in effect) -> status (0, same pid) -> stop (0) -> status (3) -> reload (7)
# -> stop again (0). Under dash when present, with and without the LSB init
# functions. Paths come from SMOLDER_BIN, SMOLDER_CONF, SMOLDER_PIDFILE.
. "$TESTS_SRCDIR/packaging/lib.sh"

INIT=$BUILDDIR/packaging/smolder.init
[ -f "$INIT" ] || fail "no generated init script at $INIT (make all builds it)"

# sampling every CPU must be permitted here
if [ -n "${PYTHON3:-}" ]; then
	$PYTHON3 "$TESTS_SRCDIR/integration/dumpcheck.py" perf-allowed system || {
		rc=$?
		[ "$rc" -eq 77 ] && skip "perf_event_open not permitted for system-wide sampling here"
		fail "perf-allowed probe failed (status $rc)"
	}
else
	"$SMOLDER" probe 2>/dev/null | grep -q 'system-wide.*yes' ||
		skip "smolder probe: system-wide sampling not available here (and no python3)"
fi

SH=sh
command -v dash >/dev/null 2>&1 && SH=dash

SMOLDER_BIN=$SMOLDER
SMOLDER_CONF=$TMP/smolder.conf
SMOLDER_PIDFILE=$TMP/smolder.pid
SMOLDER_DEFAULTS=$TMP/no-such-defaults
_SYSTEMCTL_SKIP_REDIRECT=1
export SMOLDER_BIN SMOLDER_CONF SMOLDER_PIDFILE SMOLDER_DEFAULTS _SYSTEMCTL_SKIP_REDIRECT

kill_leftover() {
	if [ -f "$SMOLDER_PIDFILE" ]; then
		p=$(cat "$SMOLDER_PIDFILE" 2>/dev/null)
		[ -n "$p" ] && kill -9 "$p" 2>/dev/null
	fi
}
CLEANUP_HOOKS=kill_leftover

# run_init EXPECTED ACTION: runs the script, checks its exit status.
run_init() {
	_want=$1
	shift
	echo "+ $SH smolder.init $*"
	timeout -k 5 60 "$SH" "$INIT" "$@" >"$TMP/init.out" 2>&1
	_rc=$?
	sed 's/^/    /' "$TMP/init.out"
	[ "$_rc" -eq "$_want" ] || fail "'$*' exited with $_rc, expected $_want"
}

newest_dump() {
	ls "$TMP/spool"/*.json.gz 2>/dev/null | sort | tail -n 1
}

cycle() {
	echo "=== cycle: $1"
	rm -rf "$TMP/spool"
	cat >"$SMOLDER_CONF" <<CONF
interval = 2s
export = none
spool_dir = $TMP/spool
stats_interval = 0
label.phase = before
CONF
	run_init 3 status
	run_init 0 start
	[ -f "$SMOLDER_PIDFILE" ] || fail "no pid file after start"
	pid=$(cat "$SMOLDER_PIDFILE")
	kill -0 "$pid" 2>/dev/null || fail "pid $pid from the pid file is not running"
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = smolder ] || fail "pid $pid is not smolder"
	ok "started, pid $pid"
	run_init 0 status
	run_init 0 start
	[ "$(cat "$SMOLDER_PIDFILE")" = "$pid" ] || fail "a second start replaced the daemon"

	sed 's/^label.phase = before$/label.phase = after/' "$SMOLDER_CONF" >"$TMP/c" &&
		mv "$TMP/c" "$SMOLDER_CONF"
	run_init 0 reload
	sleep 1
	run_init 0 status
	[ "$(cat "$SMOLDER_PIDFILE" 2>/dev/null)" = "$pid" ] || fail "the daemon changed after reload"
	kill -0 "$pid" 2>/dev/null || fail "the daemon died on reload"

	run_init 0 stop
	[ -f "$SMOLDER_PIDFILE" ] && fail "pid file left after stop"
	i=0
	while [ -d "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 50 ] || fail "pid $pid still runs after stop"
		sleep 0.1
	done
	ok "stopped"
	run_init 3 status
	run_init 7 reload
	run_init 0 stop

	# The window flushed at stop was cut with the reloaded configuration.
	f=$(newest_dump)
	[ -n "$f" ] || fail "no dump in the spool after stop"
	gzip -dc "$f" | tr -d ' \n' | grep -q '"phase":"after"' ||
		fail "the last dump ($f) lacks label phase=after: reload did not take effect"
	ok "the dump flushed at stop carries the reloaded label"
}

if [ -r /lib/lsb/init-functions ]; then
	SMOLDER_LSB_FUNCTIONS=/lib/lsb/init-functions
	export SMOLDER_LSB_FUNCTIONS
	cycle "$SH with /lib/lsb/init-functions"
fi
SMOLDER_LSB_FUNCTIONS=$TMP/no-lsb-functions
export SMOLDER_LSB_FUNCTIONS
cycle "$SH with the fallback functions"

# A stale pid file (a crash) reads as "dead" (1), and start recovers.
echo 999999 >"$SMOLDER_PIDFILE"
run_init 1 status
run_init 0 start
run_init 0 stop
exit 0
