#!/bin/sh
# --lines on native code: frames carry the file and line of their pc (the
# leaf) or of their call (callers), inlined frames theirs and their
# caller the line of the inlined call, from the DWARF line tables. The
# workload's lines are found by their markers in its source:
#  - >= 90% of its samples show main at its call of caller, caller at its
#    call of hot, and hot in its loop (the loop's line or step's call);
#  - of the samples in step (inlined into hot), >= 90% show step at its own
#    lines and hot at the line that calls it;
#  - record --lines --format pprof: go tool pprof -top -lines lists hot at
#    its loop's line (when go is installed);
#  - without --lines, names are as they were: no place on any frame.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload lines
need_perf process
SRC="$TESTS_SRCDIR/workloads/lines.c"

run_smolder 60 record --lines -F 999 -o "$TMP/lines.json" -- "$WORKLOADS/lines" 3
expect_ok
keep_artifact "$TMP/lines.json" native_lines.out.json
"$PYTHON3" - "$TMP/lines.json" "$SRC" <<'PY' || fail "native frames do not carry the right lines"
import json, re, sys
d = json.load(open(sys.argv[1]))
line = {}
for i, text in enumerate(open(sys.argv[2]).read().split("\n"), 1):
    m = re.search(r"/\* (LINE_[A-Z0-9_]+) \*/", text)
    if m:
        line[m.group(1)] = i

def at(name, key):
    return "%s (lines.c:%d)" % (name, line[key])

total = whole = instep = stepok = 0
for p in d["profiles"]:
    if p["labels"]["comm"] != "lines":
        continue
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        n = s["count"]
        total += n
        loop = at("hot", "LINE_LOOP") in fr or at("hot", "LINE_CALL_STEP") in fr
        if at("main", "LINE_CALL_CALLER") in fr and at("caller", "LINE_CALL_HOT") in fr and loop:
            whole += n
        steps = [f for f in fr if f.startswith("step (")]
        if steps:
            instep += n
            if steps[-1] in (at("step", "LINE_STEP") + "_[i]", at("step", "LINE_STEP2") + "_[i]") and \
                    fr[fr.index(steps[-1]) - 1] == at("hot", "LINE_CALL_STEP"):
                stepok += n
pct = lambda x, t: 100.0 * x / t if t else 0.0
print("lines at %s: %d samples, %.1f%% main -> caller -> hot at their lines; %d in step, %.1f%% at its "
      "lines under hot's call" % (line, total, pct(whole, total), instep, pct(stepok, instep)))
sys.exit(0 if total >= 500 and pct(whole, total) >= 90 and instep >= 50 and pct(stepok, instep) >= 90 else 1)
PY

if command -v go >/dev/null 2>&1; then
	run_smolder 60 record --lines -F 999 --format pprof -o "$TMP/lines.pb.gz" -- "$WORKLOADS/lines" 2
	expect_ok
	loop=$(grep -n 'LINE_LOOP' "$SRC" | cut -d: -f1)
	go tool pprof -top -lines "$TMP/lines.pb.gz" >"$TMP/top.txt" 2>"$TMP/pprof.err" ||
		fail "go tool pprof -top -lines: $(cat "$TMP/pprof.err")"
	head -n 14 "$TMP/top.txt"
	grep -q " hot lines\.c:$loop\$" "$TMP/top.txt" || fail "pprof -top -lines does not list hot at lines.c:$loop"
else
	echo "go not installed: pprof's reading of lines not checked"
fi

run_smolder 60 record -F 999 -o "$TMP/plain.json" -- "$WORKLOADS/lines" 1
expect_ok
"$PYTHON3" - "$TMP/plain.json" <<'PY' || fail "frames carry lines without --lines"
import json, sys
d = json.load(open(sys.argv[1]))
placed = {f for p in d["profiles"] for s in p["stacks"] for f in s["stack"].split(";")
          if f.endswith(")") and ".c:" in f}
print("without --lines: %d frames with a place" % len(placed))
sys.exit(1 if placed else 0)
PY
exit 0
