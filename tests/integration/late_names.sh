#!/bin/sh
# A stripped binary names nothing when recorded on a host without its debug
# file: its functions are chain+0xSTART, and the dump keeps the binary's
# build ID. The same dump read by `report --debug-dir DIR`, with the debug
# file under DIR/.build-id/xx/rest.debug, names them: >= 90% of the
# workload's samples show main;a;b;c again. A debug file of another binary
# put under that build ID names nothing.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain
need_perf process
command -v objcopy >/dev/null 2>&1 || skip "objcopy not installed (binutils)"

mkdir -p "$TMP/bin" "$TMP/dbg"
cp "$WORKLOADS/chain" "$TMP/bin/chain"
id=$(readelf -n "$TMP/bin/chain" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || skip "the workload was linked without a build ID"
objcopy --only-keep-debug "$TMP/bin/chain" "$TMP/chain.debug" || fail "objcopy --only-keep-debug"
strip -s "$TMP/bin/chain" || fail "strip"
readelf -S "$TMP/bin/chain" | grep -q '\.debug_info\|\.symtab' && fail "the copy is not stripped"

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$TMP/bin/chain" 2
expect_ok
keep_artifact "$TMP/out.json" late_names.out.json
"$PYTHON3" - "$TMP/out.json" "$id" <<'PY' || fail "the stripped recording is not what it should be"
import json, sys
d = json.load(open(sys.argv[1]))
frames = {f for p in d["profiles"] if p["labels"]["comm"] == "chain"
          for s in p["stacks"] for f in s["stack"].split(";")}
named = sorted(frames & {"main", "a", "b", "c"})
stripped = sorted(f for f in frames if f.startswith("chain+0x"))
maps = [m for m in d.get("mappings", []) if m["module"] == "chain"]
print("recorded: %d chain+0x frames, named %s, mappings %s" % (len(stripped), named, maps))
ok = not named and len(stripped) >= 4 and len(maps) == 1 and maps[0]["build_id"] == sys.argv[2] \
    and maps[0]["path"].endswith("/bin/chain")
sys.exit(0 if ok else 1)
PY

# the debug file under its build ID: named
sub=$(echo "$id" | cut -c1-2)
rest=$(echo "$id" | cut -c3-)
mkdir -p "$TMP/dbg/.build-id/$sub"
cp "$TMP/chain.debug" "$TMP/dbg/.build-id/$sub/$rest.debug"
run_smolder 60 report --format json -o "$TMP/named.json" --debug-dir "$TMP/nothing-here" \
	--debug-dir "$TMP/dbg" "$TMP/out.json"
expect_ok
grep -q "named [0-9]* of [0-9]* stripped functions from 1 debug file" "$TMP/smolder.err" ||
	fail "report did not say what it named: $(cat "$TMP/smolder.err")"
$CHECK share "$TMP/named.json" --exe chain --seq 'main;a;b;c' --min 90 --label late_names ||
	fail "report --debug-dir did not name the chain"

# another binary's debug file under that build ID: not used
objcopy --only-keep-debug "$WORKLOADS/recurse" "$TMP/dbg/.build-id/$sub/$rest.debug" ||
	fail "objcopy of recurse"
run_smolder 60 report --format collapsed -o "$TMP/wrong.txt" --debug-dir "$TMP/dbg" "$TMP/out.json"
expect_ok
grep -q "another binary's: not used" "$TMP/smolder.err" || fail "a wrong debug file was not refused"
grep -q ';main;a;b;c' "$TMP/wrong.txt" && fail "a wrong debug file named frames"
exit 0
