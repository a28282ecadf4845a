#!/usr/bin/env python3
"""Whose a process is, as the kernel says when it matters (doc/security.md,
1a): every owner rule checked for processes whose credentials are not what
they were when the agent first saw them or their parent. smolder
(`record -a`, root) runs first; then:

  files    four JIT processes (tests/workloads/jit_fp) started by root
           after the agent: two for user nobody (setpriv), two that start
           as root and setuid() to nobody themselves, without exec. In each
           pair one only runs its JIT code, its own perf map (nobody's)
           must name it; the other, from a user and mount namespace of its
           own, binds a root-only file (perf-map lines naming all memory
           "TOPSECRET...") over its perf map: not one of those lines may
           reach the profile;
  setuid   a process of nobody, alive before the agent starts, execs a
           setuid-root copy of jit_fp: labelled user=nobody before, the
           process is root's from then on: its root-owned perf map names
           its JIT code, and its profile carries no user label;
  labels   two processes named postgresql, one root's and one nobody's,
           both started after the agent: two profiles, the user's labelled
           user=nobody with service_name postgresql@nobody, root's without
           a user label; uploaded to a Pyroscope receiver, two series.

Every check is made and reported before the verdict, so a run against an
agent that fails shows each failure. Usage: hostile_creds.py CASE SMOLDER
WORKLOADS TESTS_SRCDIR. Exit 0 pass, 1 fail, 77 skip (not root, not x86-64,
no setpriv, no user namespaces for a user (files), a nosuid /tmp (setuid))."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

NOBODY = 65534
SECRET = "TOPSECRET-root-only-line"


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


class Checks:
    def __init__(self):
        self.failed = []

    def check(self, ok, what):
        print("  %s: %s" % ("ok  " if ok else "FAIL", what))
        if not ok:
            self.failed.append(what)

    def verdict(self):
        if self.failed:
            print("FAIL: %d check(s) failed: %s" % (len(self.failed), "; ".join(self.failed)))
            return 1
        return 0


def as_nobody(argv):
    return ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups"] + argv


def perf_fds(pid):
    n = 0
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                n += "perf_event" in os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                pass
    except OSError:
        pass
    return n


def start_agent(smolder, secs, out, per_pid=True):
    """record -a, returned once its events are open (a process started
    after this is one the agent sees born)."""
    p = subprocess.Popen([smolder, "record", "-q", "-a", "-F", "199", "-d", str(secs), "-o", out] +
                         (["--per-pid"] if per_pid else []),
                         stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    end = time.time() + 20
    while time.time() < end and p.poll() is None and perf_fds(p.pid) < os.cpu_count():
        time.sleep(0.05)
    time.sleep(0.5)
    if p.poll() is not None:
        print("  smolder: " + p.stderr.read().decode(errors="replace")[:400])
        sys.exit(1)
    return p


def finish_agent(p, out):
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    err = p.stderr.read().decode(errors="replace").strip()
    if err:
        print("  smolder stderr: " + err[:400])
    if p.returncode != 0 or not os.path.exists(out):
        print("FAIL: smolder record exited %d" % p.returncode)
        sys.exit(1)
    with open(out) as f:
        text = f.read()
    return text, json.loads(text)


def profiles_of(d, pid, comm=None):
    """The profiles of process pid (of its image named comm)."""
    return [p for p in d["profiles"] if p["labels"].get("pid") == str(pid)
            and (comm is None or p["labels"].get("comm") == comm)]


def count(profiles, what=None):
    return sum(s["count"] for p in profiles for s in p["stacks"] if what is None or what in s["stack"])


def wait_ready(proc, secs=10):
    """The pid a jit_fp printed once set up, or None (its status then)."""
    end = time.time() + secs
    line = proc.stdout.readline().decode(errors="replace").strip()
    if line.startswith("ready "):
        return int(line.split()[1])
    while proc.poll() is None and time.time() < end:
        time.sleep(0.05)
    return None


def case_files(smolder, workloads, shared, c):
    probe = subprocess.call(as_nobody(["unshare", "-Urm", "true"]), stderr=subprocess.DEVNULL)
    if probe != 0:
        skip("an unprivileged user cannot create user namespaces here "
             "(kernel.unprivileged_userns_clone, user.max_user_namespaces)")
    secret = os.path.join(shared, "secret")
    with open(secret, "w") as f:
        f.write("1000 7ffffffff000 %s\n" % SECRET)
    os.chmod(secret, 0o600)  # root's, unreadable to the user
    jit = os.path.join(workloads, "jit_fp")
    runs = {
        "setpriv nobody, own map": as_nobody([jit, "5"]),
        "setpriv nobody, root-only file bound over its map": as_nobody([jit, "5", "--bind", secret]),
        "root, then setuid(nobody), own map": [jit, "5", "--drop", str(NOBODY)],
        "root, then setuid(nobody), root-only file bound over its map":
            [jit, "5", "--drop", str(NOBODY), "--bind", secret],
    }
    out = os.path.join(shared, "files.json")
    agent = start_agent(smolder, 8, out)
    procs, pids = {}, {}
    for name, argv in runs.items():
        procs[name] = subprocess.Popen(argv, stdout=subprocess.PIPE)
    for name, p in procs.items():
        pids[name] = wait_ready(p)
        if pids[name] is None:
            for q in procs.values():
                q.kill()
            agent.kill()
            if "bound" in name and p.returncode == 3:
                skip("the bind mount inside the user namespace failed here (%s)" % name)
            print("FAIL: %s did not start (status %s)" % (name, p.returncode))
            sys.exit(1)
    text, d = finish_agent(agent, out)
    for p in procs.values():
        p.wait()
    leaked = text.count(SECRET)
    for name, pid in pids.items():
        # setpriv, before its exec, is root's
        pr = profiles_of(d, pid, "jit_fp")
        total, named = count(pr), count(pr, "jit_trampoline_[j]")
        users = sorted({p["labels"].get("user", "") for p in pr})
        print("  %s (pid %d): %d samples, %d named jit_trampoline_[j], %d of the secret's line, "
              "user labels %s" % (name, pid, total, named, count(pr, SECRET), users))
        c.check(total > 0, "%s: sampled" % name)
        if "bound" in name:
            c.check(count(pr, SECRET) == 0, "%s: no line of the root-only file in its profile" % name)
        else:
            c.check(named > 0, "%s: its own perf map names its JIT code" % name)
        if "--drop" in runs[name]:
            # root's until its setresuid: samples of its start-up (a
            # sanitizer's is slow) are root's, and a label may lag a
            # change of user by PROCTABLE_CREDS_TTL_NS (1 s) of its 5 s;
            # past that, what it runs as nobody (run_jit) is nobody's
            jit_users = sorted({p["labels"].get("user", "") for p in pr
                                if count([p], "run_jit") > 0})
            as_root = count([p for p in pr if p["labels"].get("user", "") == ""])
            c.check("nobody" in jit_users and set(jit_users) <= {"", "nobody"},
                    "%s: its code as nobody labelled user=nobody (%s)" % (name, jit_users))
            c.check(as_root * 3 <= total,
                    "%s: unlabelled only at its start (%d of %d samples)" % (name, as_root, total))
        else:
            c.check(users == ["nobody"], "%s: labelled user=nobody" % name)
    c.check(leaked == 0, "the root-only file's line appears %d time(s) in the whole dump" % leaked)


def case_setuid(smolder, workloads, shared, c):
    d = os.path.join(shared, "suid")
    os.mkdir(d)
    os.chmod(d, 0o755)
    jit = os.path.join(d, "jit_fp")
    shutil.copy(os.path.join(workloads, "jit_fp"), jit)
    os.chown(jit, 0, 0)
    os.chmod(jit, 0o4755)
    # busy as nobody's sh first, so that the agent knows it as nobody's;
    # it becomes root's at its exec
    spin = "end=$(($(date +%%s) + 3)); while [ $(date +%%s) -lt $end ]; do :; done; exec %s 4" % jit
    user = subprocess.Popen(as_nobody(["sh", "-c", spin]), stdout=subprocess.PIPE)
    out = os.path.join(shared, "setuid.json")
    agent = start_agent(smolder, 8, out)
    pid = wait_ready(user, 15)
    euid = None
    if pid:
        try:
            for line in open("/proc/%d/status" % pid):
                if line.startswith("Uid:"):
                    euid = int(line.split()[2])
        except OSError:
            pass
    if euid != 0:
        agent.kill()
        user.kill()
        skip("the setuid bit of %s did not make it root (a nosuid mount?)" % jit)
    text, dump = finish_agent(agent, out)
    user.wait()
    before = profiles_of(dump, pid, "sh")
    pr = profiles_of(dump, pid, "jit_fp")
    total, named = count(pr), count(pr, "jit_trampoline_[j]")
    users = sorted({p["labels"].get("user", "") for p in pr})
    print("  nobody's process %d: %d samples as sh before the exec, user labels %s"
          % (pid, count(before), sorted({p["labels"].get("user", "") for p in before})))
    print("  nobody's process %d, after its exec of a setuid-root jit_fp: %d samples, %d named "
          "jit_trampoline_[j] from its root-owned map, user labels %s" % (pid, total, named, users))
    c.check(count(before) > 0, "setuid exec: sampled as nobody's sh before its exec")
    # labels are read when samples are handled: the last samples before
    # the exec, handled after it, may carry the new user
    as_nobody_n = count([p for p in before if p["labels"].get("user") == "nobody"])
    c.check(as_nobody_n * 3 >= count(before) * 2,
            "setuid exec: before it, labelled user=nobody (%d of %d samples)" % (as_nobody_n, count(before)))
    c.check(total > 0, "setuid exec: sampled")
    c.check(named > 0, "setuid exec: its perf map (root's, as it is) names its JIT code")
    c.check(users == [""], "setuid exec: no user label (it is root's)")


def case_labels(smolder, workloads, shared, srcdir, c):
    d = os.path.join(shared, "bin")
    os.mkdir(d)
    os.chmod(d, 0o755)
    prog = os.path.join(d, "postgresql")
    shutil.copy(os.path.join(workloads, "chain"), prog)
    os.chmod(prog, 0o755)
    out = os.path.join(shared, "labels.json")
    agent = start_agent(smolder, 5, out, per_pid=False)
    procs = [subprocess.Popen([prog, "3"], stderr=subprocess.DEVNULL),
             subprocess.Popen(as_nobody([prog, "3"]), stderr=subprocess.DEVNULL)]
    text, dump = finish_agent(agent, out)
    for p in procs:
        p.wait()
    mine = [p for p in dump["profiles"] if p["labels"].get("comm") == "postgresql"]
    for p in mine:
        print("  profile %s: %d samples" % (json.dumps(p["labels"], sort_keys=True), count([p])))
    by_user = {}
    for p in mine:
        by_user.setdefault(p["labels"].get("user", "(root)"), []).append(p)
    c.check(sorted(by_user) == ["(root)", "nobody"],
            "root's and nobody's postgresql are profiles of their own (users %s)" % sorted(by_user))
    for p in by_user.get("nobody", []):
        c.check(p["labels"].get("service_name") == "postgresql@nobody",
                "the user's service_name is %r (want postgresql@nobody)" % p["labels"].get("service_name"))
    for p in by_user.get("(root)", []):
        c.check(p["labels"].get("service_name") == "postgresql",
                "root's service_name is %r (want postgresql)" % p["labels"].get("service_name"))

    # the same dump at a Pyroscope receiver: two series
    sys.path.insert(0, os.path.join(srcdir, "integration"))
    import receiver  # noqa: E402
    rdir = os.path.join(shared, "rcv")
    os.mkdir(rdir)
    up = os.path.join(shared, "up")
    os.mkdir(up)
    # the receiver rejects profiles from before its reference; the dump is new
    shutil.copy(out, os.path.join(up, "labels.json"))
    rcv = subprocess.Popen([sys.executable, os.path.join(srcdir, "integration", "receiver.py"),
                            "--port-file", rdir + "/port", "--log", rdir + "/log",
                            "--control", rdir + "/ctl", "--mode", "pyroscope", "--max-time", "60"],
                           stderr=subprocess.DEVNULL)
    try:
        end = time.time() + 10
        while time.time() < end and not (os.path.exists(rdir + "/port") and os.path.getsize(rdir + "/port")):
            time.sleep(0.05)
        port = open(rdir + "/port").read().strip()
        rc = subprocess.call([smolder, "upload", "--export", "pyroscope", "--url",
                              "http://127.0.0.1:%s" % port, up])
        reqs = receiver.load_log(rdir + "/log")
    finally:
        rcv.terminate()
        rcv.wait()
    c.check(rc == 0, "smolder upload --export pyroscope exited %d" % rc)
    series = sorted({r["params"]["name"] for r in reqs
                     if r.get("status") == 200 and r.get("app", "").startswith("postgresql")})
    for s in series:
        print("  series %s" % s)
    c.check(len(series) == 2, "%d Pyroscope series for the two postgresql processes (want 2)" % len(series))
    c.check(any("user=nobody" in s for s in series) and any("user=" not in s for s in series),
            "the user's series carries user=nobody, root's none")


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("files", "setuid", "labels"):
        print(__doc__)
        return 2
    case, smolder, workloads, srcdir = sys.argv[1:]
    if os.geteuid() != 0:
        skip("needs root (the agent is root; the tests start processes as another user)")
    if case != "labels" and os.uname().machine != "x86_64":
        skip("the JIT workload's stub is x86-64 machine code")
    for tool in ("setpriv", "unshare"):
        if not shutil.which(tool):
            skip("%s not installed (util-linux)" % tool)
    shared = tempfile.mkdtemp(prefix="smolder-creds-")
    os.chmod(shared, 0o755)
    c = Checks()
    try:
        if case == "files":
            case_files(smolder, workloads, shared, c)
        elif case == "setuid":
            case_setuid(smolder, workloads, shared, c)
        else:
            case_labels(smolder, workloads, shared, srcdir, c)
    finally:
        shutil.rmtree(shared, ignore_errors=True)
    return c.verdict()


if __name__ == "__main__":
    sys.exit(main())
