#!/bin/sh
# A Rust binary built with rustc's defaults (-O, no frame pointers, the
# toolchain's linker: rust-lld since 1.90, cc before) unwinds from _start to
# its leaf: main -> top_a -> mid_b -> leaf_c, whatever the mangling.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v rustc >/dev/null 2>&1 || skip "rustc not installed (Debian: rustc)"

mkdir -p "$TMP/rs"
rustc -O -o "$TMP/rs/rust_chain" "$TESTS_SRCDIR/workloads/rust_chain.rs" 2>"$TMP/rustc.err" ||
	fail "rustc failed: $(tail -n 3 "$TMP/rustc.err")"
echo "  $(rustc --version); linker: $(readelf -p .comment "$TMP/rs/rust_chain" 2>/dev/null | grep -o 'Linker: [A-Za-z]* [0-9.]*' | head -n 1)"
run_smolder 60 record -F 999 -o "$TMP/rs/out.json" -- "$TMP/rs/rust_chain" 2
expect_ok
keep_artifact "$TMP/rs/out.json" rust.out.json
"$PYTHON3" - "$TMP/rs/out.json" <<'PY' || fail "the Rust chain is not unwound from _start often enough"
import json, sys
d = json.load(open(sys.argv[1]))
total = hit = 0
for p in d["profiles"]:
    if not p["labels"].get("exe", "").endswith("/rust_chain"):
        continue
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        total += s["count"]
        want = ["top_a", "mid_b", "leaf_c"]
        i = 0
        for f in fr:
            if i < len(want) and want[i] in f:
                i += 1
        if fr[0] == "_start" and i == len(want):
            hit += s["count"]
share = 100.0 * hit / total if total else 0.0
print("rust: %.1f%% of %d samples from _start through top_a;mid_b;leaf_c (threshold 90%%)"
      % (share, total))
print("  unwind: %s" % json.dumps(d["stats"]["unwind"], sort_keys=True))
sys.exit(0 if share >= 90 else 1)
PY
