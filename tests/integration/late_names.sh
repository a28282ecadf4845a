#!/bin/sh
# A stripped binary names nothing when recorded on a host without its debug
# file: its functions are chain+0xSTART, and the dump keeps the binary's
# build ID. The same dump read by `report --debug-dir DIR`, with the debug
# file under DIR/.build-id/xx/rest.debug, names them: >= 90% of the
# workload's samples show main;a;b;c again. A debug file of another binary
# put under that build ID names nothing. smolder upload --debug-dir sends
# the dump named to a real receiver on 127.0.0.1, its window unchanged but
# its stacks. With --debuginfod, a real
# debuginfod server started here on 127.0.0.1 (serving a directory that
# holds the debug file) gives it, when elfutils' debuginfod is installed.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
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
grep -q "named [0-9]* of [0-9]* stripped functions from [0-9]* debug file" "$TMP/smolder.err" ||
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

# upload --debug-dir: named before it leaves (the right debug file again)
cp "$TMP/chain.debug" "$TMP/dbg/.build-id/$sub/$rest.debug"
start_receiver ok
cp "$TMP/out.json" "$TMP/up.json"
run_smolder 60 upload -q --url "$RCV_URL/v1/profiles" --debug-dir "$TMP/dbg" "$TMP/up.json"
expect_ok
grep -q "named [0-9]* of [0-9]* stripped functions in 1 of 1 documents" "$TMP/smolder.err" ||
	fail "upload did not say what it named: $(cat "$TMP/smolder.err")"
[ ! -e "$TMP/up.json" ] || fail "the delivered dump was not removed"
rcv_py "$TMP/out.json" <<'PY' || fail "the receiver did not get the dump named"
import json, sys, rcv_env, receiver as rcv
sent = json.load(open(sys.argv[1]))
got = [r["dump"] for r in rcv.load_log(rcv_env.LOG) if r.get("dump")]
if len(got) != 1:
    sys.exit("%d dumps received" % len(got))
d = got[0]
same = all(d[k] == sent[k] for k in sent if k != "profiles")
chain = sum(s["count"] for p in d["profiles"] if p["labels"]["comm"] == "chain" for s in p["stacks"]
            if ";main;a;b;c" in s["stack"])
total = sum(s["count"] for p in d["profiles"] if p["labels"]["comm"] == "chain" for s in p["stacks"])
samples = [p["samples"] for p in d["profiles"]] == [p["samples"] for p in sent["profiles"]]
print("received: all but the stacks unchanged %s, samples per profile unchanged %s, %d of %d chain samples "
      "at main;a;b;c" % (same, samples, chain, total))
sys.exit(0 if same and samples and total and chain >= 0.9 * total else 1)
PY

# from a debuginfod server: the debug file fetched by its build ID
if ! command -v debuginfod >/dev/null 2>&1; then
	echo "debuginfod not installed (Debian: debuginfod): --debuginfod not checked"
	exit 0
fi
mkdir -p "$TMP/srv" "$TMP/dcache"
cp "$TMP/chain.debug" "$TMP/srv/"
port=$("$PYTHON3" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F -p "$port" -d "$TMP/dbgd.sqlite" -t 1 -g 0 "$TMP/srv" >"$TMP/dbgd.log" 2>&1 &
BG_PIDS="$BG_PIDS $!"
i=0
while [ $i -lt 60 ] && ! grep -q "fts traversed" "$TMP/dbgd.log"; do sleep 0.25; i=$((i + 1)); done
export DEBUGINFOD_CACHE_PATH="$TMP/dcache"
run_smolder 60 report --format json -o "$TMP/fetched.json" --debuginfod "http://127.0.0.1:$port" \
	--debug-dir "$TMP/nothing-here" "$TMP/out.json"
expect_ok
grep -q "debug files\{0,1\} (1 from debuginfod)" "$TMP/smolder.err" ||
	fail "report --debuginfod did not fetch the debug file: $(cat "$TMP/smolder.err"; tail -n 5 "$TMP/dbgd.log")"
$CHECK share "$TMP/fetched.json" --exe chain --seq 'main;a;b;c' --min 90 --label late_names_debuginfod ||
	fail "report --debuginfod did not name the chain"
exit 0
