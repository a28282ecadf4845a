#!/bin/sh
# Least privilege: once sampling, every thread of `smolder run` holds at most
# CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE, CAP_SYSLOG and CAP_CHECKPOINT_RESTORE
# (effective, permitted and
# bounding sets), has no_new_privs set, and still profiles and symbolizes.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf system
need_workload chain

cat >"$TMP/s.conf" <<CONF
interval = 2s
export = none
spool_dir = $TMP/spool
stats_interval = 0
cpu_budget = 0
CONF
"$WORKLOADS/chain" 6 >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
timeout -k 5 60 "$SMOLDER" run -c "$TMP/s.conf" 2>"$TMP/run.err" &
DPID=$!
BG_PIDS="$BG_PIDS $DPID"
i=0
while ! ls "$TMP/spool"/*.json.gz >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 100 ] || { cat "$TMP/run.err"; fail "no window written"; }; sleep 0.1
done
# the daemon is timeout's child
SPID=$(pgrep -P "$DPID" | head -n 1)
[ -n "$SPID" ] || fail "cannot find the smolder process under timeout ($DPID)"
# bits 2 (DAC_READ_SEARCH), 19 (SYS_PTRACE), 34 (SYSLOG), 40 (CHECKPOINT_RESTORE)
ALLOWED=$((0x10400080004))
n=0
for st in /proc/$SPID/task/*/status; do
	for field in CapEff CapPrm CapBnd; do
		v=$(awk -v f="$field:" '$1 == f { print $2 }' "$st")
		[ -n "$v" ] || fail "no $field in $st"
		extra=$(( 0x$v & ~ALLOWED ))
		[ "$extra" -eq 0 ] || fail "$st: $field=$v holds capabilities beyond the daemon's needs"
	done
	nnp=$(awk '$1 == "NoNewPrivs:" { print $2 }' "$st")
	[ "${nnp:-1}" = 1 ] || fail "$st: no_new_privs not set"
	n=$((n + 1))
done
echo "checked $n threads: CapEff/CapPrm/CapBnd within 0x10400080004, NoNewPrivs=1"
kill -TERM "$DPID"
wait "$DPID" || fail "smolder run exited non-zero"
f=$(ls "$TMP/spool"/*.json.gz | tail -n 1)
gzip -dc "$f" >"$TMP/last.json"
$CHECK share "$TMP/last.json" --exe chain --seq 'main;a;b;c' --min 80 --label "chain symbolized after dropping privileges" ||
	fail "stacks no longer symbolized after dropping capabilities"
