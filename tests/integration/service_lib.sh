# Helpers of the always-on service tests (service_*.sh, upload_*.sh); sourced
# after lib.sh. A test collector (receiver.py) on 127.0.0.1, the daemon run in
# the background with a watchdog, and Python snippets that import receiver.py
# and dumpcheck.py. Everything started here is killed by lib.sh's cleanup.

RCV_PY="$TESTS_SRCDIR/integration/receiver.py"
SCHEMA_JSON="$TESTS_SRCDIR/../doc/smolder.profile.v1.schema.json"
RCV_SEQ=0
RCV_SKIP=0
DAEMON_PID=
DAEMON_RC=
SPOOL="$TMP/spool"
export SCHEMA_JSON

# Keep the post-mortem material in the test's log when it fails.
svc_cleanup() {
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
		if [ -s "$TMP/daemon.err" ]; then
			echo "--- daemon stderr (last 40 lines)"
			tail -n 40 "$TMP/daemon.err" | cut -c1-400
		fi
		if [ -d "$SPOOL" ]; then
			echo "--- spool"
			ls -la "$SPOOL" "$SPOOL/rejected" 2>/dev/null | head -n 40
		fi
		if [ -s "$TMP/rcv.log" ]; then
			echo "--- receiver requests (time mode status path window_id)"
			rcv_py <<'EOF' | tail -n 40
import rcv_env, receiver
for r in receiver.load_log(rcv_env.LOG):
    print("  %.3f %-12s %-5s %s %s %s" % (r["time"], r["mode"][:12], r.get("status"), r["path"],
          r.get("window_id") or "", (r.get("answer") or "")[:80]))
EOF
		fi
	fi
	[ -n "$DAEMON_PID" ] && kill -9 "$DAEMON_PID" 2>/dev/null
	cleanup
	exit "$rc"
}
trap svc_cleanup EXIT

# rcv_py [ARGS]: run a Python snippet from stdin with receiver.py and
# dumpcheck.py importable and rcv_env giving LOG, SPOOL, TMP, SCHEMA.
rcv_py() {
	cat >"$TMP/rcv_env.py" <<EOF
LOG = "$TMP/rcv.log"
SPOOL = "$SPOOL"
TMP = "$TMP"
SCHEMA = "$SCHEMA_JSON"
SKIP = ${RCV_SKIP:-0}   # requests logged before this test phase
EOF
	PYTHONPATH="$TMP:$TESTS_SRCDIR/integration${PYTHONPATH:+:$PYTHONPATH}" \
		PYTHONDONTWRITEBYTECODE=1 $PYTHON3 - "$@"
}

# start_receiver MODE...: the test collector; sets RCV_PORT and RCV_URL.
start_receiver() {
	rm -f "$TMP/rcv.port"
	timeout -k 2 300 $PYTHON3 "$RCV_PY" --port-file "$TMP/rcv.port" --log "$TMP/rcv.log" \
		--control "$TMP/rcv.ctl" --mode "$*" --max-time 240 2>"$TMP/rcv.err" &
	BG_PIDS="$BG_PIDS $!"
	i=0
	while [ ! -s "$TMP/rcv.port" ]; do
		i=$((i + 1))
		[ "$i" -gt 100 ] && { cat "$TMP/rcv.err"; fail "receiver did not start"; }
		sleep 0.1
	done
	RCV_PORT=$(cat "$TMP/rcv.port")
	RCV_URL="http://127.0.0.1:$RCV_PORT"
	echo "receiver on $RCV_URL, mode: $*"
}

# rcv_mode MODE...: switch the receiver and wait until the switch is in effect.
rcv_mode() {
	RCV_SEQ=$((RCV_SEQ + 1))
	echo "$RCV_SEQ $*" >"$TMP/rcv.ctl.tmp"
	mv "$TMP/rcv.ctl.tmp" "$TMP/rcv.ctl"
	i=0
	while [ "$(cat "$TMP/rcv.ctl.state" 2>/dev/null)" != "$RCV_SEQ $*" ]; do
		i=$((i + 1))
		[ "$i" -gt 100 ] && { cat "$TMP/rcv.err"; fail "receiver did not switch to mode '$*'"; }
		sleep 0.05
	done
	echo "$(date +%T.%N | cut -c1-12) receiver mode: $*"
}

# rcv_count [PYTHON-CONDITION]: number of logged requests matching (r is the record).
rcv_count() {
	rcv_py "${1:-True}" <<'EOF'
import sys, rcv_env, receiver
print(sum(1 for r in receiver.load_log(rcv_env.LOG)[rcv_env.SKIP:] if eval(sys.argv[1])))
EOF
}

# wait_rcv N SECONDS [CONDITION]: wait until at least N requests match.
wait_rcv() {
	_n=$1 _s=$2 _c=${3:-True}
	_i=0
	while [ "$(rcv_count "$_c")" -lt "$_n" ]; do
		_i=$((_i + 1))
		[ "$_i" -gt $((_s * 5)) ] && return 1
		sleep 0.2
	done
	return 0
}

# base_conf FILE [EXTRA LINES...]: a config for the daemon; each extra argument
# is one line (key = value).
base_conf() {
	_f=$1
	shift
	{
		echo "# written by $(basename "$0")"
		echo "frequency = 99"
		echo "spool_dir = $SPOOL"
		echo "log_level = debug"
		echo "stats_interval = 2s"
		# the tests count windows, samples and bytes: the CPU budget (default
		# 1%) would cut sampling on a loaded machine (service_budget tests it)
		echo "cpu_budget = 0"
		for l in "$@"; do echo "$l"; done
	} >"$_f"
}

# start_daemon CONF [MAXSECONDS]: smolder run in the background (foreground
# mode) with a watchdog that kills it after MAXSECONDS (default 60).
# Sets DAEMON_PID; stdout/stderr appended to $TMP/daemon.out/.err.
start_daemon() {
	echo "+ smolder run -c $1"
	echo "=== $(date +%T.%N | cut -c1-12) start: smolder run -c $1" >>"$TMP/daemon.err"
	"$SMOLDER" run -c "$1" >>"$TMP/daemon.out" 2>>"$TMP/daemon.err" &
	DAEMON_PID=$!
	_wd_t=${2:-60}
	(
		_i=0
		while [ "$_i" -lt "$_wd_t" ] && kill -0 "$DAEMON_PID" 2>/dev/null; do
			sleep 1
			_i=$((_i + 1))
		done
		kill -9 "$DAEMON_PID" 2>/dev/null
	) >/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	sleep 0.3
	kill -0 "$DAEMON_PID" 2>/dev/null || {
		wait "$DAEMON_PID"
		_rc=$?
		DAEMON_PID=
		tail -n 20 "$TMP/daemon.err"
		fail "smolder run exited at once with status $_rc"
	}
}

# daemon_alive: the daemon still runs.
daemon_alive() {
	[ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null
}

# stop_daemon [SIGNAL] [SECONDS]: send SIGNAL (TERM), wait at most SECONDS (5)
# for the exit; fails when it is still running then. Sets DAEMON_RC, DAEMON_SECS.
stop_daemon() {
	_sig=${1:-TERM}
	_max=${2:-5}
	daemon_alive || fail "the daemon died before SIG$_sig (see its stderr)"
	_t0=$(date +%s%N)
	kill -s "$_sig" "$DAEMON_PID"
	while kill -0 "$DAEMON_PID" 2>/dev/null; do
		_el=$(( ($(date +%s%N) - _t0) / 1000000 ))
		if [ "$_el" -gt $((_max * 1000 + 500)) ]; then
			kill -9 "$DAEMON_PID" 2>/dev/null
			wait "$DAEMON_PID" 2>/dev/null
			DAEMON_PID=
			fail "the daemon still ran ${_el} ms after SIG$_sig (limit ${_max} s)"
		fi
		sleep 0.05
	done
	wait "$DAEMON_PID"
	DAEMON_RC=$?
	DAEMON_SECS=$(( ($(date +%s%N) - _t0) / 1000000 ))
	DAEMON_PID=
	echo "daemon exited with status $DAEMON_RC ${DAEMON_SECS} ms after SIG$_sig"
}

# kill9_daemon: kill -9 and reap.
kill9_daemon() {
	kill -9 "$DAEMON_PID" 2>/dev/null
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=
}

# spool_files: names of the dumps in the spool (no dot files, no rejected/).
spool_files() {
	ls -1 "$SPOOL" 2>/dev/null | grep -E '^[0-9]{20}-.*\.json\.gz$'
}

# start_load SECONDS: a CPU-bound workload with known stacks, so windows have samples.
start_load() {
	"$WORKLOADS/chain" "$1" >/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
}

# wait_gone LISTFILE SECONDS: wait until none of the spool files named in
# LISTFILE (one a line) is left in the spool; 1 if some still are then.
# (The spool is never empty for long: the live daemon adds a window a second.)
wait_gone() {
	_i=0
	while :; do
		_left=
		while read -r _f; do
			[ -e "$SPOOL/$_f" ] && _left="$_left $_f"
		done <"$1"
		[ -z "$_left" ] && return 0
		_i=$((_i + 1))
		[ "$_i" -gt $(($2 * 5)) ] && { echo "still in the spool:$_left"; return 1; }
		sleep 0.2
	done
}
