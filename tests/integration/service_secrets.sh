#!/bin/sh
# Credentials never reach the daemon's output: a url with userinfo and an
# API key in its query string is logged with both cut out, at start, on
# reload and in errors. tls_verify = no is said loudly: a warning at start
# and at every reload, and in the stats line.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

start_receiver ok
url="http://collector:TOPSECRET1@127.0.0.1:$RCV_PORT/v1/profiles?api_key=TOPSECRET2"
base_conf "$TMP/smolder.conf" "interval = 1s" "stats_interval = 1s" "export = json" \
	"url = $url" "tls_verify = no" "timeout = 2s"
chmod 644 "$TMP/smolder.conf"
start_load 20
start_daemon "$TMP/smolder.conf" 60
wait_rcv 1 8 'r.get("status") == 200' || fail "no window delivered in 8 s"
kill -HUP "$DAEMON_PID"
sleep 2.5
stop_daemon TERM 10
cat "$TMP/daemon.out" "$TMP/daemon.err" >"$TMP/all.txt"
if grep -n TOPSECRET "$TMP/all.txt"; then
	fail "a credential of the url is in the daemon's output"
fi
grep -q "http://\*\*\*@127.0.0.1:$RCV_PORT/v1/profiles?\*\*\*" "$TMP/all.txt" ||
	fail "the url is not logged in its redacted form"
n=$(grep -c "tls_verify = no: the collector's certificate is not checked" "$TMP/all.txt")
[ "$n" -ge 2 ] || fail "tls_verify = no warned $n times (want: at start and at the reload)"
grep -q "stats:.*TLS NOT VERIFIED" "$TMP/all.txt" || fail "the stats line does not say TLS is not verified"
grep -q "$TMP/smolder.conf holds credentials in its url and other users can read it: chmod 640" \
	"$TMP/all.txt" || fail "no warning that others can read the credentials in the config file"

# a refused url and an unreachable collector: the errors do not echo them
base_conf "$TMP/bad.conf" "export = json" "url = ftp://u:TOPSECRET3@host/x?k=TOPSECRET4"
run_smolder 20 run -c "$TMP/bad.conf"
[ "$SM_RC" -eq 2 ] || fail "a ftp:// url was accepted"
cp "$TMP/smolder.err" "$TMP/refused.err"
run_smolder 30 record -a -d 1 -q -o "$TMP/one.json"
cp "$TMP/smolder.err" "$TMP/record.err"
run_smolder 60 upload --url "http://u:TOPSECRET5@127.0.0.1:1/x?k=TOPSECRET6" "$TMP/one.json"
[ "$SM_RC" -ne 0 ] || fail "an upload to a closed port succeeded"
if grep -n TOPSECRET "$TMP/refused.err" "$TMP/record.err" "$TMP/smolder.err" "$TMP/smolder.out"; then
	fail "a credential of a refused url is in the output"
fi
echo "no credential in any output; tls_verify = no warned $n times"
