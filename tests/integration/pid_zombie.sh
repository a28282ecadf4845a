#!/bin/sh
# record -p on a process that exits and stays a zombie (its parent reaps it
# only 20 s later): the recording ends soon after the exit, not when the
# parent reaps it, and does not spin meanwhile (the dead task's events
# report POLLHUP at every poll). Bounds are generous, the machine is shared:
# before the fix smolder ran until the reap, burning 3-7 s of CPU.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process

"$PYTHON3" - "$SMOLDER" "$TMP/out.json" <<'PY' || fail "record -p did not end promptly and quietly"
import os, resource, subprocess, sys, time

smolder, out = sys.argv[1], sys.argv[2]
r, w = os.pipe()
parent = os.fork()
if parent == 0:
    # the target's parent: forks the target, reaps it 20 s later
    os.close(r)
    child = os.fork()
    if child == 0:
        end = time.time() + 2.0
        x = 0
        while time.time() < end:
            x += 1
        os._exit(0)
    os.write(w, b"%d\n" % child)
    time.sleep(20)
    os.waitpid(child, 0)
    os._exit(0)
os.close(w)
target = int(os.read(r, 64))
start = time.time()
rc = subprocess.call([smolder, "record", "-q", "-p", str(target), "-o", out])
wall = time.time() - start
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = ru.ru_utime + ru.ru_stime
state = open("/proc/%d/stat" % target).read().rsplit(")", 1)[1].split()[0]
print("record -p: exit %d after %.2f s (the target ran 2 s), %.3f s of CPU; target state %s"
      % (rc, wall, cpu, state))
os.kill(parent, 9)
os.waitpid(parent, 0)
ok = rc == 0 and state == "Z" and wall < 6.0 and cpu < 2.0
sys.exit(0 if ok else 1)
PY
$CHECK validate "$TMP/out.json" >/dev/null || fail "no valid dump"
