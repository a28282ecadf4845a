#!/bin/sh
# A user cutting their own library short while it runs (doc/security.md,
# "A user's file is never the agent's memory"). The agent used to map the
# binaries it read: the next read of a page past the new end of such a file
# raised SIGBUS, `record -a` exited 135 without a dump and `smolder run`
# died. Here a process of another user maps its own copy of a library of
# 4,096 functions, runs them in a scrambled order (so the agent keeps
# meeting pcs it has not looked up) and truncates the file to the end of
# its code, during
#  1. smolder record -a: it exits 0 with a valid dump that has the
#     process's samples;
#  2. smolder run: it still runs after the truncation, writes windows after
#     it, and exits 0 on TERM.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload truncate_own libtrunc.so
need_perf system
command -v setpriv >/dev/null 2>&1 || skip "setpriv (util-linux) not installed"
[ "$(id -u)" -eq 0 ] || skip "needs root to run the library's owner as another user"

NOBODY=65534
chmod 755 "$TMP"
mkdir "$TMP/u"
chown "$NOBODY:$NOBODY" "$TMP/u"

# start_victim LIB SECONDS AFTER: the user's copy $TMP/u/LIB of libtrunc.so,
# run by truncate_own as that user, cut short AFTER seconds in; sets VPID.
start_victim() {
	cp "$WORKLOADS/libtrunc.so" "$TMP/u/$1"
	chown "$NOBODY:$NOBODY" "$TMP/u/$1"
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		"$WORKLOADS/truncate_own" "$2" "$TMP/u/$1" "$3" >"$TMP/$1.out" 2>&1 &
	VPID=$!
	BG_PIDS="$BG_PIDS $VPID"
}

# victim_done LIB: the victim truncated its library and ran to its end
# (else the test proves nothing about the agent).
victim_done() {
	wait "$VPID"
	_rc=$?
	cat "$TMP/$1.out"
	grep -q "^truncated " "$TMP/$1.out" || fail "the workload never truncated $1"
	[ "$_rc" -eq 0 ] || fail "the workload itself ended with status $_rc after truncating $1"
}

# 1. record -a (its start-up may take a second or two on a busy host: the
# truncation comes well after it)
start_victim libmine.so 10 4
sleep 0.5
run_smolder 60 record -a -F 999 -d 6 -o "$TMP/out.json"
expect_ok
expect_dump "$TMP/out.json"
keep_artifact "$TMP/out.json" security_truncate.out.json
victim_done libmine.so
"$PYTHON3" - "$TMP/out.json" <<'PY' || fail "no samples of the truncating process in the dump"
import json, re, sys
d = json.load(open(sys.argv[1]))
prof = [p for p in d["profiles"] if p["labels"].get("comm") == "truncate_own"]
n = sum(p["samples"] for p in prof)
kinds = {"named": 0, "module+0x": 0, "[module]": 0}
for p in prof:
    for s in p["stacks"]:
        leaf = s["stack"].split(";")[-1]
        if re.match(r"^f1[0-3]{6}$", leaf):
            kinds["named"] += s["count"]
        elif leaf.startswith("libmine.so+0x"):
            kinds["module+0x"] += s["count"]
        elif leaf == "[libmine.so]":
            kinds["[module]"] += s["count"]
print("truncate_own: %d samples; leaves in its library: %s" % (n, kinds))
sys.exit(0 if n >= 100 and sum(kinds.values()) > 0 else 1)
PY

# 2. smolder run
base_conf "$TMP/run.conf" "interval = 1s" "export = none" "frequency = 999" "stats_interval = 0"
start_daemon "$TMP/run.conf" 60
sleep 1
start_victim libmine2.so 7 2
i=0
until grep -q "^truncated " "$TMP/libmine2.so.out" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -gt 100 ] && fail "the workload did not truncate its library within 10 s"
	sleep 0.1
done
touch "$TMP/cut"
sleep 4
if ! daemon_alive; then
	wait "$DAEMON_PID"
	rc=$?
	DAEMON_PID=
	fail "smolder run died after the library was truncated (status $rc)"
fi
after=$(find "$SPOOL" -maxdepth 1 -name '*.json.gz' -newer "$TMP/cut" | wc -l)
echo "windows written after the truncation: $after"
[ "$after" -ge 2 ] || fail "smolder run wrote $after windows after the truncation (>= 2 expected)"
stop_daemon TERM 10
[ "$DAEMON_RC" -eq 0 ] || fail "smolder run exited with status $DAEMON_RC"
victim_done libmine2.so
last=$(ls -1t "$SPOOL"/*.json.gz | head -n 1)
gzip -dc "$last" >"$TMP/last.json" || fail "the last window is not gzip"
expect_dump "$TMP/last.json"
exit 0
