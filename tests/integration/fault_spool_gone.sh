#!/bin/sh
# The spool directory disappears or becomes unwritable under a running daemon
# (export = none, interval 1s, chain as load):
#  A. rm -rf of the spool: the daemon keeps running and rotating windows,
#     recreates the directory (mode 0700, with rejected/) at its next write,
#     so new valid dumps appear within 5 s and at most one window is lost
#     (logged naming the spool); exit 0 on TERM. (Before the fix in
#     export/spool.c every later window was lost until a restart.)
#  B. the spool made unwritable: root ignores permission bits, so the
#     directory gets the immutable attribute (chattr +i; skipped, exit 77, when
#     chattr is missing or refused here): the daemon keeps running, logs the
#     failed writes, no dump or temp file appears; after chattr -i new valid
#     dumps are written again; exit 0 on TERM.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

# valid_spool: every dump parses and validates, no temp file; prints count.
valid_spool() {
	rcv_py <<'PYEOF' || fail "$1: a dump in the spool does not parse/validate, or a temp file is left"
import gzip, json, os, sys, rcv_env, dumpcheck
errs, n = [], 0
for f in sorted(os.listdir(rcv_env.SPOOL)):
    if f.startswith("."):
        errs.append("temp file left in the spool: %s" % f)
    elif f.endswith(".json.gz"):
        n += 1
        try:
            errs += ["%s: %s" % (f, e) for e in dumpcheck.validate(json.load(gzip.open(os.path.join(rcv_env.SPOOL, f))))]
        except Exception as e:
            errs.append("%s: does not parse: %s" % (f, e))
print("%d dumps in the spool%s" % (n, ", all valid" if not errs else ""))
for e in errs[:20]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
PYEOF
}

# windows_logged: windows counted so far by the daemon's log (written or lost).
windows_logged() {
	grep -cE 'window [^ ]+@[0-9]+: ' "$TMP/daemon.err"
}

start_load 60
base_conf "$TMP/s.conf" "interval = 1s" "export = none" "stats_interval = 0" "cpu_budget = 50%"

# --- A: rm -rf -------------------------------------------------------------------
start_daemon "$TMP/s.conf" 40
i=0
until [ "$(spool_files | wc -l)" -ge 2 ]; do
	i=$((i + 1)); [ "$i" -gt 60 ] && fail "A: fewer than 2 windows within 6 s"; sleep 0.1
done
rm -rf "$SPOOL"
echo "A: $(date +%T) spool removed"
w0=$(windows_logged)
sleep 4
daemon_alive || fail "A: the daemon died after its spool was removed"
w1=$(windows_logged)
echo "A: windows logged in the 4 s after the removal: $((w1 - w0))"
[ $((w1 - w0)) -ge 3 ] || fail "A: the daemon stopped rotating windows after its spool was removed"
nerr=$(grep -c "cannot write its dump to $SPOOL" "$TMP/daemon.err")
grep "cannot write its dump to $SPOOL" "$TMP/daemon.err" | head -n 1 | cut -c1-300
i=0
until [ -n "$(spool_files)" ]; do
	i=$((i + 1))
	if [ "$i" -gt 50 ]; then
		ls -la "$SPOOL" 2>&1 | head -n 3
		fail "A: the spool was not recreated: $nerr+ windows lost in a row and counting (smolder keeps writing into the removed directory)"
	fi
	sleep 0.1
done
echo "A: spool recreated, $(spool_files | wc -l) new dumps; $nerr write failures logged meanwhile"
[ "$nerr" -le 1 ] || fail "A: $nerr windows lost after the spool was removed (recreated only later)"
[ "$(stat -c %a "$SPOOL")" = 700 ] || fail "A: recreated spool has mode $(stat -c %a "$SPOOL"), want 700"
[ -d "$SPOOL/rejected" ] || fail "A: recreated spool lacks rejected/"
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "A: exit status $DAEMON_RC after SIGTERM"
valid_spool A
echo "A (spool removed): OK"

# --- B: unwritable ------------------------------------------------------------------
rm -rf "$SPOOL"
: >"$TMP/daemon.err"
command -v chattr >/dev/null 2>&1 || skip "B: chattr not found (root ignores chmod 500); A passed"
start_daemon "$TMP/s.conf" 40
i=0
until [ "$(spool_files | wc -l)" -ge 1 ]; do
	i=$((i + 1)); [ "$i" -gt 60 ] && fail "B: no window within 6 s"; sleep 0.1
done
chattr +i "$SPOOL" 2>"$TMP/chattr.err" || { stop_daemon TERM 5; skip "B: chattr +i refused: $(cat "$TMP/chattr.err"); A passed"; }
trap 'rc=$?; chattr -i "$SPOOL" 2>/dev/null; (exit $rc); svc_cleanup' EXIT
sleep 0.3
spool_files >"$TMP/before"
w0=$(windows_logged)
sleep 4
daemon_alive || fail "B: the daemon died with its spool unwritable"
w1=$(windows_logged)
spool_files >"$TMP/during"
new=$(comm -13 "$TMP/before" "$TMP/during" | wc -l)
nerr=$(grep -c "cannot write its dump to $SPOOL" "$TMP/daemon.err")
grep "cannot write its dump to $SPOOL" "$TMP/daemon.err" | head -n 1 | cut -c1-300
echo "B: 4 s unwritable: $((w1 - w0)) windows logged, $nerr write failures, $new new dumps"
[ "$nerr" -ge 3 ] || fail "B: write failures not logged (naming the spool) at least 3 times in 4 s"
[ "$new" -eq 0 ] || fail "B: $new dumps appeared in an immutable directory?"
chattr -i "$SPOOL"
i=0
until [ "$(comm -13 "$TMP/during" "$TMP/after" 2>/dev/null | wc -l)" -ge 2 ]; do
	spool_files >"$TMP/after"
	i=$((i + 1)); [ "$i" -gt 60 ] && fail "B: no new windows within 6 s of the spool becoming writable again"
	sleep 0.1
done
echo "B: writable again: new windows after $((i / 10)).$((i % 10)) s"
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "B: exit status $DAEMON_RC after SIGTERM"
valid_spool B
echo "fault_spool_gone: OK"
