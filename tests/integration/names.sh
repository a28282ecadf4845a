#!/bin/sh
# C++ names over 2 KiB (tests/workloads/long_names.cc): with --names full
# each one is whole in the dump and in `report` (collapsed stacks), no cut
# counted; the top table tells apart the two names that differ only at
# their end, in lines of at most 100 columns. With the default (short) the
# two instantiations of Pack<...>::spin_a are one frame, Pack::spin_a.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload long_names
need_perf process

run_smolder 60 record -F 999 --names full -o "$TMP/full.json" -- "$WORKLOADS/long_names" 3
expect_ok
expect_dump "$TMP/full.json"
keep_artifact "$TMP/full.json" names-full.out.json
run_smolder 60 report --format collapsed -o "$TMP/full.folded" "$TMP/full.json"
expect_ok
run_smolder 60 report "$TMP/full.json"
expect_ok
cp "$TMP/smolder.out" "$TMP/full.top"
run_smolder 60 record -F 999 -o "$TMP/short.json" -- "$WORKLOADS/long_names" 3
expect_ok
expect_dump "$TMP/short.json"
keep_artifact "$TMP/short.json" names-short.out.json

"$PYTHON3" - "$TMP/full.json" "$TMP/full.folded" "$TMP/full.top" "$TMP/short.json" <<'PY' ||
import json, re, sys
full, folded, top, short = sys.argv[1:5]
errs = []

def frames(path):
    d = json.load(open(path))
    out = {}
    for p in d["profiles"]:
        if not p["labels"].get("exe", "").endswith("/long_names"):
            continue
        for s in p["stacks"]:
            for f in s["stack"].split(";"):
                out[f] = out.get(f, 0) + s["count"]
    return d, out

d, fr = frames(full)
packs = sorted(f for f in fr if f.startswith("Pack<"))
for f in packs:
    print("full: %d bytes, %d samples: %s...%s" % (len(f), fr[f], f[:40], f[-40:]))
if len(packs) != 3:
    errs.append("--names full: %d Pack<...> frames, want 3 (spin_a twice, spin_b)" % len(packs))
for f in packs:
    if len(f) < 2048:
        errs.append("--names full: a Pack frame of %d bytes, want > 2048: %s" % (len(f), f[:200]))
    if "\u2026" in f:
        errs.append("--names full: a Pack frame was cut: %s" % f[:200])
    if not re.search(r"::spin_[ab]\(unsigned long\)$", f):
        errs.append("--names full: the end of the name is not ::spin_x(unsigned long): %s" % f[-80:])
if d["stats"].get("names_cut", 0) != 0:
    errs.append("stats.names_cut = %s, want 0" % d["stats"]["names_cut"])

# report --format collapsed: the names round-trip byte for byte
text = open(folded, encoding="utf-8").read()
for f in packs:
    if f not in text:
        errs.append("report --format collapsed lost the whole name %s..." % f[:60])

# report's top table: every line fits, and the Pack rows read differently
rows = []
for line in open(top, encoding="utf-8"):
    line = line.rstrip("\n")
    if len(line) > 100:
        errs.append("top: a line of %d columns: %s" % (len(line), line))
    m = re.match(r"^\s*[0-9.]+%\s+\d+\s+[0-9.]+%\s+\d+  (.*)$", line)
    if m and "Pack<" in m.group(1):
        rows.append(m.group(1))
table = rows[:len(rows) // 2] if rows else []
print("top (by self):\n  " + "\n  ".join(table))
if len(table) != 3 or len(set(table)) != 3:
    errs.append("top: %d Pack rows, %d distinct, want 3 and 3" % (len(table), len(set(table))))
if not any(r.endswith("::spin_b(unsigned long)") for r in table):
    errs.append("top: no row ends with the function's own name ::spin_b(unsigned long)")

# short: the two spin_a instantiations are one frame, no template arguments
d, fr = frames(short)
spins = sorted(f for f in fr if f.startswith("Pack"))
print("short: %s" % ", ".join("%s (%d)" % (f[:80], fr[f]) for f in spins))
if spins != ["Pack::spin_a", "Pack::spin_b"]:
    errs.append("default (short) names: %s, want Pack::spin_a and Pack::spin_b" % [f[:80] for f in spins[:5]])
elif fr["Pack::spin_a"] < fr["Pack::spin_b"] * 1.3:
    errs.append("Pack::spin_a has %d samples, spin_b %d: the two instantiations did not merge"
                % (fr["Pack::spin_a"], fr["Pack::spin_b"]))

for e in errs:
    print("FAIL: " + e)
sys.exit(1 if errs else 0)
PY
	fail "long C++ names not kept whole, shown apart, or merged in short"
echo "names: whole in full, apart in top, merged in short"
