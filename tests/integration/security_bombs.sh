#!/bin/sh
# F3: twenty 230 KB libraries of another user, each declaring 100 MB of
# MiniDebugInfo and 200 MB of compressed DWARF (the bombs took the agent to
# 7 GB and a 15 s recording to 88 s). With the global budgets the agent's
# peak RSS stays under 256 MB, it loses <= 1% of its samples, a 10 s
# recording ends by 15 s, and the refusals are counted.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload bombs
need_perf system
b="$TMP/bombs"
make_bomb "$b"
libs=
for i in $(seq 1 20); do
	cp "$b/bomb.so" "$b/libbomb$i.so"
	libs="$libs $b/libbomb$i.so"
done
# another user's libraries: the per-user share applies
chown 65534:65534 "$b"/libbomb*.so 2>/dev/null || echo "note: cannot chown the bombs; root's budget applies"
chmod 755 "$TMP" "$b"

# shellcheck disable=SC2086
"$WORKLOADS/bombs" 14 $libs >"$TMP/bombs.out" 2>&1 &
BG_PIDS="$BG_PIDS $!"
sleep 1
t0=$(date +%s%N)
run_smolder 60 record -a -F 99 -d 10 -o "$TMP/out.json"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_ok
keep_artifact "$TMP/out.json" security_bombs.out.json
# Under AddressSanitizer the debug data read into the heap waits in ASan's
# quarantine when freed, with its shadow beside it: RSS says nothing of
# smolder's own memory there (41 MiB plain, 422 MiB under ASan), so only
# the rest is judged.
SANITIZED=0
ldd "$SMOLDER" 2>/dev/null | grep -q libasan && SANITIZED=1
[ "$SANITIZED" = 1 ] && echo "note: sanitizer build: the RSS bound is not checked (ASan quarantine)"
export SANITIZED
"$PYTHON3" - "$TMP/out.json" "$ms" <<'PY' || fail "the bombs still cost more than the budgets allow"
import json, os, sys
d = json.load(open(sys.argv[1]))
st, ms = d["stats"], int(sys.argv[2])
rss = st["agent_peak_rss_bytes"] / 1048576.0
lost = 100.0 * st["lost"] / max(1, st["samples"] + st["lost"])
bombs = sum(p["samples"] for p in d["profiles"] if p["labels"].get("comm") == "bombs")
print("bombs: recording took %.1f s (<= 15), peak RSS %.0f MiB (<= 256), %.2f%% lost (<= 1), "
      "debug data held %.0f MiB, %d refusals, %d samples of the bombs process"
      % (ms / 1000.0, rss, lost, st.get("debug_bytes", 0) / 1048576.0,
         st.get("debug_refused", 0), bombs))
ok = ms <= 15000 and (rss <= 256 or os.environ.get("SANITIZED") == "1") and lost <= 1.0 and st.get("debug_refused", 0) > 0 and bombs > 0
sys.exit(0 if ok else 1)
PY
