#!/bin/sh
# The agent's interned names stay bounded and stacks stay right across
# compactions. smolder run (1 s windows, export none, names_max_size at its
# 64 KiB minimum) watches programs exec'd from thousands of unique paths
# (each mapped path is interned, and is garbage once the program exits),
# beside the chain workload and a tiny JIT that moves its code and replaces
# its perf map with 2,000 new names every 250 ms (perf map names are
# interned only when a sample needs one, so the JIT alone no longer grows
# the table). Every dump must be valid; compactions must happen and shrink
# the table; after them the chain's stacks must still read main;a;b;c (ids
# rewritten, not scrambled) and the JIT's code must be named by the
# generation that was live (its map re-read on a miss), for many generations.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain jit
need_perf system
[ "$(uname -m)" = x86_64 ] || skip "the jit workload's machine code is x86-64"

base_conf "$TMP/smolder.conf" "interval = 1s" "export = none" "names_max_size = 64KiB"
start_daemon "$TMP/smolder.conf" 60
"$WORKLOADS/jit" 11 250 2000 >"$TMP/jit.out" 2>"$TMP/jit.err" &
JIT_PID=$!
BG_PIDS="$BG_PIDS $JIT_PID"
start_load 11
# Paths of ~650 bytes: a slow host (about 80 execs a second on a VM whose
# system calls take over a microsecond) still fills the 64 KiB table twice
# within the run.
LONG=$(printf '%0180d' 0)
mkdir -p "$TMP/churn/dir_$LONG/dir_$LONG"
for t in /bin/true /usr/bin/true; do [ -x "$t" ] && cp "$t" "$TMP/churn/true" && break; done
[ -x "$TMP/churn/true" ] || skip "no /bin/true or /usr/bin/true to copy"
(
	i=0
	while [ $i -lt 3000 ]; do
		i=$((i + 1))
		p="$TMP/churn/dir_$LONG/dir_$LONG/a_program_with_a_rather_long_name_that_fills_the_names_table_${LONG}_$i"
		ln "$TMP/churn/true" "$p" && "$p"
		rm -f "$p"
	done
) &
BG_PIDS="$BG_PIDS $!"
sleep 12
wait "$JIT_PID"
jit_rc=$?
[ "$jit_rc" -eq 77 ] && skip "$(cat "$TMP/jit.err")"
[ "$jit_rc" -eq 0 ] || fail "the jit workload failed (status $jit_rc): $(cat "$TMP/jit.err")"
cat "$TMP/jit.out"
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "smolder run exited with status $DAEMON_RC"
grep 'names: compacted' "$TMP/daemon.err" | head -n 3

rcv_py "$JIT_PID" <<'EOF' || fail "names or stacks are wrong across compactions (above)"
import gzip, json, os, re, sys, rcv_env, receiver as rcv
jit_pid = sys.argv[1]
errs = []
dumps = []
for name in sorted(os.listdir(rcv_env.SPOOL)):
    if name.endswith(".json.gz"):
        with gzip.open(os.path.join(rcv_env.SPOOL, name), "rt") as f:
            dumps.append((name, json.load(f)))
if len(dumps) < 8:
    errs.append("%d dumps, want >= 8 from 12 s of 1 s windows" % len(dumps))
prev_bytes = None
shrank = 0
first_compacted = None
gens_after = set()
chain_after = bad_chain = 0
for i, (name, d) in enumerate(dumps):
    errs += rcv.full_check(d, name, rcv_env.SCHEMA)
    st = d["stats"]
    nb, nc = st.get("names_bytes"), st.get("names_compactions")
    if nb is None or nc is None:
        errs.append("%s: stats lack names_bytes/names_compactions" % name)
        continue
    if prev_bytes is not None and nb < prev_bytes:
        shrank += 1
    print("  %s  names %d, %d bytes, compactions %d, samples %d" % (
        name[:20], st.get("names", -1), nb, nc, st["samples"]))
    prev_bytes = nb
    if nc and first_compacted is None:
        first_compacted = i
    after = first_compacted is not None and i > first_compacted
    for p in d["profiles"]:
        comm = p["labels"].get("comm")
        for s in p["stacks"]:
            frames = s["stack"].split(";")
            if comm == "chain" and after and "c" in frames:
                chain_after += s["count"]
                if "main;a;b;c" not in s["stack"]:
                    bad_chain += s["count"]
                    if bad_chain <= s["count"]:
                        errs.append("%s: a chain stack after a compaction: %s" % (name, s["stack"]))
            if comm == "jit":
                for f in frames:
                    m = re.match(r"jit_hot_g(\d+)_\[j\]$", f)
                    if m and after:
                        gens_after.add(int(m.group(1)))
last = dumps[-1][1]["stats"] if dumps else {}
if last.get("names_compactions", 0) < 2:
    errs.append("%s compactions in the run, want >= 2 (names_max_size = 64KiB while "
                "programs ran from 3,000 unique paths)" % last.get("names_compactions"))
if not shrank:
    errs.append("names_bytes never went down from one window to the next")
if chain_after < 20:
    errs.append("only %d chain samples with c after the first compaction" % chain_after)
if len(gens_after) < 8:
    errs.append("jit code named by %d generations after the first compaction (%s), want >= 8: "
                "is the perf map re-read when the code moves?" % (len(gens_after), sorted(gens_after)))
print("chain samples after the first compaction: %d (%d wrong); jit generations named: %d; "
      "windows where names shrank: %d" % (chain_after, bad_chain, len(gens_after), shrank))
for e in errs[:30]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
echo "names_compaction: OK"
