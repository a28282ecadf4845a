#!/bin/sh
# HotSpot with no JVM flags: smolder reads the JVM's own description
# (vmStructs) from its memory, unwinds compiled frames by their size and
# interpreted frames by their layout, and names them.
#
#  1. chain, default flags: >= 85% of the java process's samples hold
#     JavaChain.outer -> Middle*.run -> Inner*.run in that order (megamorphic
#     calls: separate compiled frames; outer itself may be inlined into its
#     caller, an _[i] frame), >= 85% are rooted at the
#     thread's start, and the profile is labelled with the main class;
#  2. the same with -XX:+PreserveFramePointer: the same stacks;
#  3. inline: Hot.leaf, inlined into Hot.caller, is an _[i] frame in >= 60%
#     of the samples in compiled Hot.caller (_[j]). Samples before C2 has
#     inlined it are the JIT's warm-up, not smolder's: Hot.caller
#     interpreted, or compiled by C1 with leaf a call of its own. While the
#     suite runs in parallel the compiler threads share the CPUs and the
#     warm-up grows: of all Hot.caller's samples, 84.7 % alone and 62.8-
#     79.6 % in parallel had leaf inlined; of its compiled ones, 79.6 % in
#     that 62.8 % run (the rest C1's). A reader that does not name inlined
#     scopes gives 0 %;
#  4. -Xint (every frame interpreted): >= 85% hold the chain as _[0] frames.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v java >/dev/null 2>&1 || skip "java not installed (Debian: openjdk-17-jdk-headless)"
command -v javac >/dev/null 2>&1 || skip "javac not installed (Debian: openjdk-17-jdk-headless)"

javac -d "$TMP" "$TESTS_SRCDIR/workloads/JavaChain.java" || fail "javac failed"

# check NAME DUMP MODE: the share of the java process's samples that show
# what MODE expects
check() {
	"$PYTHON3" - "$2" "$3" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mode, name = sys.argv[2], sys.argv[3]
total = chain = rooted = inl = caller = interp = 0
labels = set()
for p in d["profiles"]:
    if p["labels"].get("comm") != "java":
        continue
    labels.add(p["labels"].get("service_name"))
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        n = s["count"]
        total += n
        if "start_thread" in fr or fr[0] in ("clone", "__clone", "__clone3"):
            rooted += n
        js = [f for f in fr if f.startswith("JavaChain")]
        # compiled: outer may be inlined into its caller (_[i]); the
        # stages below it are megamorphic calls, frames of their own
        ok = ("_[0]",) if mode == "interpreted" else ("_[j]", "_[i]", "_[0]")
        for i, f in enumerate(js):
            if (f[:-4] == "JavaChain.outer" and f[-4:] in ok and i + 2 < len(js)
                    and js[i + 1].startswith("JavaChain$Middle") and js[i + 1][-8:-4] == ".run"
                    and js[i + 1][-4:] in ok
                    and js[i + 2].startswith("JavaChain$Inner") and js[i + 2][-8:-4] == ".run"
                    and js[i + 2][-4:] in ok):
                chain += n
                break
        if "JavaChain$Hot.caller_[0]" in fr:
            interp += n
        elif "JavaChain$Hot.caller_[j]" in fr:
            caller += n
            if "JavaChain$Hot.leaf_[i]" in fr:
                inl += n
pc = 100.0 * chain / total if total else 0
pr = 100.0 * rooted / total if total else 0
pi = 100.0 * inl / caller if caller else 0
print("%s: %d java samples, %.1f%% with the chain, %.1f%% rooted at the thread's start, "
      "%d in compiled Hot.caller (%d interpreted) of which %.1f%% with Hot.leaf_[i]; labels %s"
      % (name, total, pc, pr, caller, interp, pi, sorted(labels)))
print("  unwind: %s" % json.dumps(d["stats"]["unwind"], sort_keys=True))
if total < 500:
    sys.exit("too few samples")
if labels != {"JavaChain"}:
    sys.exit("the JVM is not labelled with its main class")
if mode == "inline":
    sys.exit(0 if caller >= 300 and pi >= 60 else 1)
sys.exit(0 if pc >= 85 and pr >= 85 else 1)
PY
}

# The JVM compiles the chain within a second; 5 s keeps the warm-up small.
run_smolder 120 record -F 999 -o "$TMP/default.json" -- java -cp "$TMP" JavaChain chain 5
[ "$SM_RC" -eq 0 ] || fail "default: record failed"
keep_artifact "$TMP/default.json" "java_default.out.json"
check default "$TMP/default.json" compiled || fail "default flags: Java stacks are not unwound and named well enough"

run_smolder 120 record -F 999 -o "$TMP/pfp.json" -- java -XX:+PreserveFramePointer -cp "$TMP" JavaChain chain 5
[ "$SM_RC" -eq 0 ] || fail "PreserveFramePointer: record failed"
keep_artifact "$TMP/pfp.json" "java_pfp.out.json"
check pfp "$TMP/pfp.json" compiled || fail "-XX:+PreserveFramePointer: Java stacks are not unwound and named well enough"

run_smolder 120 record -F 999 -o "$TMP/inline.json" -- java -cp "$TMP" JavaChain inline 5
[ "$SM_RC" -eq 0 ] || fail "inline: record failed"
keep_artifact "$TMP/inline.json" "java_inline.out.json"
check inline "$TMP/inline.json" inline || fail "inlined Java methods are not named as _[i] frames"

run_smolder 120 record -F 999 -o "$TMP/xint.json" -- java -Xint -cp "$TMP" JavaChain chain 3
[ "$SM_RC" -eq 0 ] || fail "-Xint: record failed"
keep_artifact "$TMP/xint.json" "java_xint.out.json"
check xint "$TMP/xint.json" interpreted || fail "interpreted Java frames are not unwound and named"
