#!/bin/sh
# Samples in a signal handler: the trampoline that returns from it is named
# [signal] (not libc.so.6+0x...), the interrupted function above it is named
# exactly, and the stack goes on to _start: main;busy_loop;[signal];
# on_alarm;in_handler in >= 40% of the samples (the handler runs half the
# time), and no handler stack without [signal].
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload sighandler
need_perf process

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$WORKLOADS/sighandler" 2
expect_ok
keep_artifact "$TMP/out.json" signal.out.json
$CHECK share "$TMP/out.json" --exe sighandler --first _start \
	--seq 'main;busy_loop;[signal];on_alarm;in_handler' --min 40 --label "signal handler" ||
	fail "the handler's stacks do not go through [signal] to the interrupted busy_loop"
"$PYTHON3" - "$TMP/out.json" <<'PY' || fail "a handler stack lacks [signal]"
import json, sys
d = json.load(open(sys.argv[1]))
bad = [s["stack"] for p in d["profiles"] for s in p["stacks"]
       if "on_alarm" in s["stack"].split(";") and "[signal]" not in s["stack"].split(";")]
for s in bad[:5]:
    print("  without [signal]: " + s)
sys.exit(1 if bad else 0)
PY
