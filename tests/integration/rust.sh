#!/bin/sh
# A Rust binary built with rustc's defaults (-O, no frame pointers, the
# toolchain's linker: rust-lld since 1.90, cc before) unwinds from _start to
# its leaf: main -> top_a -> mid_b -> leaf_c, in both manglings (legacy, the
# default, and v0), and its frames are demangled: >= 95% of them, paths
# like rust_chain::top_a, no crate hashes or disambiguators by default.
# v0 needs the libiberty demangler: without it (smolder probe says so) the
# v0 build only checks the unwinding.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v rustc >/dev/null 2>&1 || skip "rustc not installed (Debian: rustc)"

v0_names=1
"$SMOLDER" probe 2>/dev/null | grep -q '^demangler:.*v0' || v0_names=0

mkdir -p "$TMP/rs"
for mangling in legacy v0; do
	# legacy is the default (naming it needs -Z unstable-options on stable)
	flags=
	[ "$mangling" = v0 ] && flags="-C symbol-mangling-version=v0"
	rustc -O $flags -o "$TMP/rs/rust_chain" \
		"$TESTS_SRCDIR/workloads/rust_chain.rs" 2>"$TMP/rustc.err" ||
		fail "rustc ($mangling) failed: $(tail -n 3 "$TMP/rustc.err")"
	echo "  $(rustc --version), $mangling mangling; linker: $(readelf -p .comment "$TMP/rs/rust_chain" 2>/dev/null | grep -o 'Linker: [A-Za-z]* [0-9.]*' | head -n 1)"
	names=1
	[ "$mangling" = v0 ] && names=$v0_names
	run_smolder 60 record -F 999 -o "$TMP/rs/out.json" -- "$TMP/rs/rust_chain" 2
	expect_ok
	keep_artifact "$TMP/rs/out.json" "rust-$mangling.out.json"
	"$PYTHON3" - "$TMP/rs/out.json" "$mangling" "$names" <<'PY' || fail "$mangling mangling: the Rust chain is not unwound from _start often enough, or not demangled"
import json, re, sys
d = json.load(open(sys.argv[1]))
mangling, check_names = sys.argv[2], sys.argv[3] == "1"
total = hit = 0
frames = raw = 0
hashed = set()
for p in d["profiles"]:
    if not p["labels"].get("exe", "").endswith("/rust_chain"):
        continue
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        total += s["count"]
        want = ["rust_chain::top_a", "rust_chain::mid_b", "rust_chain::leaf_c"]
        if not check_names:
            want = ["top_a", "mid_b", "leaf_c"]
        i = 0
        for f in fr:
            if i < len(want) and want[i] in f:
                i += 1
            frames += s["count"]
            if re.match(r"^_(R|ZN)[0-9A-Za-z_$.]+$", f):
                raw += s["count"]
            if re.search(r"::h[0-9a-f]{16}|\[[0-9a-f]{16}\]", f):
                hashed.add(f)
        if fr[0] == "_start" and i == len(want):
            hit += s["count"]
share = 100.0 * hit / total if total else 0.0
dem = 100.0 * (frames - raw) / frames if frames else 0.0
print("rust (%s): %.1f%% of %d samples from _start through top_a;mid_b;leaf_c (threshold 90%%); "
      "%.1f%% of frames demangled (threshold 95%%)" % (mangling, share, total, dem))
print("  unwind: %s" % json.dumps(d["stats"]["unwind"], sort_keys=True))
ok = share >= 90
if check_names:
    ok = ok and dem >= 95 and not hashed
    for f in sorted(hashed)[:3]:
        print("  a hash or disambiguator left in: %s" % f)
sys.exit(0 if ok else 1)
PY
done
[ "$v0_names" -eq 1 ] || echo "note: this build's demangler leaves Rust v0 names raw (no libiberty)"
