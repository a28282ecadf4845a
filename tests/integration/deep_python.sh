#!/bin/sh
# CPython 2.7 (each Python call is several native frames: some 70 KiB of
# native stack for 62 Python frames) 62 Python frames deep over a C call
# (zlib), at default settings: every Python frame, in order, in >= 95% of
# the samples, the native stack beyond the copy read from the live thread.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
PY27=$(ls "${PYENV_ROOT:-$HOME/.pyenv}"/versions/2.7.*/bin/python2.7 2>/dev/null | tail -n 1)
[ -n "$PY27" ] && [ -x "$PY27" ] || skip "no CPython 2.7 under pyenv"

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$PY27" "$TESTS_SRCDIR/workloads/py_work.py" deep 3
keep_artifact "$TMP/out.json" deep_python.out.json
expect_ok
expect_dump "$TMP/out.json"
"$PYTHON3" - "$TMP/out.json" <<'PY' || fail "deep Python stacks are not whole"
import collections, json, sys
d = json.load(open(sys.argv[1]))
want = ["<module>", "main"] + ["level"] * 59 + ["deep_leaf"]
total = whole = 0
depths = collections.Counter()
for p in d["profiles"]:
    if not p["labels"].get("comm", "").startswith("python"):
        continue
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        py = [f.split(" (")[0] for f in fr if f.endswith("_[py]")]
        total += s["count"]
        depths[len(py)] += s["count"]
        if py == want and fr[0] == "_start":
            whole += s["count"]
st = d["stats"]
print("deep python: %d of %d samples (%.1f%%) carry all 62 Python frames in order, rooted at _start"
      % (whole, total, 100.0 * whole / max(total, 1)))
print("  Python frames per sample: %s" % depths.most_common(6))
print("  unwind %s, deep: %s" % (st["unwind"], {k: v for k, v in st.items() if k.startswith("deep_")}))
sys.exit(0 if total and whole >= 0.95 * total else 1)
PY
