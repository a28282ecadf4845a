#!/bin/sh
# cpu_budget: with a budget far below what sampling a busy workload at 499 Hz
# costs, `smolder run` lowers the frequency (logged), the dumps record it
# (event.frequency_hz below stats.frequency_configured_hz) and the sample rate
# really drops; with a generous budget the frequency is never touched.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf system
need_workload chain

summarize() { # prints "freq configured samples" per window, oldest first
	for f in $(ls "$TMP/$1/spool"/*.json.gz | sort); do
		gzip -dc "$f" | "$PYTHON3" -c 'import json,sys
d = json.load(sys.stdin)
print(d["event"]["frequency_hz"], d["stats"]["frequency_configured_hz"], d["stats"]["samples"])'
	done
}

# run_daemon NAME BUDGET SECONDS [LOWERED]: runs the daemon for SECONDS, or with
# LOWERED until that many windows ran at a lowered frequency (at most 45 s:
# on a loaded machine windows come late).
run_daemon() {
	mkdir -p "$TMP/$1"
	cat >"$TMP/$1/s.conf" <<CONF
interval = 1s
export = none
spool_dir = $TMP/$1/spool
stats_interval = 0
frequency = 499
cpu_budget = $2
CONF
	"$WORKLOADS/chain" 50 >/dev/null 2>&1 &
	_w=$!
	BG_PIDS="$BG_PIDS $_w"
	timeout -k 5 80 "$SMOLDER" run -c "$TMP/$1/s.conf" 2>"$TMP/$1/run.err" &
	_d=$!
	sleep "$3"
	_i=0
	while [ -n "${4:-}" ] && [ "$(summarize "$1" 2>/dev/null | awk '$1 < $2' | wc -l)" -lt "$4" ]; do
		_i=$((_i + 1)); [ $_i -lt 90 ] || break
		sleep 0.5
	done
	kill -TERM "$_d"
	kill "$_w" 2>/dev/null
	wait "$_d" || { cat "$TMP/$1/run.err"; fail "$1: smolder run failed"; }
}

run_daemon tight 0.01% 4 3
summarize tight >"$TMP/tight.txt"
echo "tight budget (frequency, configured, samples per window):"; sed 's/^/  /' "$TMP/tight.txt"
grep -q "cpu_budget: sampling cost" "$TMP/tight/run.err" || fail "no cpu_budget message in the log"
lowered=$(awk '$1 < $2' "$TMP/tight.txt" | wc -l)
[ "$lowered" -ge 2 ] || fail "frequency lowered in only $lowered windows"
first=$(awk 'NR == 2 { print $3 }' "$TMP/tight.txt")
last=$(awk '$1 < $2 { n = $3 } END { print n }' "$TMP/tight.txt")
echo "samples: second window $first, last lowered window $last"
[ "$last" -lt $((first / 4 + 5)) ] || fail "the sample rate did not drop ($first -> $last)"

run_daemon loose 100% 4
summarize loose >"$TMP/loose.txt"
echo "generous budget:"; sed 's/^/  /' "$TMP/loose.txt"
if awk '$1 != $2 { bad = 1 } END { exit !bad }' "$TMP/loose.txt"; then
	fail "frequency changed under a 100% budget"
fi
