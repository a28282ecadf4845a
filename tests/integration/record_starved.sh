#!/bin/sh
# record -d ends on time when its own process is starved of CPU: with a 2%
# CPU quota, every ring pass holds a long backlog of deep stacks, and a
# deadline checked only between passes let a 3 s recording run 1.4-2.1 s
# over.
# The deadline is checked inside the pass now: the recording (the dump's
# window) may exceed -d by the processing grace (300 ms here) and little more.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload recurse
need_perf system

# A CPU quota for smolder alone: cgroup v2's cpu.max, else v1's CFS quota.
cg=
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	grep -qw cpu /sys/fs/cgroup/cgroup.controllers || skip "cgroup v2 without the cpu controller"
	echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	cg=/sys/fs/cgroup/smolder-starved.$$
	mkdir "$cg" 2>/dev/null && echo "1000 100000" >"$cg/cpu.max" 2>/dev/null ||
		{ rmdir "$cg" 2>/dev/null; skip "cannot create a cgroup v2 with cpu.max (not root, or delegated elsewhere)"; }
elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
	cg=/sys/fs/cgroup/cpu/smolder-starved.$$
	mkdir "$cg" 2>/dev/null && echo 1000 >"$cg/cpu.cfs_quota_us" 2>/dev/null ||
		{ rmdir "$cg" 2>/dev/null; skip "cannot create a cgroup v1 cpu group with a quota (not root?)"; }
else
	skip "no cgroup cpu controller mounted"
fi
trap 'rmdir "$cg" 2>/dev/null; cleanup' EXIT

"$WORKLOADS/recurse" 30 >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
"$WORKLOADS/recurse" 30 >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
sleep 0.3
echo "+ smolder record (in $cg, 1% of a CPU)"
timeout -k 5 60 sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
	"$SMOLDER" record -a -F 5000 --stack-size 65528 -d 3 -q -o "$TMP/out.json" \
	>"$TMP/smolder.out" 2>"$TMP/smolder.err"
rc=$?
tail -n 5 "$TMP/smolder.err"
[ "$rc" -eq 0 ] || fail "smolder exited with $rc"
keep_artifact "$TMP/out.json" record_starved.out.json
# Throttling: the work between two deadline checks, at 1% of a CPU, can
# hold the process for a second or two, in 100 ms steps of the quota's
# period: 0.6 s on one VM; on a slower one 0.5-0.9 s alone and up to 1.8 s
# (5.10 s in all) while the suite runs in parallel, when a refilled quota
# waits for a busy CPU. A sanitizer build does that work 3-5x slower (4.6 s
# measured on a slow VM). Both get 2.2 s: this bounds the side-band
# records handled past the deadline under a fork storm (11.9 s before) and
# a deadline not checked at all; the old between-passes check (4.7-5.4 s
# on the faster VM) is within it, and the wall clock of a starved process
# on a shared host cannot tell it apart more closely.
throttle=2.2
"$PYTHON3" - "$TMP/out.json" "$throttle" <<'PY' || fail "the starved recording overran its deadline"
import json, sys
d = json.load(open(sys.argv[1]))
throttle = float(sys.argv[2])
w, st = d["window"], d["stats"]
took = (w["end_ns"] - w["start_ns"]) / 1e9
limit = 3 + 0.3 + throttle
print("starved: -d 3 recorded for %.2f s (<= %.1f: 3 s + 0.3 s grace + %.1f s for throttling), "
      "%d samples, %d dropped past the grace, %d lost by the kernel"
      % (took, limit, throttle, st["samples"], st.get("dropped", 0), st["lost"]))
sys.exit(0 if took <= limit and st["samples"] > 0 else 1)
PY
