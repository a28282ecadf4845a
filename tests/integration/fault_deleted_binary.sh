#!/bin/sh
# A binary deleted while it runs (its maps read "/path (deleted)"): smolder
# reaches it through /proc/PID/map_files and still symbolizes it.
#  1. record -p PID, then record -a, on a copy of chain started and deleted
#     before the recording: >= 90% of its samples are _start ... main;a;b;c.
#  2. smolder run (which drops to CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH,
#     CAP_SYSLOG, CAP_CHECKPOINT_RESTORE) started first, then a copy of chain,
#     stopped as soon as it has exec'd, deleted, then resumed: the daemon has
#     opened nothing of it before the deletion, yet its windows show
#     main;a;b;c in >= 90% of its samples. map_files needs
#     CAP_CHECKPOINT_RESTORE (Linux >= 5.9) once CAP_SYS_ADMIN is gone: on
#     older kernels part 2 is skipped.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

mkdir "$TMP/bin"
# start_deleted SECONDS: a copy of chain (same name, so its exe basename is
# "chain"), stopped right after its exec, deleted, resumed; sets DPID.
start_deleted() {
	cp "$WORKLOADS/chain" "$TMP/bin/chain"
	"$TMP/bin/chain" "$1" >/dev/null 2>&1 &
	DPID=$!
	BG_PIDS="$BG_PIDS $DPID"
	_i=0
	while [ "$(readlink "/proc/$DPID/exe" 2>/dev/null)" != "$TMP/bin/chain" ]; do
		_i=$((_i + 1))
		[ "$_i" -gt 2000 ] && fail "the chain copy did not start"
	done
	kill -STOP "$DPID"
	rm -f "$TMP/bin/chain"
	grep -q "$TMP/bin/chain (deleted)" "/proc/$DPID/maps" || fail "no (deleted) mapping in /proc/$DPID/maps"
	kill -CONT "$DPID"
	echo "chain copy $DPID runs deleted: $(readlink "/proc/$DPID/exe")"
}

start_deleted 12
sleep 0.3
run_smolder 60 record -p "$DPID" -F 999 -d 3 -o "$TMP/pid.json"
keep_artifact "$TMP/pid.json" fault_deleted_pid.out.json
expect_ok
expect_dump "$TMP/pid.json"
$CHECK share "$TMP/pid.json" --exe chain --first _start --seq 'main;a;b;c' --min 90 \
	--label "deleted chain (-p)" || fail "the deleted binary is not symbolized (-p)"
run_smolder 60 record -a -F 999 -d 3 -o "$TMP/sys.json"
expect_ok
expect_dump "$TMP/sys.json"
$CHECK share "$TMP/sys.json" --exe "$TMP/bin/chain" --first _start --seq 'main;a;b;c' --min 90 \
	--label "deleted chain (-a)" || fail "the deleted binary is not symbolized (-a)"
kill "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null

# 2. The daemon, capabilities dropped before the binary exists.
major=$(uname -r | cut -d. -f1)
minor=$(uname -r | cut -d. -f2)
if [ "$major" -lt 5 ] || { [ "$major" -eq 5 ] && [ "$minor" -lt 9 ]; }; then
	skip "part 2: kernel $(uname -r) < 5.9: map_files needs CAP_SYS_ADMIN, which the daemon drops"
fi
# (cpu_budget raised: on a busy host the 1% default would cut the rate.)
base_conf "$TMP/d.conf" "interval = 1s" "export = none" "frequency = 499" "cpu_budget = 50%" "stats_interval = 0"
start_daemon "$TMP/d.conf" 60
sleep 1.5
start_deleted 8
sleep 4.5
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "smolder run exited with status $DAEMON_RC"
# Merge the windows' profiles of the deleted copy into one dump-like file.
rcv_py "$TMP/bin/chain" "$TMP/merged.json" <<'PYEOF' || fail "the daemon's windows hold under 30 samples of the deleted chain copy"
import gzip, json, os, sys, rcv_env
exe, out = sys.argv[1], sys.argv[2]
merged = None
for f in sorted(os.listdir(rcv_env.SPOOL)):
    if not f.endswith(".json.gz"):
        continue
    d = json.load(gzip.open(os.path.join(rcv_env.SPOOL, f)))
    if merged is None:
        merged = d
        merged["profiles"] = []
    merged["profiles"] += [p for p in d["profiles"] if p["labels"]["exe"].startswith(exe)]
merged["stats"]["samples"] = sum(p["samples"] for p in merged["profiles"])
merged["stats"]["dropped"] = 0
# one profile, stacks summed
acc = {}
for p in merged["profiles"]:
    for st in p["stacks"]:
        acc[st["stack"]] = acc.get(st["stack"], 0) + st["count"]
labels = merged["profiles"][0]["labels"] if merged["profiles"] else {}
print("deleted chain in the daemon's windows: exe %r, %d samples" % (labels.get("exe"), sum(acc.values())))
merged["profiles"] = [{"labels": labels, "samples": sum(acc.values()),
                       "stacks": [{"stack": s, "count": c} for s, c in acc.items()]}] if acc else []
json.dump(merged, open(out, "w"))
sys.exit(0 if sum(acc.values()) >= 30 else 3)
PYEOF
$CHECK share "$TMP/merged.json" --exe chain --first _start --seq 'main;a;b;c' --min 90 \
	--label "deleted chain (smolder run, capabilities dropped)" ||
	fail "the daemon does not symbolize a binary deleted after its start"
echo "fault_deleted_binary: OK"
