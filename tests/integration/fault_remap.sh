#!/bin/sh
# A process that unmaps and remaps a library ~45 times a second (remap:
# dlopen libdlwork.so, run dl_outer -> dl_hot for 20 ms, dlclose; every other
# round an anonymous page sits where the library was, so it comes back at
# another address): in command mode and system-wide, >= 90% of remap's samples
# show dl_outer;dl_hot (symbolized across reloads, no stale mapping), no frame
# of the library is left as an unresolved "libdlwork.so+0x..." address, and
# smolder exits 0.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload remap libdlwork.so
need_perf process

# Frames named after the library itself (module+0x...) mean the pc was not
# symbolized: with a stale map they would point into the wrong object.
unresolved() {
	$PYTHON3 - "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
bad = tot = 0
for p in d["profiles"]:
    if not p["labels"]["exe"].endswith("/remap"):
        continue
    for st in p["stacks"]:
        tot += st["count"]
        if any(f.startswith("libdlwork.so+") or f.startswith("[unknown]") for f in st["stack"].split(";")):
            bad += st["count"]
            print("  unresolved: %d x %s" % (st["count"], st["stack"][:300]))
print("remap: %d of %d samples with an unresolved libdlwork frame" % (bad, tot))
sys.exit(1 if tot == 0 or bad * 100 > tot else 0)
PYEOF
}

run_smolder 60 record -F 999 -o "$TMP/cmd.json" -- "$WORKLOADS/remap" 4
keep_artifact "$TMP/cmd.json" fault_remap.out.json
expect_ok
grep '^remap:' "$TMP/smolder.out" "$TMP/smolder.err" | sed 's/^[^:]*://'
moved=$(sed -n 's/^remap: .* moved \([0-9]*\) times$/\1/p' "$TMP/smolder.out" "$TMP/smolder.err" | head -n 1)
[ "${moved:-0}" -ge 20 ] || fail "the library did not move between reloads (moved ${moved:-?} times): the test proves nothing"
expect_dump "$TMP/cmd.json"
$CHECK share "$TMP/cmd.json" --exe remap --seq 'dl_outer;dl_hot' --min 90 --label "remap (command)" ||
	fail "dl_outer;dl_hot not symbolized across reloads in >= 90% of the samples"
unresolved "$TMP/cmd.json" || fail "library frames left unresolved across reloads (over 1%)"

need_perf system
"$WORKLOADS/remap" 6 >"$TMP/remap2.out" 2>&1 &
BG_PIDS="$BG_PIDS $!"
sleep 0.5
run_smolder 60 record -a -F 999 -d 4 -o "$TMP/sys.json"
expect_ok
expect_dump "$TMP/sys.json"
$CHECK share "$TMP/sys.json" --exe remap --seq 'dl_outer;dl_hot' --min 90 --label "remap (-a)" ||
	fail "dl_outer;dl_hot not symbolized across reloads in >= 90% of the samples (-a)"
unresolved "$TMP/sys.json" || fail "library frames left unresolved across reloads (-a, over 1%)"
echo "fault_remap: OK"
