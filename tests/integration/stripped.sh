#!/bin/sh
# A stripped copy of chain (.symtab gone, .eh_frame kept) is still unwound to
# its entry; its functions are named chain+0xOFFSET.
. "$TESTS_SRCDIR/integration/lib.sh"
need_workload chain
need_perf process
command -v "${STRIP:-strip}" >/dev/null 2>&1 || skip "strip not found"

mkdir "$TMP/bin"
"${STRIP:-strip}" --strip-all -o "$TMP/bin/chain" "$WORKLOADS/chain" || fail "strip failed"
if command -v readelf >/dev/null 2>&1; then
	LC_ALL=C readelf -S "$TMP/bin/chain" | grep -q "\.symtab" && fail "strip left a symbol table"
	LC_ALL=C readelf -S "$TMP/bin/chain" | grep -q "\.eh_frame" || skip "stripped binary has no .eh_frame"
fi
nm "$WORKLOADS/chain" >"$TMP/chain.nm" 2>/dev/null || : >"$TMP/chain.nm"

run_smolder 60 record -F 999 -o "$TMP/out.json" -- "$TMP/bin/chain" 3
keep_artifact "$TMP/out.json" stripped.out.json
expect_ok
expect_dump "$TMP/out.json"
$CHECK stripped "$TMP/out.json" --exe chain --min 90 --symbols "$TMP/chain.nm" \
	|| fail "stripped binary not unwound/named as expected"
