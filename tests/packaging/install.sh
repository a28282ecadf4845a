#!/bin/sh
# make install DESTDIR=... puts the program, man page, unit, init script,
# configuration and spool directory at the configured paths; a second install
# keeps an edited configuration; uninstall removes everything but an edited
# configuration (and removes the configuration when it is the default).
. "$TESTS_SRCDIR/packaging/lib.sh"

load_dirs
D=$TMP/dest
install_to "$D"

check_file() {
	[ -f "$D$1" ] || fail "not installed: $1"
	ok "installed $1"
}
check_file "$bindir/smolder"
[ -x "$D$bindir/smolder" ] || fail "$bindir/smolder is not executable"
check_file "$mandir/man8/smolder.8"
check_file "$systemdsystemunitdir/smolder.service"
check_file "$initddir/smolder"
[ "$(mode_of "$D$initddir/smolder")" = 755 ] ||
	fail "$initddir/smolder has mode $(mode_of "$D$initddir/smolder"), expected 755"
ok "init script mode 755"
check_file "$sysconfdir/smolder/smolder.conf"
cmp -s "$SRCDIR/packaging/smolder.conf" "$D$sysconfdir/smolder/smolder.conf" ||
	fail "installed smolder.conf differs from packaging/smolder.conf"
mode=$(stat -c %a "$D$sysconfdir/smolder/smolder.conf")
[ "$mode" = 640 ] || fail "smolder.conf installed with mode $mode, want 640 (it may hold a url with credentials)"
check_file "$docdir/compat.md"
[ -d "$D$localstatedir/lib/smolder" ] || fail "no $localstatedir/lib/smolder"
[ "$(mode_of "$D$localstatedir/lib/smolder")" = 700 ] ||
	fail "$localstatedir/lib/smolder has mode $(mode_of "$D$localstatedir/lib/smolder"), expected 700"
ok "state directory $localstatedir/lib/smolder, mode 700"
[ -d "$D$localstatedir/cache/smolder" ] || fail "no $localstatedir/cache/smolder"
[ "$(mode_of "$D$localstatedir/cache/smolder")" = 700 ] ||
	fail "$localstatedir/cache/smolder has mode $(mode_of "$D$localstatedir/cache/smolder"), expected 700"
ok "cache directory $localstatedir/cache/smolder, mode 700"

# The generated files name the installed paths.
grep -qx "ExecStart=$bindir/smolder run -c $sysconfdir/smolder/smolder.conf" \
	"$D$systemdsystemunitdir/smolder.service" || fail "unit: wrong ExecStart"
grep -q "^ReadWritePaths=-$localstatedir/lib/smolder\$" "$D$systemdsystemunitdir/smolder.service" ||
	fail "unit: no ReadWritePaths for $localstatedir/lib/smolder"
grep -q '@[a-z_A-Z]*@' "$D$systemdsystemunitdir/smolder.service" "$D$initddir/smolder" &&
	fail "unsubstituted @...@ left in the unit or the init script"
grep -q "^SMOLDER_BIN=\${SMOLDER_BIN:-$bindir/smolder}\$" "$D$initddir/smolder" ||
	fail "init script: wrong default SMOLDER_BIN"
ok "unit and init script name $bindir/smolder and $sysconfdir/smolder/smolder.conf"

# An operator's edit survives a reinstall.
echo "label.edited = yes" >>"$D$sysconfdir/smolder/smolder.conf"
install_to "$D"
grep -q '^label.edited = yes$' "$D$sysconfdir/smolder/smolder.conf" ||
	fail "make install overwrote an edited smolder.conf"
grep -q 'keeping the existing' "$TMP/install.log" || fail "make install did not say it kept smolder.conf"
ok "a second make install keeps an edited smolder.conf"

# uninstall: only the edited configuration stays.
bmake uninstall DESTDIR="$D" >"$TMP/uninstall.log" 2>&1 || { cat "$TMP/uninstall.log"; fail "make uninstall failed"; }
left=$(cd "$D" && find . -type f | sort)
[ "$left" = ".$sysconfdir/smolder/smolder.conf" ] ||
	fail "after uninstall, expected only the edited smolder.conf, found: $left"
ok "make uninstall keeps only the edited smolder.conf"

# With the default configuration, uninstall leaves no file at all.
cp "$SRCDIR/packaging/smolder.conf" "$D$sysconfdir/smolder/smolder.conf"
install_to "$D"
bmake uninstall DESTDIR="$D" >"$TMP/uninstall.log" 2>&1 || { cat "$TMP/uninstall.log"; fail "make uninstall failed"; }
left=$(cd "$D" && find . -type f | sort)
[ -z "$left" ] || fail "files left after install + uninstall: $left"
[ -d "$D$sysconfdir/smolder" ] && fail "$sysconfdir/smolder left after uninstall"
ok "install + uninstall of the defaults leaves no file"
exit 0
