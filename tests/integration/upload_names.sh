#!/bin/sh
# Hostile and unusual process names through `smolder run` with export =
# pyroscope, to a receiver that applies Pyroscope's ingest rules (application
# names [A-Za-z0-9_.-], label values that survive trimming): programs named
# "svc@x:y", "a b" and "ünï", and one in a systemd template unit's cgroup
# ("worker@1.service"). Every upload must be accepted -- none rejected, none
# left in the spool -- and each program's samples must arrive under a name
# the server keeps.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

# The template unit: a cgroup of that name in the systemd hierarchy (v1's
# name=systemd, or the unified one), which is all smolder reads.
unit_cg=
for root in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified /sys/fs/cgroup; do
	if [ -f "$root/cgroup.procs" ] && mkdir -p "$root/worker@1.service" 2>/dev/null; then
		unit_cg="$root/worker@1.service"
		break
	fi
done
cleanup_cg() {
	[ -n "$unit_cg" ] || return 0
	# move anything left back to the root, then remove the group
	for p in $(cat "$unit_cg/cgroup.procs" 2>/dev/null); do
		echo "$p" >"$(dirname "$unit_cg")/cgroup.procs" 2>/dev/null
	done
	rmdir "$unit_cg" 2>/dev/null
}
trap 'rc_=$?; cleanup_cg; (exit $rc_); svc_cleanup' EXIT INT TERM

mkdir -p "$TMP/bin"
for n in "svc@x:y" "a b" "ünï" "worker"; do
	cp "$WORKLOADS/chain" "$TMP/bin/$n"
done

start_receiver pyroscope
base_conf "$TMP/pyro.conf" "interval = 1s" "export = pyroscope" "url = $RCV_URL" \
	"timeout = 5s" "retry_backoff_min = 200ms" "retry_backoff_max = 1s"
start_daemon "$TMP/pyro.conf" 60
for n in "svc@x:y" "a b" "ünï"; do
	"$TMP/bin/$n" 3 >/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
done
if [ -n "$unit_cg" ]; then
	# the shell moves itself into the unit's cgroup, then becomes the program
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 3' sh "$unit_cg" "$TMP/bin/worker" \
		>/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
else
	echo "note: no writable systemd cgroup hierarchy here: the template unit case is not run"
fi
sleep 4.5
wait_rcv 1 20 "r.get('status') == 200" || fail "no upload accepted in 20 s"
sleep 1.5
stop_daemon TERM 10
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"

rcv_py "$unit_cg" <<'EOF' || fail "an upload was refused, or a program's samples are missing"
import os, sys, rcv_env, receiver as rcv
unit = sys.argv[1]
reqs = rcv.load_log(rcv_env.LOG)
bad = [r for r in reqs if r.get("status") != 200]
for r in bad[:5]:
    print("refused: %s: %s" % (r.get("params", {}).get("name"), r.get("answer")))
apps = {}
for r in reqs:
    if r.get("status") == 200:
        n = sum(c for _, c in r.get("lines", []))
        apps[r["app"]] = apps.get(r["app"], 0) + n
print("accepted applications: %s" % ", ".join("%s (%d)" % kv for kv in sorted(apps.items())))
want = ["svc_x_y.cpu", "a_b.cpu", "_n_.cpu"] + (["worker_1.cpu"] if unit else [])
missing = [a for a in want if apps.get(a, 0) < 20]
for a in missing:
    print("FAIL: %s: %d samples, want >= 20 (3 s of a busy program at 99 Hz)" % (a, apps.get(a, 0)))
rejected = os.listdir(os.path.join(rcv_env.SPOOL, "rejected")) if os.path.isdir(
    os.path.join(rcv_env.SPOOL, "rejected")) else []
if rejected:
    print("FAIL: dumps in rejected/: %s" % rejected[:5])
sys.exit(1 if bad or missing or rejected else 0)
EOF
left=$(spool_files | wc -l)
[ "$left" -eq 0 ] || fail "$left dump(s) left in the spool after a clean stop with the receiver up"
echo "every upload accepted"
