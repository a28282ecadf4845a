#!/bin/sh
# The honest hot path: once a steady workload's binaries are loaded
# and its pcs cached, sampling allocates nothing and makes no syscall per
# sample beyond reading the rings (which needs none: they are mmap'd).
# `record -p` follows chain (one busy thread, fixed call chains) at 999 Hz for
# 9 s. Between seconds 3 and 7 (after start-up, before the dump is written):
#  - allocations, counted by an LD_PRELOAD wrapper of malloc and friends,
#    are at most 1 per 100 samples (a new stack -- a pc seen for the first
#    time -- may still intern a frame; measured: 0);
#  - syscalls, counted by perf stat on raw_syscalls:sys_enter, are at most 1
#    per 5 samples (poll wake-ups and the liveness check of the target, per
#    poll, not per sample; measured ~0.05 per sample).
# Skipped in sanitizer builds (their allocator comes first and the cost
# model is not the product's).
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain
need_perf process

ALLOC_SO="$(dirname "$SMOLDER")/tests/integration/alloc_count.so"
[ -f "$ALLOC_SO" ] || fail "$ALLOC_SO not built"
ldd "$SMOLDER" 2>/dev/null | grep -q -e libasan -e libtsan -e libmsan &&
	skip "sanitizer build: allocation counts are the sanitizer's"
command -v "${PERF:-perf}" >/dev/null 2>&1 || skip "perf not found (counts syscalls)"

"$WORKLOADS/chain" 30 >/dev/null &
WL=$!
BG_PIDS="$WL"
sleep 0.5

echo "+ smolder record -p $WL -F 999 -d 9 (allocation counter preloaded)"
LD_PRELOAD="$ALLOC_SO" ALLOC_COUNT_FILE="$TMP/allocs" ALLOC_COUNT_WINDOW=3,7 \
	timeout -k 5 60 "$SMOLDER" record -p "$WL" -F 999 -d 9 -q -o "$TMP/out.json" \
	2>"$TMP/smolder.err" &
SP=$!
sleep 3
# the agent is timeout's child
AGENT=$(pgrep -P "$SP" 2>/dev/null | head -n 1)
[ -n "$AGENT" ] || { wait "$SP"; skip "cannot find the agent's pid (pgrep)"; }
"${PERF:-perf}" stat -x, -e raw_syscalls:sys_enter -p "$AGENT" -o "$TMP/syscalls" -- sleep 4 ||
	skip "perf stat cannot count raw_syscalls:sys_enter here"
wait "$SP"
SM_RC=$?
cat "$TMP/smolder.err"
expect_ok
expect_dump "$TMP/out.json"
keep_artifact "$TMP/out.json" steady_state.out.json
[ -s "$TMP/allocs" ] || fail "the allocation counter wrote nothing (not preloaded?)"

"$PYTHON3" - "$TMP/out.json" "$TMP/allocs" "$TMP/syscalls" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
total_allocs, win_allocs = map(int, open(sys.argv[2]).read().split())
sys_count = None
for line in open(sys.argv[3]):
    f = line.strip().split(",")
    if len(f) > 2 and f[2].startswith("raw_syscalls:sys_enter") and f[0].isdigit():
        sys_count = int(f[0])
if sys_count is None:
    print("perf stat gave no syscall count:", open(sys.argv[3]).read())
    sys.exit(77)
w = d["window"]
secs = (w["end_ns"] - w["start_ns"]) / 1e9
samples = d["stats"]["samples"]
win_samples = samples * 4.0 / secs
print("samples %d (~%d in the 4 s window); allocations: %d in all, %d in the window; "
      "syscalls in the window: %d (%.3f per sample)"
      % (samples, win_samples, total_allocs, win_allocs, sys_count, sys_count / max(win_samples, 1)))
if samples < 1000:
    print("too few samples to judge (machine overloaded?)")
    sys.exit(77)
bad = []
if win_allocs * 100 > win_samples:
    bad.append("%d allocations for ~%d samples in steady state" % (win_allocs, win_samples))
if sys_count * 5 > win_samples:
    bad.append("%d syscalls for ~%d samples in steady state" % (sys_count, win_samples))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PYEOF
rc=$?
[ "$rc" -eq 77 ] && skip "could not measure (see above)"
[ "$rc" -eq 0 ] || fail "the steady-state hot path allocates or makes syscalls per sample"
exit 0
