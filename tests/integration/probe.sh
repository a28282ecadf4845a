#!/bin/sh
# smolder probe: exits 0 and reports the sampling mode it would use.
. "$TESTS_SRCDIR/integration/lib.sh"

run_smolder 30 probe
cat "$TMP/smolder.out"
expect_ok
grep -q 'mode:' "$TMP/smolder.out" || fail "probe output has no 'mode:' line"
echo "probe: $(grep 'mode:' "$TMP/smolder.out" | head -n 1)"
