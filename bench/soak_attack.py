#!/usr/bin/env python3
"""Soak under attack: `smolder run` system-wide while an
unprivileged user (nobody) attacks it with everything doc/security.md
defends against, all at once:

  - a fork storm (two shells spawning /bin/true as fast as they can);
  - programs exec'd from ever new paths (names and mappings churn);
  - mapping churn (a library dlopen'ed and unmapped over and over);
  - twenty debug-data bombs (tests/workloads/make_bomb.sh), restarted;
  - four processes with 16 MiB perf maps, touched, appended, rewritten;
  - a collector that answers 401 to every upload (a rotated token), so
    every window lands in the spool's rejected/.

Every 30 s it samples the agent's RSS, open fds and CPU, and the bytes under
spool_dir. The point: RSS, fds and the spool stay flat, nothing crashes.
Writes a markdown table to --out and prints it.

usage: soak_attack.py --smolder PATH --workloads DIR --srcdir DIR [--minutes 10]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soak import Workloads, proc_cpu_s, proc_fds, proc_rss_kb, stop_agent  # noqa: E402

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def tree_bytes(d):
    total = 0
    for root, _dirs, files in os.walk(d):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def count_files(d):
    try:
        return len([n for n in os.listdir(d) if n.endswith(".json.gz")])
    except OSError:
        return 0


def start_receiver(srcdir, tmp):
    port_file = os.path.join(tmp, "rcv.port")
    rcv = subprocess.Popen(
        [sys.executable, os.path.join(srcdir, "tests/integration/receiver.py"),
         "--port-file", port_file, "--log", os.path.join(tmp, "rcv.log"),
         "--control", os.path.join(tmp, "rcv.ctl"), "--mode", "status 401 token rotated",
         "--max-time", "86400"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "rcv.err"), "w"))
    for _ in range(100):
        if os.path.exists(port_file) and os.path.getsize(port_file):
            return rcv, int(open(port_file).read())
        time.sleep(0.1)
    raise SystemExit("receiver did not start")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smolder", required=True)
    ap.add_argument("--workloads", required=True, help="tests/workloads build dir")
    ap.add_argument("--srcdir", required=True, help="the source tree")
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        raise SystemExit("needs root and setpriv (util-linux) to attack as another user")

    tmp = tempfile.mkdtemp(prefix="smolder-attack.")
    os.chmod(tmp, 0o755)
    spool = os.path.join(tmp, "spool")
    play = os.path.join(tmp, "user")   # the attacker's directory
    os.mkdir(play)
    os.chown(play, 65534, 65534)
    bombs = os.path.join(tmp, "bombs")
    if subprocess.call(["sh", os.path.join(a.srcdir, "tests/workloads/make_bomb.sh"), bombs]) != 0:
        raise SystemExit("cannot build the bombs")
    os.chmod(bombs, 0o755)
    libs = []
    for i in range(20):
        p = os.path.join(bombs, "libbomb%d.so" % i)
        shutil.copy(os.path.join(bombs, "bomb.so"), p)
        os.chown(p, 65534, 65534)
        libs.append(p)
    true = shutil.which("true", path="/bin:/usr/bin")
    shutil.copy(true, os.path.join(play, "true"))
    os.chown(os.path.join(play, "true"), 65534, 65534)

    rcv, port = start_receiver(a.srcdir, tmp)
    conf = os.path.join(tmp, "attack.conf")
    with open(conf, "w") as f:
        f.write("frequency = 99\ninterval = 10s\nexport = json\n"
                f"url = http://127.0.0.1:{port}/v1/profiles\n"
                f"spool_dir = {spool}\nspool_max_size = 256KiB\nstats_interval = 1m\n"
                "retry_backoff_max = 5s\n")
    w = a.workloads
    exec_churn = ("i=0; while :; do i=$((i+1)); p=%s/prog_with_a_long_name_$i; "
                  "ln %s/true $p && $p; rm -f $p; done" % (play, play))
    work = Workloads([
        NOBODY + ["sh", "-c", "while :; do /bin/true; done"],
        NOBODY + ["sh", "-c", "while :; do /bin/true; done"],
        NOBODY + ["sh", "-c", exec_churn],
        NOBODY + [os.path.join(w, "remap"), "60"],
        NOBODY + [os.path.join(w, "bombs"), "60"] + libs,
        NOBODY + [os.path.join(w, "perfmap_churn"), "60", "touch", "16"],
        NOBODY + [os.path.join(w, "perfmap_churn"), "60", "touch", "16"],
        NOBODY + [os.path.join(w, "perfmap_churn"), "60", "append", "16"],
        NOBODY + [os.path.join(w, "perfmap_churn"), "60", "replace", "16"],
    ])
    log = open(os.path.join(tmp, "smolder.log"), "w")
    agent = subprocess.Popen([a.smolder, "run", "-c", conf], stdout=log, stderr=log)
    rows = []
    died = None
    t0 = time.monotonic()
    try:
        time.sleep(2)
        if agent.poll() is not None:
            raise SystemExit(f"smolder run exited at start, see {log.name}")
        last_cpu, last_t = proc_cpu_s(agent.pid), time.monotonic()
        step = 0
        while (step + 1) * 30 <= a.minutes * 60:
            target = t0 + 30 * (step + 1)
            while time.monotonic() < target:
                work.tick()
                time.sleep(0.5)
                if agent.poll() is not None:
                    died = agent.returncode
                    break
            if died is not None:
                break
            step += 1
            now, cpu = time.monotonic(), proc_cpu_s(agent.pid)
            row = (step * 0.5, proc_rss_kb(agent.pid) / 1024.0, proc_fds(agent.pid),
                   100.0 * (cpu - last_cpu) / (now - last_t), tree_bytes(spool) / 1048576.0,
                   count_files(os.path.join(spool, "rejected")), work.starts)
            last_cpu, last_t = cpu, now
            rows.append(row)
            print("%5.1f min  rss %6.1f MiB  fds %4d  cpu %5.2f%%  spool %5.2f MiB  "
                  "rejected %3d  attacker processes started %d" % row, flush=True)
    finally:
        work.stop()
        subprocess.call(["pkill", "-u", "65534"])
        stop_agent(agent)
        rcv.terminate()
        log.close()

    status = 0
    lines = ["| minute | RSS (MiB) | open fds | agent CPU (% of one CPU) | spool (MiB) | rejected/ dumps |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        if r[0] in (0.5, 1, 2, 5) or r[0] % 5 == 0 or r is rows[-1]:
            lines.append("| %.1f | %.1f | %d | %.2f | %.2f | %d |" % r[:6])
    if rows:
        first, last = rows[0], rows[-1]
        summary = ("%.1f minutes under attack: RSS %.1f MiB at 30 s, %.1f MiB at the end (peak "
                   "%.1f); fds %d -> %d (max %d); spool %.2f -> %.2f MiB (max %.2f, cap 256 KiB); "
                   "%d attacker processes started; exit status %s"
                   % (last[0], first[1], last[1], max(r[1] for r in rows), first[2], last[2],
                      max(r[2] for r in rows), first[4], last[4], max(r[4] for r in rows),
                      last[6], agent.returncode))
    else:
        summary = "no sample taken"
    if died is not None or agent.returncode not in (0, None):
        summary += " -- smolder run DIED (status %s), see %s" % (agent.returncode, log.name)
        status = 1
    text = "\n".join(lines) + "\n\n" + summary + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if status == 0:
        shutil.rmtree(tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
