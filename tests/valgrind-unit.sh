#!/bin/sh
# Runs every Criterion unit test binary of a build under valgrind memcheck
# (children traced: Criterion runs each test in a forked process; not the
# sleep(1) that tests exec to change a child's image, nor the shells that
# system() starts, whose tools -- python3 checking an SVG, cp, rm -- are not
# ours and took minutes under memcheck, nor the go tool that builds a Go
# program for test_gopclntab_lines, which does not run under memcheck), two
# at a time. Fails on any memcheck error or definite leak. Usage:
# valgrind-unit.sh BUILDDIR
set -u
build=${1:?usage: valgrind-unit.sh BUILDDIR}
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not installed"; exit 1; }
# randomized tests run a tenth of their rounds under memcheck (tests/unit/rounds.h)
export SMOLDER_TEST_ROUNDS_DIVISOR=10
logs=$(mktemp -d "${TMPDIR:-/tmp}/smolder-vg.XXXXXX")
for t in "$build"/tests/unit/test_*; do
	# the binaries, not their .o/.log/.trs files
	case $(basename "$t") in *.*) continue ;; esac
	# Their time under memcheck is libdw's walking whole DWARF trees (libc's,
	# a C++ program's): minutes of CI for little of our code, which the
	# plain and ASan stages run in full.
	case $(basename "$t") in test_inlines | test_inlineindex) continue ;; esac
	[ -f "$t" ] && [ -x "$t" ] && echo "$t"
done >"$logs/list"
[ -s "$logs/list" ] || { echo "no unit test binaries under $build/tests/unit"; exit 1; }
# shellcheck disable=SC2016
xargs -P 2 -I{} sh -c '
	t={}; name=$(basename "$t"); log='"$logs"'/$name.log
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--trace-children=yes --trace-children-skip="*/sleep,*/sh,*/bash,*/dash,*/go" "$t" >"$log" 2>&1
	rc=$?
	echo "valgrind $name: exit $rc, $(tail -n 1 "$log")"
	[ $rc -eq 0 ] || { cat "$log"; exit 255; }
' <"$logs/list"
rc=$?
rm -rf "$logs"
[ $rc -eq 0 ] && echo "valgrind: every unit test clean"
exit $rc
