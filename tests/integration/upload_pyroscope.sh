#!/bin/sh
# Offline mode then Pyroscope: smolder run with export = none leaves its dumps
# in the spool (dir 0700, files 0600); smolder upload with export = pyroscope
# sends them to a receiver that validates like Pyroscope's /ingest: every
# request accepted, names SERVICE.cpu{...}, from/until/sampleRate right, and
# per (service, window) the stack counts equal the dumps'. A synthetic dump
# with 40,000 distinct stacks goes out in several requests of <= 16,000
# distinct stacks each, counts intact.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"
need_workload chain
need_perf system

start_receiver pyroscope
base_conf "$TMP/offline.conf" "interval = 1s" "export = none"
start_load 20
start_daemon "$TMP/offline.conf" 30
sleep 3.5
stop_daemon TERM 5
[ "$DAEMON_RC" -eq 0 ] || fail "exit status $DAEMON_RC after SIGTERM, expected 0"
n=$(spool_files | wc -l)
echo "export = none left $n dump(s) in the spool"
[ "$n" -ge 3 ] || fail "export = none: $n dump(s) in the spool after 3.5 s with interval 1s, want >= 3"
[ "$(stat -c %a "$SPOOL")" = 700 ] || fail "spool dir mode $(stat -c %a "$SPOOL"), want 700"
for f in $(spool_files); do
	[ "$(stat -c %a "$SPOOL/$f")" = 600 ] || fail "spool file $f mode $(stat -c %a "$SPOOL/$f"), want 600"
done
[ "$(rcv_count)" -eq 0 ] || fail "export = none sent requests"
mkdir "$TMP/copies"
cp -p "$SPOOL"/*.json.gz "$TMP/copies/"

base_conf "$TMP/pyro.conf" "export = pyroscope" "url = $RCV_URL" "timeout = 5s" \
	"retry_backoff_min = 200ms" "retry_backoff_max = 1s"
run_smolder 60 upload -c "$TMP/pyro.conf"
expect_ok
left=$(spool_files | wc -l)
[ "$left" -eq 0 ] || fail "smolder upload left $left delivered dump(s) in the spool"

# pycheck DIR: compare what the receiver got with the dumps copied in DIR.
pycheck() {
	rcv_py "$1" <<'EOF'
import os, re, sys, collections, rcv_env, receiver as rcv
d_dir = sys.argv[1]
errs = []
reqs = rcv.load_log(rcv_env.LOG)[rcv_env.SKIP:]
for r in reqs:
    if r.get("status") != 200:
        errs.append("request %s?%s answered %s: %s" % (r["path"], r["query"][:200], r.get("status"), r.get("answer")))
    elif not re.search(r"\.cpu\{[^{}]*\}$", r["params"].get("name", "")):
        errs.append("name %r does not end in .cpu{...}" % r["params"].get("name"))
    elif r.get("distinct", 0) > 16000:
        errs.append("a request with %d distinct stacks" % r["distinct"])
ok = [r for r in reqs if r.get("status") == 200]
norm = lambda s: re.sub(r"[^A-Za-z0-9]", "_", s)
got = collections.defaultdict(collections.Counter)   # (from, norm service) -> stacks
for r in ok:
    svc = r["app"][:-len(".cpu")] if r["app"].endswith(".cpu") else r["app"]
    for st, c in r["lines"]:
        got[(r["from"], norm(svc))][st] += c
want = collections.defaultdict(collections.Counter)
empty = 0
dumps = sorted(os.listdir(d_dir))
for f in dumps:
    d = rcv.load_gz_dump(os.path.join(d_dir, f))
    t0 = d["window"]["start_ns"] // 10**9
    mine = [r for r in ok if r["from"] == t0]
    if not mine and d["profiles"]:
        errs.append("%s: no request with from=%d (window start %d ns)" % (f, t0, d["window"]["start_ns"]))
    for r in mine:
        u = r["until"]
        if not (d["window"]["end_ns"] // 10**9 <= u <= -(-d["window"]["end_ns"] // 10**9) or u == t0 + 1):
            errs.append("%s: until=%d for a window ending at %d ns" % (f, u, d["window"]["end_ns"]))
        if r["sample_rate"] != d["event"]["frequency_hz"]:
            errs.append("%s: sampleRate=%d, frequency_hz=%d" % (f, r["sample_rate"], d["event"]["frequency_hz"]))
        if r["headers"].get("content-encoding"):
            errs.append("Content-Encoding %r sent to /ingest" % r["headers"]["content-encoding"])
    for p in d["profiles"]:
        for s in p["stacks"]:
            if s["stack"] == "":
                empty += s["count"]
                continue
            # the sink names a series after service_name, else comm, else "unknown"
            lab = p["labels"]
            app = lab.get("service_name") or lab.get("comm") or "unknown"
            want[(t0, norm(app))][s["stack"]] += s["count"]
for k in set(got) | set(want):
    g, w = got.get(k, collections.Counter()), want.get(k, collections.Counter())
    if g != w:
        diff = [(s[:80], g[s], w[s]) for s in set(g) | set(w) if g[s] != w[s]][:5]
        errs.append("window %d service %s: received %d samples in %d stacks, the dumps have %d in %d; e.g. (stack, got, want) %s"
                    % (k[0], k[1], sum(g.values()), len(g), sum(w.values()), len(w), diff))
print("%d dumps, %d requests (%d accepted), %d (window, service) groups, %d empty-stack samples not comparable"
      % (len(dumps), len(reqs), len(ok), len(want), empty))
for e in errs[:30]:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
}
pycheck "$TMP/copies" || fail "the Pyroscope requests do not match the dumps (above)"
grep -Ei 'empty|\[unknown\]' "$TMP/smolder.err" | head -n 2

# A dump with 40,000 distinct stacks (2 services of 20,000) from 5 s ago.
RCV_SKIP=$(wc -l <"$TMP/rcv.log")
mkdir "$TMP/big" "$TMP/bigcopy"
rcv_py "$TMP/big" <<'EOF' || fail "cannot generate the synthetic dump"
import os, sys, time, receiver as rcv
s = (time.time_ns() // 10**9 - 6) * 10**9
d = rcv.make_dump(s, s + 2 * 10**9, 40000)
rcv.write_gz(os.path.join(sys.argv[1], rcv.spool_name(d)), d)
print("synthetic dump: %d stacks, %d samples" % (sum(len(p["stacks"]) for p in d["profiles"]), d["stats"]["samples"]))
EOF
cp -p "$TMP/big"/* "$TMP/bigcopy/"
run_smolder 60 upload --export pyroscope --url "$RCV_URL" "$TMP/big"
expect_ok
[ -z "$(ls -A "$TMP/big" | grep -v '^rejected$')" ] || fail "the delivered synthetic dump was not removed: $(ls -A "$TMP/big")"
nreq=$(rcv_count)
echo "the 40,000-stack dump took $nreq request(s)"
[ "$nreq" -ge 4 ] || fail "$nreq request(s) for 2 profiles of 20,000 distinct stacks: expected each split in >= 2"
pycheck "$TMP/bigcopy" || fail "the split Pyroscope requests do not add up to the dump (above)"
echo "upload_pyroscope: OK"
