#!/bin/sh
# The RPM: make dist, then rpmbuild -bb with the spec the tarball carries
# (--nodeps: the BuildRequires are RHEL's package names); rpm -qlp lists the
# program, unit, init script, configuration (%config(noreplace)), man page
# and the spool's parent directory (mode 0700). Skipped without rpmbuild
# (Debian: apt-get install rpm).
. "$TESTS_SRCDIR/packaging/lib.sh"

command -v rpmbuild >/dev/null 2>&1 || skip "rpmbuild not found (Debian: apt-get install rpm)"
command -v rpm >/dev/null 2>&1 || skip "rpm not found"

load_dirs
V=$PACKAGE_VERSION
TARBALL=$BUILDDIR/smolder-$V.tar.gz

# Keep a tarball someone made before; ours is moved away (distcleancheck).
restore_tarball() {
	[ -f "$TMP/saved.tar.gz" ] && mv "$TMP/saved.tar.gz" "$TARBALL"
}
if [ -f "$TARBALL" ]; then
	mv "$TARBALL" "$TMP/saved.tar.gz"
	CLEANUP_HOOKS=restore_tarball
fi

TOP=$TMP/rpmbuild
mkdir -p "$TOP/SOURCES" "$TOP/SPECS" "$TOP/BUILD" "$TOP/RPMS" "$TOP/SRPMS" "$TOP/tmp"
echo "+ make dist-gzip"
bmake dist-gzip >"$TMP/dist.log" 2>&1 || { tail -n 30 "$TMP/dist.log"; fail "make dist-gzip failed"; }
[ -f "$TARBALL" ] || fail "make dist-gzip made no $TARBALL"
mv "$TARBALL" "$TOP/SOURCES/"
tar -xzf "$TOP/SOURCES/smolder-$V.tar.gz" -O "smolder-$V/packaging/smolder.spec" >"$TOP/SPECS/smolder.spec" ||
	fail "the tarball carries no smolder-$V/packaging/smolder.spec"
grep -q "^Version: *$V\$" "$TOP/SPECS/smolder.spec" || fail "the spec's Version is not $V"
ok "the tarball carries packaging/smolder.spec, Version $V"

echo "+ rpmbuild -bb --nodeps smolder.spec (log: rpmbuild.log)"
rpmbuild -bb --nodeps \
	--define "_topdir $TOP" \
	--define "_tmppath $TOP/tmp" \
	--define "debug_package %{nil}" \
	"$TOP/SPECS/smolder.spec" >"$TMP/rpmbuild.log" 2>&1 || {
	tail -n 60 "$TMP/rpmbuild.log"
	fail "rpmbuild -bb failed"
}
RPM=$(ls "$TOP"/RPMS/*/smolder-"$V"-1*.rpm 2>/dev/null | head -n 1)
[ -n "$RPM" ] || { tail -n 20 "$TMP/rpmbuild.log"; fail "rpmbuild made no smolder-$V-1 package"; }
ok "built $(basename "$RPM")"

rpm -qlp "$RPM" >"$TMP/files" 2>/dev/null || fail "rpm -qlp failed"
echo "rpm -qlp:"
sed 's/^/    /' "$TMP/files"
UNITDIR=$(rpm --eval '%{?_unitdir}')
[ -n "$UNITDIR" ] || UNITDIR=/usr/lib/systemd/system
INITDDIR=$(rpm --eval '%{?_initddir}')
[ -n "$INITDDIR" ] || INITDDIR=/etc/rc.d/init.d
for f in /usr/bin/smolder "$UNITDIR/smolder.service" "$INITDDIR/smolder" \
	/etc/smolder/smolder.conf /var/lib/smolder; do
	grep -qx "$f" "$TMP/files" || fail "the RPM lacks $f"
	ok "lists $f"
done
grep -q '^/usr/share/man/man8/smolder\.8' "$TMP/files" || fail "the RPM lacks the man page"
ok "lists /usr/share/man/man8/smolder.8*"

# %config(noreplace) and the mode of the state directory
rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILEMODES:perms} %{FILENAMES}\n]' "$RPM" >"$TMP/attrs" 2>/dev/null ||
	fail "rpm -qp --qf failed"
grep -q '^c[a-z]*n[a-z]* .* /etc/smolder/smolder.conf$' "$TMP/attrs" ||
	{ grep smolder.conf "$TMP/attrs"; fail "smolder.conf is not %config(noreplace)"; }
ok "/etc/smolder/smolder.conf is %config(noreplace)"
grep -q ' drwx------ /var/lib/smolder$' "$TMP/attrs" ||
	{ grep /var/lib/smolder "$TMP/attrs"; fail "/var/lib/smolder is not drwx------"; }
ok "/var/lib/smolder is drwx------"
grep -q ' -rwxr-xr-x .*/smolder$' "$TMP/attrs" || fail "the init script or program is not mode 0755"

rpm -qp --scripts "$RPM" >"$TMP/scripts" 2>/dev/null
grep -q 'systemctl' "$TMP/scripts" && grep -q 'chkconfig' "$TMP/scripts" ||
	{ cat "$TMP/scripts"; fail "the scriptlets do not handle both systemd and chkconfig"; }
ok "scriptlets for systemd and SysV"
exit 0
