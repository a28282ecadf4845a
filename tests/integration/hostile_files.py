#!/usr/bin/env python3
"""A local user turns their own perf map into something else, from inside a
user and mount namespace, and smolder (root) profiles their JIT process:

  secret  a root-only file (lines in the perf-map format naming the JIT
          code "TOPSECRET...") bind-mounted over the user's map: its lines
          must never reach the profile (F1);
  pty     a pseudo-terminal the user owns bind-mounted over the map: the
          daemon, a session leader without a terminal, must not acquire it
          as its controlling terminal, and ^C typed on it must not stop it
          (F2).

First, without any bind mount, the same recording must name the JIT code
from the user's real map: the setup does reach the map (a control, so that
the checks after it can fail).

Usage: hostile_files.py MODE SMOLDER JIT_FP_WORKLOAD. Exit 0 pass, 1 fail,
77 skip (not root, no user namespaces for an unprivileged user, no
setpriv/unshare, not x86-64)."""
import json
import os
import pty
import shutil
import subprocess
import sys
import tempfile
import time

NOBODY = 65534
INNER_PY = "/usr/bin/python3"

# Runs as nobody inside `unshare -Urm`: starts the JIT workload, tells its
# pid, then on command bind-mounts a file over its perf map (for "pty": a
# pty slave it opens itself) and, for "pty", types ^C on the master.
INNER = r'''
import os, subprocess, sys, time
d, workload, mode = sys.argv[1], sys.argv[2], sys.argv[3]
p = subprocess.Popen([workload, "12"])
mp = "/tmp/perf-%d.map" % p.pid
for _ in range(200):
    if os.path.exists(mp) and os.path.getsize(mp) > 0:
        break
    time.sleep(0.05)
open(d + "/pid.tmp", "w").write(str(p.pid))
os.rename(d + "/pid.tmp", d + "/pid")
while not os.path.exists(d + "/bind"):
    time.sleep(0.05)
master = None
if mode == "pty":
    master, slave = os.openpty()
    src = os.ttyname(slave)
else:
    src = open(d + "/bind").read().strip()
rc = subprocess.call(["mount", "--bind", src, mp])
open(d + "/bound", "w").write("%d %s" % (rc, src))
end = time.time() + 8
while time.time() < end and p.poll() is None:
    if master is not None:
        try:
            os.write(master, b"\x03\x1c")  # ^C and ^\ on the terminal
        except OSError:
            pass
    time.sleep(0.2)
subprocess.call(["umount", mp])
p.terminate()
p.wait()
try:
    os.unlink(mp)  # killed, the workload left its map behind
except OSError:
    pass
'''


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def wait_file(path, secs):
    end = time.time() + secs
    while time.time() < end:
        if os.path.exists(path):
            return True
        time.sleep(0.05)
    return False


def tty_nr(pid):
    try:
        stat = open("/proc/%d/stat" % pid).read()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[4])


def record(smolder, pid, out, secs):
    """smolder record -p PID as a session leader without a terminal (as the
    daemon under systemd is); returns (status, seconds, max tty_nr seen)."""
    t0 = time.time()
    p = subprocess.Popen(["setsid", smolder, "record", "-q", "-p", str(pid), "-d", str(secs),
                          "-o", out], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tty = 0
    while p.poll() is None:
        # setsid forks when it is a group leader: watch its child too
        for c in [p.pid] + children(p.pid):
            tty = max(tty, tty_nr(c))
        time.sleep(0.05)
    err = p.stderr.read().decode(errors="replace")
    if err.strip():
        print("  smolder stderr: " + err.strip()[:400])
    return p.returncode, time.time() - t0, tty


def children(pid):
    try:
        return [int(x) for x in open("/proc/%d/task/%d/children" % (pid, pid)).read().split()]
    except OSError:
        return []


def frames(path):
    d = json.load(open(path))
    return [f for p in d["profiles"] for s in p["stacks"] for f in s["stack"].split(";")], d


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("secret", "pty"):
        print(__doc__)
        return 2
    mode, smolder, workload = sys.argv[1:]
    if os.geteuid() != 0:
        skip("needs root (the attack is a user's against the root daemon)")
    if os.uname().machine != "x86_64":
        skip("the JIT workload's stub is x86-64 machine code")
    for tool in ("setpriv", "unshare", "setsid"):
        if not shutil.which(tool):
            skip("%s not installed (util-linux)" % tool)
    if not os.access(INNER_PY, os.X_OK):
        skip("%s missing (the unprivileged side needs a system Python)" % INNER_PY)
    probe = subprocess.call(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                             "--clear-groups", "unshare", "-Urm", "true"],
                            stderr=subprocess.DEVNULL)
    if probe != 0:
        skip("an unprivileged user cannot create user namespaces here "
             "(kernel.unprivileged_userns_clone, user.max_user_namespaces)")

    shared = tempfile.mkdtemp(prefix="smolder-hostile-")
    os.chmod(shared, 0o755)
    ctl = os.path.join(shared, "ctl")
    os.mkdir(ctl)
    os.chmod(ctl, 0o777)
    inner = None
    try:
        inner = subprocess.Popen(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                                  "--clear-groups", "unshare", "-Urm", INNER_PY, "-c", INNER,
                                  ctl, workload, mode])
        if not wait_file(ctl + "/pid", 15):
            fail("the unprivileged JIT workload did not start")
        pid = int(open(ctl + "/pid").read())
        real_map = open("/tmp/perf-%d.map" % pid).read()
        print("  JIT workload %d (uid %d), its map: %s" % (pid, NOBODY, real_map.strip()))

        # the control: the user's real map names the stub
        rc, secs, tty = record(smolder, pid, shared + "/before.json", 1)
        fr, _ = frames(shared + "/before.json")
        if rc != 0 or "jit_trampoline_[j]" not in fr:
            fail("without a bind mount the JIT stub is not named (status %d): the test does "
                 "not reach the map" % rc)
        print("  control: the stub is named jit_trampoline_[j] from the user's own map")

        if mode == "secret":
            secret = os.path.join(shared, "secret")
            with open(secret, "w") as f:
                for line in real_map.splitlines():
                    parts = line.split(" ", 2)
                    f.write("%s %s TOPSECRET-root-only-line\n" % (parts[0], parts[1]))
            os.chmod(secret, 0o600)  # root's, unreadable to the user
            open(ctl + "/bind", "w").write(secret)
        else:
            open(ctl + "/bind", "w").write("pty")
        if not wait_file(ctl + "/bound", 10):
            fail("the bind mount was not made")
        bound = open(ctl + "/bound").read()
        if not bound.startswith("0 "):
            skip("mount --bind inside the user namespace failed here: " + bound)
        print("  bound over /tmp/perf-%d.map in the user's namespace: %s" % (pid, bound[2:]))

        # the map changed under the process: the next lookups read it again
        rc, secs, tty = record(smolder, pid, shared + "/after.json", 3)
        text = open(shared + "/after.json").read() if os.path.exists(shared + "/after.json") else ""
        print("  record -p %d -d 3: status %d after %.1f s, controlling terminal %#x"
              % (pid, rc, secs, tty))
        if "TOPSECRET" in text:
            fail("a line of the root-only file bind-mounted over the map is in the profile")
        if tty != 0:
            fail("smolder acquired a terminal the user controls (tty_nr %#x)" % tty)
        if rc != 0 or secs < 2.8:
            fail("the recording did not run its 3 s to the end (status %d, %.1f s): "
                 "stopped from the user's terminal?" % (rc, secs))
        _, d = frames(shared + "/after.json")
        print("  no line of the bound file in %d samples; stats: %s"
              % (d["stats"]["samples"], json.dumps(d["stats"]["unwind"], sort_keys=True)))
        return 0
    finally:
        if inner:
            try:
                inner.wait(timeout=15)
            except subprocess.TimeoutExpired:
                inner.kill()
        shutil.rmtree(shared, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
