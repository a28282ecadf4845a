#!/bin/sh
# With --lines, Java frames carry their source file and line
# (runtimes/hotspot_names.c, hotspot_lines.c): a compiled frame the line of
# its scope's bytecode index (PcDesc), an interpreted one that of its
# bytecode pointer (the live r13 in the leaf, the frame's saved slot in its
# callers), each mapped through the method's compressed line table; the
# file is the class's SourceFile. The lines expected are read from the
# workload's markers (tests/workloads/JavaLines.java).
#
#  1. no JVM flags: of the worker thread's samples, >= 80 % hold a Java
#     frame "C.m (JavaLines.java:LINE)"; of those in JavaLines.hot, >= 80 %
#     carry the loop's lines (its header or body); of those in
#     JavaLines.caller, >= 80 % carry the call's line. A reader that
#     ignores --lines gives 0 %: the checker is run on a dump without
#     lines too, and must refuse it;
#  2. -Xint (every frame interpreted, _[0]): the same, and the loop body's
#     line in >= 25 % of hot's samples (about 2/3 on an idle host: most of
#     the loop's bytecodes are its body). The leaf's bytecode pointer is
#     the interpreter's r13: the frame's slot is written only at calls,
#     so a reader of the slot alone would show the loop's header;
#  3. without --lines, names are as before: no frame carries a file.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v java >/dev/null 2>&1 || skip "java not installed (Debian: openjdk-17-jdk-headless)"
command -v javac >/dev/null 2>&1 || skip "javac not installed (Debian: openjdk-17-jdk-headless)"

SRC="$TESTS_SRCDIR/workloads/JavaLines.java"
javac -d "$TMP" "$SRC" || fail "javac failed"
line_of() {
	grep -n "// LINE:$1\$" "$SRC" | cut -d: -f1
}
HOT_LOOP=$(line_of HOT_LOOP)
HOT_BODY=$(line_of HOT_BODY)
CALL=$(line_of CALL)
[ -n "$HOT_LOOP" ] && [ -n "$HOT_BODY" ] && [ -n "$CALL" ] || fail "the workload's line markers are missing"

# check NAME DUMP MODE: MODE lines (compiled or interpreted frames with
# their lines), or plain (no frame carries a file)
check() {
	"$PYTHON3" - "$2" "$3" "$1" "$HOT_LOOP" "$HOT_BODY" "$CALL" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
mode, name = sys.argv[2], sys.argv[3]
hot_lines = {int(sys.argv[4]), int(sys.argv[5])}
body, call = int(sys.argv[5]), int(sys.argv[6])
framed = re.compile(r"^JavaLines[.$][\w$.<>]+ \(JavaLines\.java:(\d+)\)_\[(j|i|0)\]$")
total = lined = hot = hot_ok = hot_body = caller = caller_ok = filed = plain = 0
for p in d["profiles"]:
    if p["labels"].get("comm") != "java" or p["labels"].get("thread") != "worker":
        continue
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        n = s["count"]
        total += n
        if any(framed.match(f) for f in fr):
            lined += n
        if any("(JavaLines.java" in f for f in fr):
            filed += n
        if any(f.startswith("JavaLines.caller_[") for f in fr):
            plain += n
        hf = [f for f in fr if f.startswith("JavaLines.hot ")]
        cf = [f for f in fr if f.startswith("JavaLines.caller ")]
        if mode == "interpreted":
            hf = [f for f in hf if f.endswith("_[0]")]
            cf = [f for f in cf if f.endswith("_[0]")]
        if hf:
            hot += n
            m = framed.match(hf[-1])
            if m and int(m.group(1)) in hot_lines:
                hot_ok += n
            if m and int(m.group(1)) == body:
                hot_body += n
        if cf:
            caller += n
            m = framed.match(cf[-1])
            if m and int(m.group(1)) == call:
                caller_ok += n
pct = lambda a, b: 100.0 * a / b if b else 0.0
print("%s: %d worker samples, %.1f%% with a Java frame's line; hot: %d samples, %.1f%% on "
      "the loop (%.1f%% its body); caller: %d samples, %.1f%% on the call; %d with a file, "
      "%d plain" % (name, total, pct(lined, total), hot, pct(hot_ok, hot), pct(hot_body, hot),
                    caller, pct(caller_ok, caller), filed, plain))
if total < 500:
    sys.exit("too few samples")
if mode == "plain":
    sys.exit(0 if filed == 0 and pct(plain, total) >= 50 else 1)
ok = (pct(lined, total) >= 80 and hot >= 0.5 * total and pct(hot_ok, hot) >= 80
      and caller >= 0.5 * total and pct(caller_ok, caller) >= 80)
if mode == "interpreted":
    ok = ok and pct(hot_body, hot) >= 25
sys.exit(0 if ok else 1)
PY
}

run_smolder 120 record --lines -F 999 --group-by thread -o "$TMP/lines.json" -- java -cp "$TMP" JavaLines 5
[ "$SM_RC" -eq 0 ] || fail "default: record failed"
keep_artifact "$TMP/lines.json" "java_lines.out.json"
check default "$TMP/lines.json" compiled || fail "default flags: Java frames do not carry their lines"

run_smolder 120 record --lines -F 999 --group-by thread -o "$TMP/xint.json" -- java -Xint -cp "$TMP" JavaLines 3
[ "$SM_RC" -eq 0 ] || fail "-Xint: record failed"
keep_artifact "$TMP/xint.json" "java_lines_xint.out.json"
check xint "$TMP/xint.json" interpreted || fail "-Xint: interpreted Java frames do not carry their lines"

run_smolder 120 record -F 999 --group-by thread -o "$TMP/plain.json" -- java -cp "$TMP" JavaLines 3
[ "$SM_RC" -eq 0 ] || fail "without --lines: record failed"
keep_artifact "$TMP/plain.json" "java_lines_plain.out.json"
check plain "$TMP/plain.json" plain || fail "without --lines: Java frames are not named as before"
# the checker can fail: a dump without lines is refused
if check "refused (no lines)" "$TMP/plain.json" compiled; then
	fail "the checker accepts a dump whose frames carry no lines"
fi
