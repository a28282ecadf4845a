#!/bin/sh
# --lines on node: JavaScript frames carry the line they run, not the one
# their function is defined on (runtimes/v8_lines.c for interpreted
# frames, runtimes/v8_inline.c for optimized code). On
# tests/workloads/node_lines.js, whose lines are found by their marks
# (hotLoop spins on LINE_LOOP, driver calls it on LINE_CALL):
#  - node with no flags, every tier V8 picks: of the samples in hotLoop,
#    >= 80% show it at its loop's line; of those in driver, >= 80% at its
#    call's line;
#  - node --no-opt --no-sparkplug, the interpreter alone: the same, from
#    the bytecode offsets of Ignition's frames;
#  - node --no-opt --always-sparkplug, baseline code alone: of the samples
#    in driver (a baseline frame calling), >= 80% at its call's line
#    (hotLoop's own is unknown where it is sampled inside a builtin its
#    code called: not asserted);
#  - without --lines, names are as they were: every frame of the script
#    at the line its function is defined on.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v node >/dev/null 2>&1 || skip "node not installed (Debian: nodejs)"
SRC="$TESTS_SRCDIR/workloads/node_lines.js"

check() { # dump, case, lines (yes/no)
	"$PYTHON3" - "$1" "$SRC" "$2" "$3" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read().split("\n")
case, lines = sys.argv[3], sys.argv[4] == "yes"
mark, defined = {}, {"(anonymous)": 1}
for i, text in enumerate(src, 1):
    m = re.search(r"// (LINE_[A-Z]+)", text)
    if m:
        mark[m.group(1)] = i
    m = re.match(r"function (\w+)", text)
    if m:
        defined[m.group(1)] = i
frame = re.compile(r"^(.*) \(node_lines\.js:(\d+)\)_\[[ji]\]$")
js = hot = hot_ok = drv = drv_ok = misplaced = 0
for p in d["profiles"]:
    if p["labels"].get("comm") != "node":
        continue
    for s in p["stacks"]:
        n = s["count"]
        fr = [m.groups() for m in map(frame.match, s["stack"].split(";")) if m]
        if not fr:
            continue
        js += n
        # a frame not at its definition's line
        misplaced += n if any(int(l) != defined.get(f, -1) for f, l in fr) else 0
        hots = [int(l) for f, l in fr if f == "hotLoop"]
        drvs = [int(l) for f, l in fr if f == "driver"]
        if hots:
            hot += n
            hot_ok += n if hots[-1] == mark["LINE_LOOP"] else 0
        if drvs:
            drv += n
            drv_ok += n if drvs[-1] == mark["LINE_CALL"] else 0
pct = lambda x, t: 100.0 * x / t if t else 0.0
print("%s: %d JavaScript samples; hotLoop in %d, %.1f%% at its loop (line %d); driver in %d, %.1f%% at "
      "its call (line %d); %.1f%% with a frame off its definition's line"
      % (case, js, hot, pct(hot_ok, hot), mark["LINE_LOOP"], drv, pct(drv_ok, drv), mark["LINE_CALL"],
         pct(misplaced, js)))
print("  v8: %s" % json.dumps(d["stats"]["runtimes"].get("v8"), sort_keys=True))
if case.startswith("baseline"):
    ok = js >= 500 and drv >= 0.8 * js and pct(drv_ok, drv) >= 80
elif lines:
    ok = js >= 500 and hot >= 0.8 * js and pct(hot_ok, hot) >= 80 and drv >= 0.8 * js and pct(drv_ok, drv) >= 80
else:
    ok = js >= 500 and hot >= 0.8 * js and misplaced == 0
sys.exit(0 if ok else 1)
PY
}

for c in plain interpreted baseline; do
	mkdir -p "$TMP/$c"
	case $c in
	plain) set -- ;;
	interpreted) set -- --no-opt --no-sparkplug ;;
	baseline) set -- --no-opt --always-sparkplug ;;
	esac
	(cd "$TMP/$c" && run_smolder 60 record --lines -F 999 -o "$TMP/$c/lines.json" -- node "$@" "$SRC" 4 &&
		[ "$SM_RC" -eq 0 ]) || fail "$c: record --lines failed"
	keep_artifact "$TMP/$c/lines.json" "node_lines_$c.out.json"
	check "$TMP/$c/lines.json" "$c --lines" yes || fail "$c: JavaScript frames do not carry the lines they run"
done

run_smolder 60 record -F 999 -o "$TMP/plain.json" -- node "$SRC" 2
expect_ok
check "$TMP/plain.json" "without --lines" no || fail "JavaScript frames are not at their definition's line without --lines"
exit 0
