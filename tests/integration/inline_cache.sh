#!/bin/sh
# The inline index of a binary is built once and kept, so that a restarted
# agent does not read a monolith's DWARF again (doc/decisions.md,
# Symbolization): a small generated monolith (bench/gen_monolith.py) recorded
# twice with one cache directory builds its units' inline trees in the first
# run and maps them in the second, with the same inlined frames; a damaged
# cache file is noticed, not believed, and replaced.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v "${CXX:-g++}" >/dev/null 2>&1 || skip "no C++ compiler (${CXX:-g++})"

M="$TMP/mono"
"$PYTHON3" "$TESTS_SRCDIR/../bench/gen_monolith.py" --out "$M" --units 6 --functions 600 ||
	fail "gen_monolith.py failed"
make -s -C "$M" -j2 CXX="${CXX:-g++}" >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log"; fail "building the monolith failed"; }
CACHE="$TMP/cache"

# record N: a 3 s recording into $TMP/runN.json; prints its inline stats
record() {
	run_smolder 60 record -F 999 -d 3 --cache-dir "$CACHE" -o "$TMP/run$1.json" -- "$M/monolith" 3
	expect_ok
	expect_dump "$TMP/run$1.json"
	keep_artifact "$TMP/run$1.json" "inline_cache_$1.out.json"
}

# counter N KEY: a counter of run N's stats
counter() {
	"$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"][sys.argv[2]])' "$TMP/run$1.json" "$2"
}

# inlined N: the share (%) of the monolith's samples with an inlined frame
inlined() {
	"$PYTHON3" - "$TMP/run$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st = [s for p in d["profiles"] for s in p["stacks"] if "mono::f" in s["stack"]]
n = sum(s["count"] for s in st)
i = sum(s["count"] for s in st if "mono::Mix::step_[i]" in s["stack"] or "mono::twice_[i]" in s["stack"])
print(100 * i // n if n else 0)
PY
}

record 1
b1=$(counter 1 inline_builds); l1=$(counter 1 inline_loads); i1=$(inlined 1)
echo "run 1: builds $b1, loads $l1, inlined $i1 %"
[ "$b1" -ge 6 ] || fail "run 1 built $b1 unit trees, expected the monolith's 6 at least"
[ "$l1" -eq 0 ] || fail "run 1 loaded $l1 trees from an empty cache"
[ "$i1" -ge 50 ] || fail "run 1: only $i1 % of samples with inlined frames"
ls "$CACHE"/inl-* >/dev/null 2>&1 || fail "no inline index file in the cache directory"
# the monolith's index is the largest (ld.so's and libc's are smaller)
F=$(ls -S "$CACHE"/inl-* | head -1)
sum1=$(cksum <"$F")

record 2
b2=$(counter 2 inline_builds); l2=$(counter 2 inline_loads); i2=$(inlined 2)
echo "run 2: builds $b2, loads $l2, inlined $i2 %"
[ "$l2" -ge 6 ] || fail "run 2 loaded $l2 trees, expected the monolith's 6 at least"
# (other libraries' units, first hit in this run, may be built: not the monolith's)
[ "$(cksum <"$F")" = "$sum1" ] || fail "run 2 rewrote the monolith's index: it built trees the cache held"
[ "$i2" -ge 50 ] || fail "run 2: only $i2 % of samples with inlined frames"

# damage the monolith's index: bytes in its trees
size=$(stat -c %s "$F" 2>/dev/null || wc -c <"$F")
"$PYTHON3" - "$F" "$size" <<'PY' || fail "could not damage $F"
import sys
path, size = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    for at in range(size // 3, size, max(1, size // 16)):
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0x5A]))
PY
record 3
r3=$(counter 3 inline_rejected); i3=$(inlined 3); b3=$(counter 3 inline_builds)
echo "run 3 (damaged cache): rejected $r3, builds $b3, inlined $i3 %"
[ "$r3" -ge 1 ] || fail "run 3 did not notice the damaged cache file"
[ "$b3" -ge 1 ] || fail "run 3 built nothing again"
[ "$i3" -ge 50 ] || fail "run 3: only $i3 % of samples with inlined frames"

record 4
r4=$(counter 4 inline_rejected); b4=$(counter 4 inline_builds); l4=$(counter 4 inline_loads)
echo "run 4: rejected $r4, builds $b4, loads $l4"
[ "$r4" -eq 0 ] || fail "run 4 still found damage: run 3 did not replace the file"
[ "$l4" -ge 6 ] || fail "run 4 loaded $l4 trees"
exit 0
