#!/bin/sh
# HotSpot's stubs are frames (runtimes/hotspot_frames.c, x86_frame.c): with
# no JVM flags, a Java thread 180 frames deep spending its time in the
# arraycopy stubs ("StubRoutines (2)") and C2's string intrinsics (which
# move sp inside the compiled method) is shown with its Java caller and its
# whole stack; and a Rhino program, JIT code of every shape, has its Java
# frames' callers found.
#
#  1. JavaStubs mixed: of the worker's samples, >= 95 % hold the thread's
#     start, JavaStubs.lambda$main$0, exactly 178 JavaStubs.deep frames,
#     then the method working (JavaStubs.copy or .strings) when one runs,
#     and no [unknown] or [truncated]; <= 2 % hold either; >= 10 % are in a
#     stub routine and >= 10 % in the string intrinsics (each about half
#     on an idle host), each under its Java caller. Without the code read
#     at the pc: 59 % (the arraycopy stubs lose their caller, and
#     indexOf's moved sp loses frames silently: 172 of 178).
#  2. Rhino: the JVM's samples with [unknown] <= 1 %, its stacks that end
#     on a pc in no mapping (no_map) <= 0.5 %. Without: 7-8 % and 6.5 %.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v java >/dev/null 2>&1 || skip "java not installed (Debian: openjdk-17-jdk-headless)"
command -v javac >/dev/null 2>&1 || skip "javac not installed (Debian: openjdk-17-jdk-headless)"

javac -d "$TMP" "$TESTS_SRCDIR/workloads/JavaStubs.java" || fail "javac failed"

# The whole stack in each sample's copy: what is tested is the stubs'
# frames, not the reads of the stack beyond the copy (which a loaded host
# may make too late to prove; collector/livestack.c).
run_smolder 120 record -F 999 --group-by thread --stack-size 65528 -o "$TMP/stubs.json" -- java -cp "$TMP" JavaStubs mixed 8 180
[ "$SM_RC" -eq 0 ] || fail "JavaStubs: record failed"
keep_artifact "$TMP/stubs.json" "java_stubs.out.json"
"$PYTHON3" - "$TMP/stubs.json" <<'PY' || fail "stubs and intrinsics under a deep Java stack are not unwound whole"
import json, sys
d = json.load(open(sys.argv[1]))
total = whole = marked = stub = strings = 0
for p in d["profiles"]:
    if p["labels"].get("comm") != "java" or p["labels"].get("thread") != "worker":
        continue
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        n = s["count"]
        total += n
        if "[unknown]" in fr or "[truncated]" in fr:
            marked += n
            continue
        deep = sum(1 for f in fr if f.startswith("JavaStubs.deep_["))
        work = [f for f in fr if f[:-4] in ("JavaStubs.copy", "JavaStubs.strings")]
        if "start_thread" not in fr or not any(f.startswith("JavaStubs.lambda$main$0_[") for f in fr):
            continue
        if work and deep == 178 or not work and deep <= 178:
            whole += n
        # the leaf in user space: a stub's copy into a new array may be
        # in the kernel's page fault handler at the sample
        leaf = [f for f in fr if not f.endswith("_[k]")][-1]
        if work and deep == 178 and leaf == "StubRoutines (2)_[j]":
            stub += n
        if work and deep == 178 and work[0].startswith("JavaStubs.strings") and not leaf.startswith("StubRoutines"):
            strings += n
pct = lambda x: 100.0 * x / total if total else 0
print("JavaStubs: %d worker samples: %.1f%% whole, %.1f%% [unknown]/[truncated]; %.1f%% in stub "
      "routines, %.1f%% in string intrinsics, under their callers" % (total, pct(whole), pct(marked), pct(stub), pct(strings)))
print("  unwind: %s" % json.dumps(d["stats"]["unwind"], sort_keys=True))
if total < 300:
    sys.exit("too few samples")
sys.exit(0 if pct(whole) >= 95 and pct(marked) <= 2 and pct(stub) >= 10 and pct(strings) >= 10 else 1)
PY

command -v rhino >/dev/null 2>&1 || { echo "rhino not installed (Debian: rhino): its part skipped"; exit 0; }
run_smolder 120 record -F 999 -o "$TMP/rhino.json" -- rhino "$TESTS_SRCDIR/workloads/rhino_work.js" 8
[ "$SM_RC" -eq 0 ] || fail "rhino: record failed"
keep_artifact "$TMP/rhino.json" "java_stubs_rhino.out.json"
"$PYTHON3" - "$TMP/rhino.json" <<'PY' || fail "Rhino's compiled frames lose their callers"
import json, sys
d = json.load(open(sys.argv[1]))
total = unknown = 0
for p in d["profiles"]:
    if p["labels"].get("comm") != "java":
        continue
    for s in p["stacks"]:
        total += s["count"]
        if "[unknown]" in s["stack"].split(";"):
            unknown += s["count"]
u = d["stats"]["unwind"]
nomap = 100.0 * u["no_map"] / total if total else 0
pu = 100.0 * unknown / total if total else 0
print("rhino: %d java samples, %.2f%% with [unknown], no_map %d (%.2f%%)" % (total, pu, u["no_map"], nomap))
print("  unwind: %s" % json.dumps(u, sort_keys=True))
if total < 300:
    sys.exit("too few samples")
sys.exit(0 if pu <= 1 and nomap <= 0.5 else 1)
PY
