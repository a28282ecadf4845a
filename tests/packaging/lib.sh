# Shared helpers of the packaging tests (tests/packaging/*.sh), sourced.
# Environment from make check (AM_TESTS_ENVIRONMENT): SMOLDER (the built
# program, in the top build directory), TESTS_SRCDIR, PYTHON3.
# Exit codes follow automake: 0 pass, 1 fail, 77 skip.

set -u

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok: $*"; }

: "${SMOLDER:?SMOLDER is not set (run through make check)}"
: "${TESTS_SRCDIR:?TESTS_SRCDIR is not set (run through make check)}"
[ -x "$SMOLDER" ] || fail "smolder binary not found at $SMOLDER"

BUILDDIR=$(cd "$(dirname "$SMOLDER")" && pwd) || fail "no build directory"
SRCDIR=$(cd "$TESTS_SRCDIR/.." && pwd) || fail "no source directory"
MAKE=${MAKE:-make}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/smolder-pkgtest.XXXXXX") || fail "mktemp -d failed"
CLEANUP_HOOKS=
cleanup() {
	for h in $CLEANUP_HOOKS; do "$h"; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# bmake ARGS...: make in the top build directory, without the outer make's
# flags and jobserver (this runs inside make check).
bmake() {
	(
		unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
		$MAKE -C "$BUILDDIR" "$@"
	)
}

# Sets bindir, mandir, sysconfdir, localstatedir, docdir,
# systemdsystemunitdir, initddir and PACKAGE_VERSION as configured.
load_dirs() {
	_dirs=$(bmake -s packaging-print-dirs) || fail "make packaging-print-dirs failed"
	eval "$_dirs"
	echo "configured: bindir=$bindir sysconfdir=$sysconfdir localstatedir=$localstatedir"
	echo "            unit dir=$systemdsystemunitdir init.d=$initddir"
}

# install_to DIR: make install DESTDIR=DIR, output in $TMP/install.log.
install_to() {
	bmake install DESTDIR="$1" >"$TMP/install.log" 2>&1 || {
		tail -n 30 "$TMP/install.log"
		fail "make install DESTDIR=$1 failed"
	}
}

# mode_of FILE: the permission bits in octal (e.g. 755).
mode_of() {
	stat -c %a "$1" 2>/dev/null
}
