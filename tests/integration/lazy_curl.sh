#!/bin/sh
# libcurl is loaded only when a sink sends (export/curl_loader.c): `smolder
# --version`, `probe`, `report`, `record` and a daemon with export = none
# never map it, neither at exec (as a dependency of smolder or of any
# library) nor later (dlopen), while `upload` to a test collector does, which
# also shows that the check below sees libcurl when it is there. Watched with the dynamic loader's own trace
# (LD_DEBUG=files: every object it loads, at exec or by dlopen, with the
# process id), one trace file per process. Skips where the loader does not
# trace (not glibc); `record` and the daemon are checked only where
# perf_event_open is allowed.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"

# traced NAME SECONDS ARGS...: smolder ARGS with the trace in $TMP/ld.NAME.PID
# (timeout(1) and what record runs are traced too, into their own files)
traced() {
	_n=$1
	shift
	LD_DEBUG=files
	LD_DEBUG_OUTPUT="$TMP/ld.$_n"
	export LD_DEBUG LD_DEBUG_OUTPUT
	run_smolder "$@"
	unset LD_DEBUG LD_DEBUG_OUTPUT
}

# curl_lines NAME: the trace lines of run NAME that load libcurl (any variant)
curl_lines() {
	cat "$TMP"/ld."$1".* 2>/dev/null | grep 'file=[^ ]*libcurl' || :
}

# no_curl NAME: run NAME was traced and never loaded libcurl
no_curl() {
	cat "$TMP"/ld."$1".* 2>/dev/null | grep -q 'file=[^ ]*libjansson' ||
		fail "no loader trace of '$1' (LD_DEBUG_OUTPUT not honoured?)"
	_l=$(curl_lines "$1")
	[ -z "$_l" ] || fail "'$1' loaded libcurl:
$_l"
	echo "$1: libcurl never loaded"
}

traced version 30 --version
expect_ok
ls "$TMP"/ld.version.* >/dev/null 2>&1 && grep -q 'file=' "$TMP"/ld.version.* ||
	skip "the dynamic loader wrote no LD_DEBUG=files trace (not glibc's ld.so?)"
grep -q 'file=[^ ]*libjansson' "$TMP"/ld.version.* ||
	fail "the trace of --version does not show libjansson, a dependency of smolder: the trace is not what this test expects"
no_curl version

traced probe 30 probe
expect_ok
no_curl probe

traced report 30 report "$TESTS_SRCDIR/fixtures/report/a.json" --format collapsed
expect_ok
no_curl report

rc=0
$CHECK perf-allowed process || rc=$?
if [ "$rc" -eq 0 ]; then
	traced record 60 record -F 99 -d 1 -q -o "$TMP/rec.json" -- sleep 3
	expect_ok
	expect_dump "$TMP/rec.json"
	no_curl record
elif [ "$rc" -eq 77 ]; then
	echo "record: not checked, perf_event_open is not permitted here"
else
	fail "perf-allowed probe failed (status $rc)"
fi

# A daemon that only spools (export = none) never loads it either.
rc=0
$CHECK perf-allowed system || rc=$?
if [ "$rc" -eq 0 ]; then
	base_conf "$TMP/spool.conf" "interval = 1s" "export = none"
	LD_DEBUG=files
	LD_DEBUG_OUTPUT="$TMP/ld.run"
	export LD_DEBUG LD_DEBUG_OUTPUT
	start_daemon "$TMP/spool.conf" 30
	unset LD_DEBUG LD_DEBUG_OUTPUT
	i=0
	while [ -z "$(spool_files)" ] && [ "$i" -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$(spool_files)" ] || fail "the spool-only daemon wrote no dump in 10 s"
	stop_daemon TERM 5
	[ "$DAEMON_RC" -eq 0 ] || fail "smolder run exited with status $DAEMON_RC, expected 0"
	no_curl run
elif [ "$rc" -eq 77 ]; then
	echo "run: not checked, system-wide perf_event_open is not permitted here"
else
	fail "perf-allowed probe failed (status $rc)"
fi

# A send loads it, by dlopen and not as a dependency, and only then.
start_receiver ok
conf="$TMP/up.conf"
base_conf "$conf" "export = json" "url = $RCV_URL/v1/profiles" "timeout = 5s"
mkdir "$TMP/up"
cp "$TESTS_SRCDIR/fixtures/dumps/valid.json.gz" "$TMP/up/"
traced upload 60 upload -c "$conf" "$TMP/up"
expect_ok
[ "$(rcv_count)" -eq 1 ] || fail "the receiver got $(rcv_count) requests, expected 1"
l=$(curl_lines upload)
[ -n "$l" ] || fail "upload sent a dump without the trace showing libcurl: the check cannot see it"
echo "$l" | grep -q 'dynamically loaded by' ||
	fail "upload loaded libcurl, but not by dlopen:
$l"
echo "upload: libcurl loaded by dlopen for the send"
exit 0
