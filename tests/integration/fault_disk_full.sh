#!/bin/sh
# Disk full while spooling (export = none, interval 1s, chain as load).
#  A. spool_max_size = 16KiB (runs everywhere, 499 Hz): sampled every 200 ms
#     until 3 s after the first drop (at most 20 s) the spool never holds more
#     than 16 KiB, the oldest dumps are dropped,
#     logged ("spool ... is full: dropped") and counted in a later dump's
#     stats.spool_dropped; every dump parses; exit 0 on TERM.
#  B. a real full filesystem: the spool on a 256 KiB tmpfs (skipped, exit 77,
#     after A passed, when mounting is not permitted), filled up by a filler
#     file for ~5 s: the daemon keeps running, logs the write failure naming
#     the spool and "the window is lost", writes no dump and leaves no temp
#     (dot) file behind; once the filler is removed new windows are written
#     again within a few seconds; every *.json.gz parses and validates; exit 0
#     on TERM.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

# check_spool: every dump in the spool gunzips, parses and validates; no
# temp file is left; prints the number of dumps.
check_spool() {
	rcv_py <<'PYEOF' || fail "a spooled dump does not parse or validate, or a temp file is left (above)"
import gzip, json, os, sys, rcv_env, dumpcheck
errs, n = [], 0
for f in sorted(os.listdir(rcv_env.SPOOL)):
    p = os.path.join(rcv_env.SPOOL, f)
    if f.startswith("."):
        errs.append("temp file left in the spool: %s" % f)
        continue
    if not f.endswith(".json.gz"):
        continue
    n += 1
    try:
        d = json.load(gzip.open(p))
    except Exception as e:
        errs.append("%s: does not parse: %s" % (f, e))
        continue
    errs += ["%s: %s" % (f, e) for e in dumpcheck.validate(d)]
print("%d dumps in the spool, all parse and validate" % n if not errs else "")
for e in errs[:20]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
PYEOF
}

start_load 60

# --- A: spool size limit ------------------------------------------------------
base_conf "$TMP/a.conf" "interval = 1s" "export = none" "spool_max_size = 16KiB" "stats_interval = 0" \
	"cpu_budget = 50%" "frequency = 499"
start_daemon "$TMP/a.conf" 40
rcv_py 16384 <<'PYEOF' || fail "the spool exceeded spool_max_size, or never filled (above)"
import os, sys, time, rcv_env
limit, over, seen, maxtot = int(sys.argv[1]), [], set(), 0
t_end, dropped_at = time.time() + 20, None
while time.time() < t_end:
    if dropped_at is None and "is full: dropped" in open(os.path.join(rcv_env.TMP, "daemon.err")).read():
        dropped_at = time.time()
    if dropped_at and time.time() > dropped_at + 3:
        break
    try:
        names = [f for f in os.listdir(rcv_env.SPOOL) if f.endswith(".json.gz") and not f.startswith(".")]
    except FileNotFoundError:
        names = []
    tot = 0
    for f in names:
        try:
            tot += os.path.getsize(os.path.join(rcv_env.SPOOL, f))
        except FileNotFoundError:
            pass
    maxtot = max(maxtot, tot)
    if tot > limit:
        over.append("%d bytes in %d dumps" % (tot, len(names)))
    seen |= set(names)
    time.sleep(0.2)
print("A: %d dumps written, spool at most %d bytes (limit %d)" % (len(seen), maxtot, limit))
for o in over[:5]:
    print("ERROR: over the limit: " + o)
if dropped_at is None:
    print("ERROR: no dump dropped in 20 s (dumps too small for the limit?)")
sys.exit(1 if over or dropped_at is None else 0)
PYEOF
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "A: exit status $DAEMON_RC after SIGTERM"
check_spool
rcv_py <<'PYEOF' || fail "A: no dump counts stats.spool_dropped although dumps were dropped"
import gzip, json, os, sys, rcv_env
tot = sum(json.load(gzip.open(os.path.join(rcv_env.SPOOL, f)))["stats"].get("spool_dropped", 0)
          for f in os.listdir(rcv_env.SPOOL) if f.endswith(".json.gz"))
print("A: stats.spool_dropped summed over the remaining dumps: %d" % tot)
sys.exit(0 if tot > 0 else 1)
PYEOF
grep -E 'spool .* is full: dropped' "$TMP/daemon.err" | head -n 1 | cut -c1-300
grep -qE 'spool .* is full: dropped' "$TMP/daemon.err" || fail "A: no log line about dumps dropped from the spool"
echo "A (spool_max_size): OK"

# --- B: a full filesystem -------------------------------------------------------
mkdir "$TMP/mnt"
mount -t tmpfs -o size=256k,mode=0700 smolder-fault "$TMP/mnt" 2>"$TMP/mount.err" ||
	skip "B: cannot mount a tmpfs here ($(cat "$TMP/mount.err")); A passed"
trap 'rc=$?; umount -l "$TMP/mnt" 2>/dev/null; (exit $rc); svc_cleanup' EXIT
SPOOL="$TMP/mnt/spool"
: >"$TMP/daemon.err"
base_conf "$TMP/b.conf" "interval = 1s" "export = none" "stats_interval = 0" "cpu_budget = 50%"
start_daemon "$TMP/b.conf" 60
i=0
until [ -n "$(spool_files)" ]; do
	i=$((i + 1)); [ "$i" -gt 50 ] && fail "B: no window written within 5 s"; sleep 0.1
done
dd if=/dev/zero of="$TMP/mnt/filler" bs=4k 2>/dev/null
df -k "$TMP/mnt" | tail -n 1
sleep 0.5  # a window that was being written when the disk filled may still land
spool_files >"$TMP/before"
full_from=$(date +%s)
sleep 5
daemon_alive || fail "B: the daemon died with the disk full"
spool_files >"$TMP/during"
new=$(comm -13 "$TMP/before" "$TMP/during" | wc -l)
lost=$(grep -c 'cannot write its dump to .*/mnt/spool.*the window is lost' "$TMP/daemon.err")
grep 'the window is lost' "$TMP/daemon.err" | head -n 1 | cut -c1-300
echo "B: with the disk full for 5 s: $new new dumps, $lost 'window is lost' log lines"
[ "$lost" -ge 3 ] || fail "B: the write failures were not logged (naming the spool, 'the window is lost') at least 3 times in 5 s"
[ "$new" -eq 0 ] || fail "B: $new dumps appeared on a full filesystem (partial dumps?)"
ls -A "$SPOOL" | grep '^\.' && fail "B: a temp file is left visible in the full spool"
check_spool
rm -f "$TMP/mnt/filler"
freed=$(date +%s)
i=0
while [ "$(comm -13 "$TMP/during" "$TMP/after" 2>/dev/null | wc -l)" -lt 2 ]; do
	spool_files >"$TMP/after"
	i=$((i + 1)); [ "$i" -gt 60 ] && fail "B: no new windows within 6 s of space being freed"
	sleep 0.1
done
echo "B: $(comm -13 "$TMP/during" "$TMP/after" | wc -l) new windows within $((i / 10)).$((i % 10)) s of freeing space"
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "B: exit status $DAEMON_RC after SIGTERM"
check_spool
echo "fault_disk_full: OK"
