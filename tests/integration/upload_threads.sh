#!/bin/sh
# smolder run with group_by = thread and export = pyroscope: the series of a
# program whose threads name themselves carry thread=worker-a and
# thread=worker-b in their names, every request is one Pyroscope's /ingest
# accepts, and each thread's series holds its own function.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload threads
need_perf system

start_receiver pyroscope
base_conf "$TMP/threads.conf" "interval = 1s" "group_by = thread" "export = pyroscope" \
	"url = $RCV_URL" "timeout = 5s" "retry_backoff_min = 200ms" "retry_backoff_max = 1s"
"$WORKLOADS/threads" 30 >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
start_daemon "$TMP/threads.conf" 40
cond='r.get("status") == 200 and "thread=worker-a" in r["params"].get("name", "")'
wait_rcv 2 20 "$cond" || fail "no accepted request with thread=worker-a in its name"
wait_rcv 2 10 'r.get("status") == 200 and "thread=worker-b" in r["params"].get("name", "")' \
	|| fail "no accepted request with thread=worker-b in its name"
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"
rcv_py <<'EOF' || fail "Pyroscope requests per thread wrong"
import collections, rcv_env, receiver
reqs = receiver.load_log(rcv_env.LOG)
bad = [r for r in reqs if r.get("status") != 200]
assert not bad, "requests refused: %s" % [(r["params"].get("name"), r.get("answer")) for r in bad[:3]]
own = {"worker-a": ("spin_a", "spin_b"), "worker-b": ("spin_b", "spin_a")}
got = collections.defaultdict(lambda: [0, 0, 0])
for r in reqs:
    app, labels = receiver.parse_name(r["params"]["name"])
    t = labels.get("thread")
    if t not in own:
        continue
    for st, c in r["lines"]:
        fr = st.split(";")
        got[t][0] += c
        got[t][1] += c if own[t][0] in fr else 0
        got[t][2] += c if own[t][1] in fr else 0
for t, (n, hit, bad) in sorted(got.items()):
    print("series thread=%s: %d samples, %d in its function, %d in the other's" % (t, n, hit, bad))
    assert hit >= 0.95 * n, "thread=%s: its function in %d of %d" % (t, hit, n)
    assert bad == 0, "thread=%s ran the other thread's function" % t
assert set(got) == set(own), "series of %s" % sorted(got)
EOF
echo "upload_threads: OK"
