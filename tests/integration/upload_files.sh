#!/bin/sh
# smolder upload (JSON sink) without sampling: a directory of dumps is sent
# oldest first, each exactly once with the sink's headers and its content
# intact, every file removed, exit 0. Broken inputs (truncated gzip, gzip of
# text, plain text, another schema, empty file), alone or next to good dumps
# in a directory: an error line naming each, the files untouched (same bytes,
# same place), nothing sent for them, non-zero exit. A 400 moves the dump to
# DIR/rejected/ with a .reason; a 500 keeps it and exits non-zero.
. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/integration/service_lib.sh"

start_receiver ok
gen() { # gen DIR N SEED: N valid synthetic dumps, consecutive 2 s windows ending 10 s ago
	rcv_py "$@" <<'EOF' || fail "cannot generate dumps"
import os, sys, time, receiver as rcv
d, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(d, exist_ok=True)
base = (time.time_ns() // 10**9 - 10 - 2 * n) * 10**9
for i in range(n):
    s = base + 2 * i * 10**9
    dump = rcv.make_dump(s, s + 2 * 10**9, 50 + 10 * i, seed=seed + i)
    rcv.write_gz(os.path.join(d, rcv.spool_name(dump)), dump)
EOF
}
conf="$TMP/up.conf"
base_conf "$conf" "export = json" "url = $RCV_URL/v1/profiles" "timeout = 5s" \
	"retry_backoff_min = 200ms" "retry_backoff_max = 1s"

# 1. A directory of good dumps.
gen "$TMP/d1" 4 10
cp -rp "$TMP/d1" "$TMP/d1.copy"
run_smolder 60 upload -c "$conf" "$TMP/d1"
expect_ok
[ -z "$(ls -A "$TMP/d1" | grep -v '^rejected$')" ] || fail "delivered dumps not removed: $(ls -A "$TMP/d1")"
rcv_py "$TMP/d1.copy" <<'EOF' || fail "the POSTed dumps are wrong (above)"
import os, sys, rcv_env, receiver as rcv
d = sys.argv[1]
names = sorted(os.listdir(d))
reqs = rcv.load_log(rcv_env.LOG)[rcv_env.SKIP:]
errs = []
got = [r.get("window_id") for r in reqs]
want = [rcv.load_gz_dump(os.path.join(d, f))["window"]["id"] for f in names]
if got != want:
    errs.append("POSTed windows %s, want each once, oldest first: %s" % (got, want))
for r, f in zip(reqs, names):
    h = r["headers"]
    if r.get("dump") != rcv.load_gz_dump(os.path.join(d, f)):
        errs.append("%s: the POSTed body is not the file's dump (%s)" % (f, r.get("decode_error")))
    if h.get("content-encoding") != "gzip" or not h.get("content-type", "").startswith("application/json") \
            or not h.get("user-agent", "").startswith("smolder/"):
        errs.append("%s: headers %s" % (f, {k: h.get(k) for k in ("content-type", "content-encoding", "user-agent")}))
for e in errs:
    print("ERROR: " + e)
sys.exit(1 if errs else 0)
EOF
echo "directory of 4 dumps: delivered in order and removed"

# 2. Broken files given by name, next to one good dump.
RCV_SKIP=$(wc -l <"$TMP/rcv.log")
mkdir "$TMP/bad"
gen "$TMP/good" 2 20
good=$(ls "$TMP/good" | head -n 1)
$PYTHON3 - "$TMP/good/$good" "$TMP/bad" <<'EOF'
import gzip, json, os, sys
src, d = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
open(os.path.join(d, "truncated.json.gz"), "wb").write(data[:len(data) // 2])
open(os.path.join(d, "notjson.json.gz"), "wb").write(gzip.compress(b"this is not JSON {\n"))
open(os.path.join(d, "plain.txt"), "wb").write(b"not a dump, not gzip\n")
other = {"schema": "other.profile/v9", "profiles": []}
open(os.path.join(d, "otherschema.json.gz"), "wb").write(gzip.compress(json.dumps(other).encode()))
open(os.path.join(d, "empty.json.gz"), "wb").close()
EOF
(cd "$TMP/bad" && sha256sum * >"$TMP/bad.sums")
BAD="truncated.json.gz notjson.json.gz plain.txt otherschema.json.gz empty.json.gz"
set --
for b in $BAD; do set -- "$@" "$TMP/bad/$b"; done
run_smolder 60 upload -c "$conf" "$@" "$TMP/good/$good"
[ "$SM_RC" -ne 0 ] || fail "smolder upload exited 0 although 5 of its files are not dumps"
(cd "$TMP/bad" && sha256sum -c --quiet "$TMP/bad.sums") || fail "a broken input file was modified or removed"
[ ! -e "$TMP/bad/rejected" ] || fail "broken inputs were moved into rejected/: $(ls "$TMP/bad/rejected")"
for b in $BAD; do
	grep -q "$b" "$TMP/smolder.err" || fail "no error line names $b"
	grep "$b" "$TMP/smolder.err" | head -n 1 | cut -c1-200
done
[ ! -e "$TMP/good/$good" ] || fail "the good dump next to the broken ones was not delivered and removed"
n=$(rcv_count)
[ "$n" -eq 1 ] || fail "$n requests for 1 good dump and 5 broken files"

# 3. A directory holding good dumps and a broken dump-named file.
RCV_SKIP=$(wc -l <"$TMP/rcv.log")
gen "$TMP/d3" 3 30
oldest=$(ls "$TMP/d3" | head -n 1)
bad3="00000000000000000001-broken.json.gz"
head -c 100 "$TMP/d3/$oldest" >"$TMP/d3/$bad3"
sum3=$(sha256sum <"$TMP/d3/$bad3")
run_smolder 60 upload -c "$conf" "$TMP/d3"
[ "$SM_RC" -ne 0 ] || fail "smolder upload exited 0 on a directory holding a truncated dump"
grep -q "$bad3" "$TMP/smolder.err" || fail "no error line names $bad3"
[ -f "$TMP/d3/$bad3" ] && [ "$(sha256sum <"$TMP/d3/$bad3")" = "$sum3" ] \
	|| fail "the truncated dump in the directory was moved or changed: $(ls -R "$TMP/d3")"
left=$(ls "$TMP/d3" | grep -v "^$bad3\$" | grep -v '^rejected$' | tr '\n' ' ')
[ -z "$left" ] || fail "good dumps beside the broken one were not all delivered: $left"
n=$(rcv_count 'r.get("status") == 200')
[ "$n" -eq 3 ] || fail "$n dumps delivered from a directory of 3 good ones"

# 4. 400: moved to DIR/rejected/ with the server's answer.
RCV_SKIP=$(wc -l <"$TMP/rcv.log")
rcv_mode status 400 bad profile: test rejection
gen "$TMP/d4" 1 40
f4=$(ls "$TMP/d4")
run_smolder 60 upload -c "$conf" "$TMP/d4"
[ "$SM_RC" -ne 0 ] || fail "smolder upload exited 0 although the collector rejected the dump"
grep -q 'bad profile: test rejection' "$TMP/smolder.err" || fail "the server's answer is not logged"
[ -f "$TMP/d4/rejected/$f4" ] || fail "rejected dump not in DIR/rejected/: $(ls -R "$TMP/d4")"
grep -q 'bad profile: test rejection' "$TMP/d4/rejected/$f4.reason" 2>/dev/null \
	|| fail "rejected/$f4.reason missing or without the server's answer"
[ ! -e "$TMP/d4/$f4" ] || fail "the rejected dump is still in DIR as well"

# 5. 500 on every try: not delivered, kept, non-zero exit, in bounded time.
rcv_mode status 500
gen "$TMP/d5" 1 50
f5=$(ls "$TMP/d5")
run_smolder 60 upload -c "$conf" "$TMP/d5"
[ "$SM_RC" -ne 0 ] || fail "smolder upload exited 0 although the collector answered 500"
[ -f "$TMP/d5/$f5" ] || fail "a dump answered 500 was removed or moved: $(ls -R "$TMP/d5")"
echo "upload_files: OK"
