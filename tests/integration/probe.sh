#!/bin/sh
# smolder probe: exits 0 and reports the sampling mode it would use.
. "$TESTS_SRCDIR/integration/lib.sh"

run_smolder 30 probe
cat "$TMP/smolder.out"
expect_ok
grep -q 'mode:' "$TMP/smolder.out" || fail "probe output has no 'mode:' line"
echo "probe: $(grep 'mode:' "$TMP/smolder.out" | head -n 1)"
grep -q '^budgets' "$TMP/smolder.out" || fail "probe output has no budgets"
grep -q 'runtime reader time: *[0-9]* ms a second a user' "$TMP/smolder.out" ||
	fail "probe does not say what a user's runtime readers may spend"
