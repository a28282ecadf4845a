#!/bin/sh
# A thread-per-request Python service under load from another process,
# recorded with -p: each request runs on a thread of its own that lives
# for that request alone (do_GET -> handler -> helper, a few milliseconds
# of Python). A stack read late finds the thread gone; one read at the
# sample is the request's. >= 90 % of the samples of the request threads
# (rooted at clone, not the main thread's _start) carry do_GET -> handler
# -> helper in that order.
# Not in TESTS: it measures issue 27's target, which is not met yet: 85-87 %
# of the request threads' samples (87-89 % of those that ran Python) on
# this 2-CPU host. Of the rest, about 6 % are [unproven]_[py] (the read,
# 75-100 us after the sample on average and over 167 us for a tenth of
# them, found the thread in other calls), 3 % ran no Python (the thread
# starting or ending, or gone when read) and 4 % were proven in other
# request code (the socket write, header parsing). Run it by hand:
# make check TESTS=tests/integration/python_service.sh
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
SVC="$TESTS_SRCDIR/workloads/py_service.py"

# service NAME PYTHON
service() {
	rm -f "$TMP/port"
	"$2" "$SVC" serve "$TMP/port" 10 &
	srv=$!
	BG_PIDS="$BG_PIDS $srv"
	i=0
	while [ ! -s "$TMP/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$TMP/port" ] || fail "$1: the service did not start"
	"$2" "$SVC" load "$(cat "$TMP/port")" 8 &
	BG_PIDS="$BG_PIDS $!"
	sleep 1
	run_smolder 60 record -F 999 -d 4 -p "$srv" -o "$TMP/$1.json"
	expect_ok
	keep_artifact "$TMP/$1.json" "python_service_$1.out.json"
	"$PYTHON3" - "$TMP/$1.json" "$1" <<'PY' || fail "$1: request threads' samples do not carry their handlers"
import json, sys
d = json.load(open(sys.argv[1]))
req = chain = 0
for p in d["profiles"]:
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        if "_start" in fr or not ("start_thread" in fr or "__clone3" in fr or "clone" in fr):
            continue
        req += s["count"]
        py = [f.split(" (")[0] for f in fr if f.endswith("_[py]")]
        want = ["ShopHandler.do_GET", "handler", "helper"]
        names = [x.split(".")[-1] if x.startswith("ShopHandler") else x for x in py]
        idx = []
        for w in want:
            k = w.split(".")[-1]
            idx.append(names.index(k) if k in names else -1)
        if all(i >= 0 for i in idx) and idx == sorted(idx):
            chain += s["count"]
c = d["stats"]["runtimes"]["cpython"]
print("%s: %d samples of request threads, %.1f%% with do_GET -> handler -> helper; "
      "no_thread %d, unproven %d, lag max %.1f ms" % (sys.argv[2], req, 100.0 * chain / max(req, 1),
      c["no_thread"], c["unproven"], c["lag_max_ns"] / 1e6))
sys.exit(0 if req >= 300 and chain >= 0.9 * req else 1)
PY
}

[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 not installed"
service system /usr/bin/python3
for d in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/2.7.*; do
	[ -x "$d/bin/python2.7" ] && { service 2.7 "$d/bin/python2.7"; break; }
done
exit 0
