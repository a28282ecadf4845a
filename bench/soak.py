#!/usr/bin/env python3
"""Soak test: `smolder run` system-wide at 99 Hz for a long time under a mixed
workload (CPU-bound chains, threads, a churn of short-lived processes,
python), sampling the agent's RSS, open fds and CPU every minute. The point
is that they stay flat. Writes a table to --out (markdown) and prints it.

usage: soak.py --smolder PATH --workloads DIR [--minutes 60] [--out FILE]
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def proc_cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime and stime are fields 14 and 15 (1-based), i.e. 11 and 12 after ")"
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def spool_depth(d):
    try:
        names = [n for n in os.listdir(d) if n.endswith(".json.gz")]
    except OSError:
        return 0
    return len(names)


def stop_agent(agent):
    """SIGTERM, as a service manager would; SIGKILL after 15 s."""
    if agent.poll() is None:
        agent.send_signal(signal.SIGTERM)
        try:
            agent.wait(timeout=15)
        except subprocess.TimeoutExpired:
            agent.kill()


class Workloads:
    """Keeps each workload command running (restarting it when it exits)."""

    def __init__(self, cmds):
        self.cmds = cmds
        self.procs = [None] * len(cmds)
        self.starts = 0

    def tick(self):
        for i, cmd in enumerate(self.cmds):
            p = self.procs[i]
            if p is None or p.poll() is not None:
                self.procs[i] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.DEVNULL)
                self.starts += 1

    def stop(self):
        for p in self.procs:
            if p is not None and p.poll() is None:
                p.terminate()
        for p in self.procs:
            if p is not None:
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smolder", required=True)
    ap.add_argument("--workloads", required=True, help="tests/workloads build dir")
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="smolder-soak.")
    spool = os.path.join(tmp, "spool")
    conf = os.path.join(tmp, "soak.conf")
    with open(conf, "w") as f:
        f.write(f"frequency = 99\ninterval = 10s\nexport = none\nspool_dir = {spool}\n"
                "spool_max_size = 64MiB\nstats_interval = 5m\n")
    w = a.workloads
    python_fib = [sys.executable, "-c",
                  "import time\n"
                  "def fib(n): return n if n < 2 else fib(n-1) + fib(n-2)\n"
                  "end = time.time() + 60\n"
                  "while time.time() < end: fib(22); time.sleep(0.05)\n"]
    # Light enough for a 2-core machine: each CPU-bound workload sleeps part
    # of the time through its own restart cadence; forkexec is the churn.
    work = Workloads([
        [os.path.join(w, "chain"), "20"],
        [os.path.join(w, "threads"), "20"],
        [os.path.join(w, "forkexec"), "20"],
        [os.path.join(w, "syscalls"), "20"],
        python_fib,
    ])
    log = open(os.path.join(tmp, "smolder.log"), "w")
    agent = subprocess.Popen([a.smolder, "run", "-c", conf], stdout=log, stderr=log)
    rows = []
    t0 = time.monotonic()
    cpu0 = None
    try:
        time.sleep(2)
        if agent.poll() is not None:
            raise SystemExit(f"smolder run exited at start, see {log.name}")
        cpu0 = proc_cpu_s(agent.pid)
        last_cpu, last_t = cpu0, time.monotonic()
        minute = 0
        while minute < a.minutes:
            target = t0 + 60 * (minute + 1)
            while time.monotonic() < target:
                work.tick()
                time.sleep(0.5)
                if agent.poll() is not None:
                    raise SystemExit(f"smolder run died (status {agent.returncode}), see {log.name}")
            minute += 1
            now, cpu = time.monotonic(), proc_cpu_s(agent.pid)
            row = (minute, proc_rss_kb(agent.pid) / 1024.0, proc_fds(agent.pid),
                   100.0 * (cpu - last_cpu) / (now - last_t), spool_depth(spool), work.starts)
            last_cpu, last_t = cpu, now
            rows.append(row)
            print("min %3d  rss %6.1f MiB  fds %4d  cpu %5.2f%%  spool %4d  workload starts %d"
                  % row, flush=True)
    finally:
        work.stop()
        stop_agent(agent)
        log.close()

    if rows:
        first = rows[0]
        last = rows[-1]
        peak_rss = max(r[1] for r in rows)
        lines = [
            "| minute | RSS (MiB) | open fds | agent CPU (% of one CPU) | dumps in spool |",
            "|---|---|---|---|---|",
        ]
        for r in rows:
            if r[0] in (1, 2, 5) or r[0] % 10 == 0 or r is last:
                lines.append("| %d | %.1f | %d | %.2f | %d |" % r[:5])
        summary = ("RSS %.1f MiB at minute 1, %.1f MiB at minute %d (peak %.1f, ratio %.2f); "
                   "fds %d → %d; agent CPU %.2f%% → %.2f%% of one CPU; %d workload processes started"
                   % (first[1], last[1], last[0], peak_rss, last[1] / first[1], first[2], last[2],
                      first[3], last[3], last[5]))
        text = "\n".join(lines) + "\n\n" + summary + "\n"
        print(text)
        if a.out:
            with open(a.out, "w") as f:
                f.write(text)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
