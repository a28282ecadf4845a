#!/bin/sh
# The installed systemd unit: systemd-analyze verify accepts it (no message
# about it at all: verify exits 0 even on an unparsable value, so its output
# is what counts), and it has what the daemon needs: Type=notify, reload by
# SIGHUP, restart on failure, the bounded capability set, no_new_privs, a
# read-only system with the state directory writable, degrading on old systemd.
. "$TESTS_SRCDIR/packaging/lib.sh"

load_dirs
D=$TMP/dest
install_to "$D"
UNIT=$D$systemdsystemunitdir/smolder.service
[ -f "$UNIT" ] || fail "no unit installed at $systemdsystemunitdir/smolder.service"

has() {
	grep -qx "$1" "$UNIT" || fail "unit lacks the line: $1"
	ok "$1"
}
has 'Type=notify'
has "ExecStart=$bindir/smolder run -c $sysconfdir/smolder/smolder.conf"
has 'ExecReload=/bin/kill -HUP $MAINPID'
has 'Restart=on-failure'
has 'RestartPreventExitStatus=2'
has 'NoNewPrivileges=yes'
has 'ProtectHome=read-only'
has 'PrivateTmp=yes'
has 'StateDirectory=smolder'
has "ReadWritePaths=-$localstatedir/lib/smolder"
has 'CacheDirectory=smolder'
has "ReadWritePaths=-$localstatedir/cache/smolder"
has 'CapabilityBoundingSet=CAP_PERFMON CAP_SYS_ADMIN CAP_IPC_LOCK CAP_SYS_PTRACE CAP_DAC_READ_SEARCH CAP_SYSLOG CAP_CHECKPOINT_RESTORE'
[ "$(grep -c '^CapabilityBoundingSet=' "$UNIT")" -eq 1 ] ||
	fail "CapabilityBoundingSet= must be one line (systemd 219 intersects repeated lines)"
ok "one CapabilityBoundingSet= line"
# systemd 219 ignores the unknown "strict" and keeps the "full" before it.
[ "$(grep '^ProtectSystem=' "$UNIT" | tr '\n' ' ')" = 'ProtectSystem=full ProtectSystem=strict ' ] ||
	fail "expected ProtectSystem=full then ProtectSystem=strict"
ok "ProtectSystem=full, then strict"
# These would break symbolization: kallsyms hidden, CAP_SYSLOG removed,
# other users' processes hidden.
for bad in '^ProtectKernelTunables=yes' '^ProtectKernelLogs=yes' '^ProtectProc=invisible' \
	'^PrivateUsers=yes' '^User='; do
	grep -q "$bad" "$UNIT" && fail "unit has $bad"
done
ok "no ProtectKernelTunables/ProtectKernelLogs/ProtectProc/PrivateUsers/User"

command -v systemd-analyze >/dev/null 2>&1 || skip "systemd-analyze not found (the static checks above passed)"

# verify needs the ExecStart binary to exist: point it into DESTDIR.
mkdir -p "$TMP/verify"
sed "s|^ExecStart=$bindir/|ExecStart=$D$bindir/|" "$UNIT" >"$TMP/verify/smolder.service"
MANPATH="$D$mandir"
export MANPATH
MAN_OPT=
if ! command -v man >/dev/null 2>&1; then
	MAN_OPT=--man=no
	echo "(man not found: not checking Documentation=man:smolder(8))"
fi
echo "+ systemd-analyze verify $MAN_OPT smolder.service"
systemd-analyze verify $MAN_OPT "$TMP/verify/smolder.service" >"$TMP/verify.out" 2>&1
rc=$?
sed 's/^/    /' "$TMP/verify.out"
[ "$rc" -eq 0 ] || fail "systemd-analyze verify exited with $rc"
if grep -i 'smolder' "$TMP/verify.out" >/dev/null; then
	fail "systemd-analyze verify has something to say about smolder.service"
fi
ok "systemd-analyze verify ($(systemd-analyze --version | head -n 1)) accepts the unit"
exit 0
