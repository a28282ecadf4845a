#!/bin/sh
# A user runs the system's Python under a name of their choosing (the
# interpreter bind-mounted over a file in their own user and mount
# namespace), first; then root runs the same interpreter. One file is one
# binary for the agent, whoever mapped it first and by whatever name: root's
# Python frames are named, and none of root's frames carries the user's
# name for the file. Before, the first name decided for everyone: root's
# Python frames were gone (0 of 325 samples) and its unnamed native frames
# were "[the user's name]".
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf system
[ "$(id -u)" -eq 0 ] || skip "needs root (the attack is a user's against the root agent)"
for t in setpriv unshare; do
	command -v $t >/dev/null 2>&1 || skip "$t (util-linux) not installed"
done
PY=$(readlink -f /usr/bin/python3)
[ -x "$PY" ] || skip "no system Python at /usr/bin/python3"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
$NOBODY unshare -Urm true 2>/dev/null ||
	skip "an unprivileged user cannot create user namespaces here (kernel.unprivileged_userns_clone, user.max_user_namespaces)"

CHOSEN=cache_warmer_by_user
mkdir "$TMP/ns" && chmod 777 "$TMP/ns" && chmod 755 "$TMP"
: >"$TMP/ns/$CHOSEN" && chown 65534 "$TMP/ns/$CHOSEN"
# the user's interpreter: its own busy Python loop, under the chosen name
$NOBODY unshare -Urm sh -c "mount --bind '$PY' '$TMP/ns/$CHOSEN' &&
	exec '$TMP/ns/$CHOSEN' -c 'import time
end = time.time() + 14
def user_loop():
    while time.time() < end:
        pass
user_loop()'" &
BG_PIDS="$BG_PIDS $!"
sleep 1
# the agent sees the user's process first (it is there when it starts);
# root's interpreter starts two seconds later
timeout -k 5 30 "$SMOLDER" record -a -F 199 -d 7 --per-pid -o "$TMP/out.json" 2>"$TMP/smolder.err" &
REC=$!
sleep 2
"$PY" -c 'import time
end = time.time() + 4
def root_leaf():
    n = 0
    for i in range(2000):
        n += i
    return n
def root_outer():
    while time.time() < end:
        root_leaf()
root_outer()' &
ROOT_PID=$!
wait $ROOT_PID
wait $REC
rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/smolder.err"; fail "record exited with status $rc"; }
keep_artifact "$TMP/out.json" security_rename.out.json
"$PYTHON3" - "$TMP/out.json" "$ROOT_PID" "$CHOSEN" <<'PY' || fail "the user's name for the interpreter decided how root's process was named"
import json, sys
d = json.load(open(sys.argv[1]))
root_pid, chosen = sys.argv[2], sys.argv[3]
root = named = leaked = user = user_named = 0
for p in d["profiles"]:
    pid = str(p["labels"].get("pid"))
    for s in p["stacks"]:
        frames = s["stack"].split(";")
        if pid == root_pid:
            root += s["count"]
            named += s["count"] if "root_outer (<string>)_[py]" in frames else 0
            leaked += s["count"] if any(chosen in f for f in frames) else 0
        elif p["labels"].get("comm", "").startswith(chosen[:15]) or any("user_loop" in f for f in frames):
            user += s["count"]
            user_named += s["count"] if any("user_loop" in f for f in frames) else 0
pct = lambda a, b: 100.0 * a / b if b else 0.0
print("root's interpreter: %d samples, %.1f%% with its Python frames, %d carrying the user's name; "
      "the user's: %d samples, %.1f%% with theirs" % (root, pct(named, root), leaked, user, pct(user_named, user)))
# the control: the user's process was sampled, and first
ok = root >= 100 and user >= 50 and pct(named, root) >= 95 and leaked == 0
sys.exit(0 if ok else 1)
PY
