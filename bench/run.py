#!/usr/bin/env python3
"""smolder's benchmark driver (`make bench`, `make bench-churn`).

For every workload, in one invocation and on the same running workload
instance: the workload alone (baseline throughput), smolder system-wide at
99 Hz and 999 Hz (a long and a short run each, the difference giving the
steady-state cost), and `perf record -a --call-graph dwarf` at the same
frequencies followed by `perf script --inline`. The order of the phases is
reversed on every other run. Medians over the runs go to a table on stdout,
in full to the day's log doc/bench-log/YYYY-MM-DD.md, and in summary to the
current results of doc/benchmarks.md, replacing the previous run's (see
write_doc). `run.py --selftest` checks that writing on a made-up run.

Python 3 standard library only. Every process started here runs in its own
session with a kill timer, and is killed (its whole process group) at the end.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

# A user stack is complete when its outermost frame is one whose CFI marks
# the return address undefined: the program's entry point, or the clone
# that started the thread. (glibc >= 2.34 starts threads from clone3, with
# start_thread below it.)
OUTERMOST = {"_start", "__clone3", "clone3", "__clone", "clone", "start_thread"}



def elf_entry(path):
    """(entry address, load bias) of an ELF64 executable, or None: a
    stripped program's _start has no name, but it is the entry point."""
    import struct
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if len(h) < 64 or h[:4] != b"\x7fELF" or h[4] != 2:
                return None
            entry, phoff = struct.unpack_from("<QQ", h, 24)
            phentsize, phnum = struct.unpack_from("<HH", h, 54)
            f.seek(phoff)
            ph = f.read(phentsize * min(phnum, 64))
    except OSError:
        return None
    for i in range(min(phnum, 64)):
        if len(ph) < (i + 1) * phentsize or phentsize < 56:
            break
        ptype, _, off, vaddr = struct.unpack_from("<IIQQ", ph, i * phentsize)
        if ptype == 1:  # PT_LOAD
            return entry, vaddr - off
    return entry, 0


def elf_interp(path):
    """The PT_INTERP path of an ELF64 executable (its dynamic loader), or None."""
    import struct
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if len(h) < 64 or h[:4] != b"\x7fELF" or h[4] != 2:
                return None
            phoff, = struct.unpack_from("<Q", h, 32)
            phentsize, phnum = struct.unpack_from("<HH", h, 54)
            if phentsize < 56:
                return None
            f.seek(phoff)
            ph = f.read(phentsize * min(phnum, 64))
            for i in range(min(phnum, 64)):
                if len(ph) < (i + 1) * phentsize:
                    break
                ptype, _, off, _, _, filesz = struct.unpack_from("<IIQQQQ", ph, i * phentsize)
                if ptype == 3:  # PT_INTERP
                    f.seek(off)
                    return f.read(min(filesz, 4096)).split(b"\0")[0].decode("utf-8", "replace")
    except (OSError, struct.error):
        return None
    return None


def entry_frames(argv0):
    """How each profiler names the entry point of a stripped program. The
    dynamic loader's entry stub counts too: it is where a dynamically linked
    program starts, and Debian's ld.so has neither CFI nor a dynamic symbol
    for it, so smolder names it "ld-linux-x86-64.so.2+0xENTRY" (perf names
    it _start only when it finds ld.so's debug info)."""
    path = shutil.which(argv0) or argv0
    path = os.path.realpath(path)
    e = elf_entry(path)
    if not e:
        return path, None, set()
    entry, bias = e
    base = os.path.basename(path)
    names = {"%s+0x%x" % (base, entry), "%s+0x%x" % (base, entry - bias)}
    interp = elf_interp(path)
    if interp:
        ie = elf_entry(os.path.realpath(interp))
        if ie:
            for b in {os.path.basename(interp), os.path.basename(os.path.realpath(interp))}:
                names |= {"%s+0x%x" % (b, ie[0]), "%s+0x%x" % (b, ie[0] - ie[1])}
    return path, entry, names


_live = {}  # pid -> Popen, for the final clean-up
_live_lock = threading.Lock()


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


# --- processes --------------------------------------------------------------

def _track(p):
    with _live_lock:
        _live[p.pid] = p


def _untrack(p):
    with _live_lock:
        _live.pop(p.pid, None)


def _kill_group(p, sig=signal.SIGKILL):
    try:
        os.killpg(p.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_all():
    with _live_lock:
        procs = list(_live.values())
    for p in procs:
        _kill_group(p, signal.SIGCONT)
        _kill_group(p)
    for p in procs:
        try:
            p.wait(timeout=5)
        except (subprocess.TimeoutExpired, ChildProcessError):
            pass
        _untrack(p)


class Measured:
    """Exit status and the rusage of one finished child (from wait4)."""

    def __init__(self, status, ru, wall):
        self.rc = os.waitstatus_to_exitcode(status)
        self.cpu = ru.ru_utime + ru.ru_stime
        self.maxrss_kb = ru.ru_maxrss
        self.wall = wall


def run_measured(argv, timeout, stdout=subprocess.DEVNULL, on_stdout=None,
                 stderr_path=None, on_start=None):
    """Runs argv to completion (killed after timeout seconds) and returns
    its own accounting: wait4's rusage covers the process and every
    descendant it waited for, start-up included."""
    errf = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
    try:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE if on_stdout else stdout,
                             stderr=errf, start_new_session=True)
    finally:
        if stderr_path:
            errf.close()
    _track(p)
    timer = threading.Timer(timeout, _kill_group, (p,))
    timer.daemon = True
    timer.start()
    t0 = time.monotonic()
    try:
        if on_start:
            on_start(p)
        if on_stdout:
            try:
                on_stdout(p.stdout)
            finally:
                p.stdout.close()
        _, status, ru = os.wait4(p.pid, 0)
    except BaseException:
        _kill_group(p)
        raise
    finally:
        timer.cancel()
        _untrack(p)
    p.returncode = os.waitstatus_to_exitcode(status)
    m = Measured(status, ru, time.monotonic() - t0)
    if m.rc != 0:
        raise RuntimeError("%s exited with %d%s" % (
            " ".join(argv), m.rc, " (see %s)" % stderr_path if stderr_path else ""))
    return m


class ProcPoller:
    """Reads a running process's CPU time (the sum over its threads of
    /proc/PID/task/TID/schedstat's first field, in ns, exact where rusage
    has clock-tick resolution) at a few given moments after its start.

    Only at those moments, not every tenth of a second: each read wakes this
    driver, and smolder, which samples the whole machine, then samples and
    symbolizes the driver's Python too -- where that Python's libpython has
    full DWARF (a pyenv build), polling at 10 Hz doubled the agent's CPU.
    Peak RSS comes from the dump (stats.agent_peak_rss_bytes, the agent's
    own VmHWM), not from here."""

    def __init__(self, at=()):
        self.at = sorted(at)
        self.points = []  # (seconds since start, cpu ns)
        self._stop = threading.Event()
        self._t = None

    def _cpu_ns(self, pid):
        tot = 0
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                tot += int(f.read().split()[0])
        return tot

    def _run(self, pid, t0):
        for t in self.at:
            if self._stop.wait(max(0.0, t0 + t - time.monotonic())):
                return
            try:
                cpu = self._cpu_ns(pid)
            except (OSError, ValueError, IndexError):
                return  # gone (or a zombie)
            self.points.append((time.monotonic() - t0, cpu))

    def start(self, p):
        if not self.at:
            return
        self._t = threading.Thread(target=self._run, args=(p.pid, time.monotonic()), daemon=True)
        self._t.start()

    def stop(self):
        self._stop.set()
        if self._t:
            self._t.join()

    def cpu_between(self, t1, t2):
        """CPU ns between the first point at or after t1 and the last at or
        before t2, and the time between them; None if there are none."""
        a = next((pt for pt in self.points if pt[0] >= t1), None)
        b = next((pt for pt in reversed(self.points) if pt[0] <= t2), None)
        if not a or not b or b[0] - a[0] < 1.0:
            return None
        return b[1] - a[1], b[0] - a[0]


# --- workloads --------------------------------------------------------------

# The signal a workload answers with its progress: SIGUSR1, but Debian's
# node dies of SIGUSR1 (its inspector's) whatever listener the script sets.
PROGRESS_SIGNAL = {"node": signal.SIGUSR2}


class Workload:
    """One running instance of a workload and its progress counter.

    C, Python, Ruby, PHP and Go workloads answer SIGUSR1 (node SIGUSR2)
    with "progress COUNT MONO_NS";
    xz and gzip are fed random data through a pipe by a thread of ours, and
    their progress is the bytes they accepted."""

    def __init__(self, name, argv, comms, feed=None):
        self.name = name
        self.argv = argv
        self.comms = comms
        self.feed = feed  # bytes to feed cyclically on stdin, or None
        self.proc = None
        self.lines = queue.Queue()
        self.fed = 0
        self.closing = False
        self.exe, self.entry, self.entry_names = entry_frames(argv[0])

    def start(self, warmup, warm_bytes=0):
        """Starts the workload and lets it run `warmup` seconds, and for a
        fed workload until it has taken `warm_bytes` (at most 120 s): xz -9
        slows down for as long as its 64 MiB dictionary fills, then runs at
        a steady rate."""
        if self.feed is not None:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                         stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL,
                                         start_new_session=True)
            _track(self.proc)
            try:  # a small pipe: bytes accepted ~ bytes consumed
                import fcntl
                fcntl.fcntl(self.proc.stdin.fileno(), 1031, 16384)  # F_SETPIPE_SZ
            except OSError:
                pass
            threading.Thread(target=self._writer, daemon=True).start()
        else:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL,
                                         start_new_session=True)
            _track(self.proc)
            threading.Thread(target=self._reader, daemon=True).start()
            try:
                self.lines.get(timeout=30)  # the "ready" report
            except queue.Empty:
                raise RuntimeError("%s did not start" % self.name)
        time.sleep(warmup)
        deadline = time.monotonic() + 120
        while self.fed < warm_bytes and time.monotonic() < deadline and self.proc.poll() is None:
            time.sleep(0.5)
        if self.proc.poll() is not None:
            raise RuntimeError("%s exited early (%s)" % (self.name, self.proc.returncode))

    def _reader(self):
        for line in self.proc.stdout:
            self.lines.put(line.decode("ascii", "replace"))

    def _writer(self):
        view = memoryview(self.feed)
        chunk = 16384
        off = 0
        fd = self.proc.stdin.fileno()
        try:
            while not self.closing:
                n = os.write(fd, view[off:off + chunk])
                self.fed += n
                off = (off + n) % len(view)
        except OSError:
            pass

    def progress(self):
        """(work count, monotonic ns) now."""
        if self.feed is not None:
            return self.fed, time.monotonic_ns()
        while not self.lines.empty():
            self.lines.get_nowait()
        os.kill(self.proc.pid, PROGRESS_SIGNAL.get(self.name, signal.SIGUSR1))
        try:
            line = self.lines.get(timeout=10)
        except queue.Empty:
            raise RuntimeError("%s does not report progress" % self.name)
        _, count, ns = line.split()
        return int(count), int(ns)

    def pause(self):
        _kill_group(self.proc, signal.SIGSTOP)

    def resume(self):
        _kill_group(self.proc, signal.SIGCONT)

    def stop(self):
        self.closing = True
        if self.proc is not None:
            _kill_group(self.proc, signal.SIGCONT)
            _kill_group(self.proc)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            _untrack(self.proc)


def rate(a, b):
    dt = (b[1] - a[1]) / 1e9
    return (b[0] - a[0]) / dt if dt > 0 else None


# --- parsing the two profilers' output ---------------------------------------

_PLACE = re.compile(r" \([^()]*\)$")


def _strip_suffix(frame):
    """The function: without its origin suffix, nor its place (--lines)."""
    for suf in ("_[i]", "_[j]"):
        if frame.endswith(suf):
            frame = frame[:-len(suf)]
            break
    return _PLACE.sub("", frame)


def parse_dump(path, comms, entry_names=()):
    """Stats of a smolder dump; completeness of the workload's own profiles
    (root frame of each user stack is an outermost frame) and the agent's
    own profile (self-profiling)."""
    with open(path) as f:
        d = json.load(f)
    st = d["stats"]
    uw = st.get("unwind", {})
    w = d.get("window", {})
    r = {
        "samples": st["samples"], "lost": st["lost"], "dropped": st.get("dropped", 0),
        "idle": st.get("idle", 0), "processes": st.get("processes"),
        # what a sample costs is over the samples of some thread: the idle
        # task's are dropped unread, and an idle CPU gives them in some
        # runs only (and none while stacks are read as they come)
        "busy": st["samples"] - st.get("idle", 0),
        "binaries": st.get("binaries"),
        "agent_cpu_ns": st.get("agent_cpu_ns"), "agent_rss": st.get("agent_rss_bytes"),
        "agent_peak_rss": st.get("agent_peak_rss_bytes"),
        "unwind": uw, "sys_user": sum(uw.values()), "sys_complete": uw.get("complete", 0),
        "duration_s": (w["end_ns"] - w["start_ns"]) / 1e9 if "end_ns" in w and "start_ns" in w else None,
        "wl_samples": 0, "wl_user": 0, "wl_complete": 0, "wl_roots": {}, "self": {},
    }
    for p in d.get("profiles", []):
        lab = p.get("labels", {})
        exe = lab.get("exe", "")
        mine = lab.get("comm") in comms or os.path.basename(exe) in comms
        self_ = os.path.basename(exe) == "smolder"
        for s in p.get("stacks", []):
            frames = s["stack"].split(";")
            n = s["count"]
            if self_:
                # Inclusive count per function of the agent's own stacks.
                for fr in set(frames):
                    r["self"][fr] = r["self"].get(fr, 0) + n
                r["self"]["<total>"] = r["self"].get("<total>", 0) + n
            if not mine:
                continue
            r["wl_samples"] += n
            root = _strip_suffix(frames[0])
            if frames[0].endswith("_[k]") or root == "[kernel]":
                continue  # no user stack
            r["wl_user"] += n
            if root in OUTERMOST or root in entry_names:
                r["wl_complete"] += n
            else:
                r["wl_roots"][root] = r["wl_roots"].get(root, 0) + n
    return r


_HDR = re.compile(r"^(\S.*?)\s+(-?\d+)(?:/-?\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:")
_FRAME = re.compile(r"^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$")
_LOST = re.compile(r"PERF_RECORD_LOST.*?lost (\d+)|\blost (\d+)")


class PerfScriptParser:
    """Streams `perf script` output: a sample is a header line followed by
    its callchain, leaf first; the deepest user frame is the last one that
    is not a kernel address."""

    def __init__(self, comms, exe=None, entry=None):
        self.comms = comms
        self.exe = exe
        self.entry = entry
        self.samples = 0
        self.idle = 0  # the idle task's (pid 0)
        self.lost = 0
        self.sys_user = self.sys_complete = 0
        self.wl_samples = self.wl_user = self.wl_complete = 0
        self.wl_roots = {}
        self._comm = None
        self._deepest = None

    def _flush(self):
        if self._comm is None:
            return
        mine = self._comm in self.comms
        if mine:
            self.wl_samples += 1
        if self._deepest is not None:
            ok = self._deepest in OUTERMOST
            self.sys_user += 1
            self.sys_complete += ok
            if mine:
                self.wl_user += 1
                self.wl_complete += ok
                if not ok:
                    self.wl_roots[self._deepest] = self.wl_roots.get(self._deepest, 0) + 1
        self._comm = None
        self._deepest = None

    def feed(self, f):
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if not line.strip():
                continue
            if line[0] in " \t":
                m = _FRAME.match(line)
                if m and self._comm is not None:
                    addr = m.group(1)
                    if not (len(addr) == 16 and addr.startswith("ffff")):
                        self._deepest = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
                        if (self.entry is not None and m.group(3) == self.exe
                                and 0 <= int(addr, 16) - self.entry < 64):
                            self._deepest = "_start"  # stripped: the entry point
                continue
            self._flush()
            if "PERF_RECORD_LOST" in line:
                m = _LOST.search(line)
                if m:
                    self.lost += int(m.group(1) or m.group(2))
                continue
            m = _HDR.match(line)
            if m:
                self._comm = m.group(1).strip()
                self.samples += 1
                self.idle += m.group(2) == "0"
        self._flush()


# --- one workload, all phases --------------------------------------------------

class Bench:
    def __init__(self, args):
        self.args = args
        self.smolder = os.path.abspath(args.smolder)
        self.perf = os.environ.get("PERF") or shutil.which("perf") or "/usr/bin/perf"
        self.out = os.path.abspath(args.out)
        os.makedirs(self.out, exist_ok=True)
        self.quick = (os.environ.get("BENCH_QUICK") or "0") not in ("0", "no")
        self.seconds = float(os.environ.get("BENCH_SECONDS") or 10)
        self.runs = int(os.environ.get("BENCH_RUNS") or 3)
        if self.quick:
            self.seconds, self.runs = 3.0, 1
        self.short = max(1.0, min(3.0, self.seconds / 3))
        self.warmup = 1.0
        # The measured runs share one cache directory of their own (kernel
        # symbols, plain copies of compressed debug files), as successive
        # starts of the agent on one host do; it is primed by an unmeasured
        # 1 s run over each workload (Bench.prime). The cost of a first
        # start is measured on its own (Bench.startup).
        self.cache = os.path.join(self.out, "cache")
        shutil.rmtree(self.cache, ignore_errors=True)

    def _secs(self, x):
        """x seconds as smolder's -d takes them: whole milliseconds (a
        third of BENCH_SECONDS is rarely whole seconds)."""
        return "%dms" % round(x * 1000)

    def baseline(self, wl):
        a = wl.progress()
        time.sleep(self.seconds / 2)
        m = wl.progress()
        time.sleep(self.seconds / 2)
        b = wl.progress()
        r1, r2 = rate(a, m), rate(m, b)
        noise = abs(r1 - r2) / ((r1 + r2) / 2) * 100 if r1 and r2 else None
        return {"rate": rate(a, b), "aa_noise_pct": noise}

    def _mark_later(self, wl, delay, out):
        """A thread that reads the workload's progress `delay` s from now
        into out["mid"]: the steady stretch of a phase starts there."""
        def mark():
            time.sleep(delay)
            try:
                out["mid"] = wl.progress()
            except (RuntimeError, OSError):
                pass
        t = threading.Thread(target=mark, daemon=True)
        t.start()
        return t

    def smolder_run(self, wl, hz, secs, tag):
        base = os.path.join(self.out, "%s-%s" % (wl.name, tag))
        dump = base + ".json"
        a = wl.progress()
        poller = ProcPoller(at=(3.0, secs - 0.5) if secs >= 5 else ())
        mid = {}
        marker = None

        def started(p):
            nonlocal marker
            poller.start(p)
            if secs >= 5:
                marker = self._mark_later(wl, 3.0, mid)
        try:
            m = run_measured([self.smolder, "record", "-a", "-F", str(hz), "-d", self._secs(secs),
                              "-q", "--cache-dir", self.cache, "-o", dump] + self.agent_flags(wl),
                             timeout=secs + 120,
                             stderr_path=base + ".err", on_start=started)
        finally:
            poller.stop()
            if marker:
                marker.join()
        b = wl.progress()
        r = parse_dump(dump, wl.comms, wl.entry_names)
        r.update({"cpu_s": m.cpu, "maxrss_kb": (r["agent_peak_rss"] or 0) / 1024,
                  "exec_maxrss_kb": m.maxrss_kb,
                  "wall": m.wall, "rate": rate(a, b),
                  "rate_steady": rate(mid["mid"], b) if "mid" in mid else None})
        # Steady cost within this run: CPU between 3 s in (start-up done)
        # and 0.5 s before the end, over the samples of that stretch (the
        # dump's rate: system-wide sampling runs at a fixed frequency).
        between = poller.cpu_between(3.0, secs - 0.5) if secs >= 5 else None
        if between and r.get("duration_s") and r["busy"]:
            cpu_ns, dt = between
            r["steady_us"] = cpu_ns / 1e3 / (r["busy"] / r["duration_s"] * dt)
        return r

    def perf_run(self, wl, hz, tag, noinline):
        base = os.path.join(self.out, "%s-%s" % (wl.name, tag))
        data = base + ".data"
        a = wl.progress()
        mid = {}
        marker = []
        rec = run_measured([self.perf, "record", "-F", str(hz), "-a", "--call-graph", "dwarf",
                            "-o", data, "--", "sleep", "%g" % self.seconds],
                           timeout=self.seconds + 120, stderr_path=base + ".rec.err",
                           on_start=lambda p: marker.append(self._mark_later(wl, 3.0, mid)))
        for t in marker:
            t.join()
        b = wl.progress()
        r = {"rate": rate(a, b), "rate_steady": rate(mid["mid"], b) if "mid" in mid else None,
             "record_cpu_s": rec.cpu, "record_maxrss_kb": rec.maxrss_kb,
             "data_bytes": os.path.getsize(data)}
        # perf script is not part of the workload's measured interval: the
        # workload is stopped so it does not compete for the CPU meanwhile.
        wl.pause()
        try:
            # perf script has been seen to die of a signal now and then
            # (SIGQUIT once, in 2026-11-25's run, on the same data it read
            # fine before): one more try before the whole bench fails.
            for attempt in (1, 2):
                parser = PerfScriptParser(wl.comms, wl.exe, wl.entry)
                try:
                    scr = run_measured([self.perf, "script", "-i", data, "--inline",
                                        "--show-lost-events"],
                                       timeout=1800, on_stdout=parser.feed,
                                       stderr_path=base + ".script.err")
                    break
                except RuntimeError as e:
                    if attempt == 2:
                        raise
                    log("%s; trying once more" % e)
            r.update({"script_cpu_s": scr.cpu, "script_wall": scr.wall,
                      "samples": parser.samples, "lost": parser.lost,
                      "busy": parser.samples - parser.idle,
                      "sys_user": parser.sys_user, "sys_complete": parser.sys_complete,
                      "wl_samples": parser.wl_samples, "wl_user": parser.wl_user,
                      "wl_complete": parser.wl_complete, "wl_roots": parser.wl_roots})
            if noinline:
                scr2 = run_measured([self.perf, "script", "-i", data, "--no-inline"],
                                    timeout=1800, stderr_path=base + ".script2.err")
                r["script_noinline_cpu_s"] = scr2.cpu
        finally:
            wl.resume()
            try:
                os.unlink(data)
            except OSError:
                pass
        return r

    def workloads(self):
        wd = os.path.abspath(self.args.workloads)
        src = os.path.abspath(self.args.srcdir)
        py = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
        rnd = os.urandom(64 << 20)  # the 64 MiB random "file", fed cyclically
        ws = [
            ("cpu_c", [wd + "/cpu_c"], {"cpu_c"}, None, "full"),
            # cpu_c's work under a 300-frame base (70 KiB of stack, deeper than
            # the kernel's copy): what reading the rest of a stack costs
            ("deep", [wd + "/cpu_c", "0", "300"], {"cpu_c"}, None, "full"),
            ("cpp_inline", [wd + "/cpp_inline"], {"cpp_inline"}, None, "full"),
            # the same two with --lines: a file and line per frame (the C
            # one's loop, the C++ one's inlined calls at their call sites)
            ("cpu_c_lines", [wd + "/cpu_c"], {"cpu_c"}, None, "full"),
            ("cpp_inline_lines", [wd + "/cpp_inline"], {"cpp_inline"}, None, "full"),
            ("many_200", [wd + "/many", "200"], {"many"}, None, "full"),
            ("many_20", [wd + "/many", "20"], {"many"}, None, "rss"),
            ("churn", [wd + "/churn", "200", wd + "/churn_child"], {"churn", "churn_child"}, None, "full"),
            ("xz", ["xz", "-9", "-T1", "-c"], {"xz"}, rnd, "full"),
            ("python3", [py, src + "/bench/workloads/fib.py"], {"python3", os.path.basename(py)}, None, "full"),
            ("gzip", ["gzip", "-9", "-c"], {"gzip"}, rnd, "full"),
        ]
        # a pyenv CPython 3.13 beside Debian's 3.11: the other frame layout
        # (3.12+: entry shims, 3.13: offsets from the interpreter itself)
        py313 = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.13*/bin/python3.13")))
        if py313:
            ws.append(("python313", [py313[-1], src + "/bench/workloads/fib.py"], {"python3.13"}, None, "full"))
        # and 2.7 (RHEL 7's): frame objects, one allocation each
        py27 = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/2.7*/bin/python2.7")))
        if py27:
            ws.append(("python27", [py27[-1], src + "/bench/workloads/fib.py"], {"python2.7"}, None, "full"))
        # the system's CRuby (Debian's 3.1): its reader's cost against cpu_c's
        rb = shutil.which("ruby")
        if rb:
            ws.append(("ruby", [rb, src + "/bench/workloads/fib.rb"],
                       {"ruby", os.path.basename(os.path.realpath(rb))}, None, "full"))
        else:
            log("ruby: ruby not found, workload skipped (Debian: apt-get install ruby)")
        # Debian's PHP 8.2 CLI: the Zend engine's frames over execute_ex
        php = "/usr/bin/php8.2" if os.access("/usr/bin/php8.2", os.X_OK) else "php"
        ws.append(("php", [php, src + "/bench/workloads/fib.php"], {"php", "php8.2"}, None, "full"))
        # node 20 with no flags: V8's frames named from its own metadata
        node = shutil.which("node") or shutil.which("nodejs")
        if node:
            ws.append(("node", [node, src + "/bench/workloads/fib.js"],
                       {"node", "nodejs"}, None, "full"))
        else:
            log("node: node not found, workload skipped (Debian: apt-get install nodejs)")
        # Debian's perl 5.36: subs from the context stacks over the runops loop
        ws.append(("perl", ["/usr/bin/perl", src + "/bench/workloads/fib.pl"], {"perl"}, None, "full"))
        java = self.java_workload(src)
        if java:
            ws.append(java)
        go = self.go_workload(src)
        if go:
            ws.append(go)
        # Fed once its dictionary is full and the rate has settled (bench/README
        # of this function: Workload.start).
        self.warm_bytes = {"xz": 72 << 20}
        only = [w for w in (os.environ.get("BENCH_ONLY") or "").split(",") if w]
        ws = [w for w in ws if not only or w[0] in only]
        have = []
        for w in ws:
            if os.path.isabs(w[1][0]) and os.access(w[1][0], os.X_OK) or shutil.which(w[1][0]):
                have.append(w)
            else:
                log("%s: %s not found, workload skipped (Debian: apt-get install %s)" % (
                    w[0], w[1][0], {"xz": "xz-utils"}.get(w[1][0], w[1][0])))
        return have

    def java_workload(self, src):
        """tests/workloads/JavaChain.java's chain (outer -> Middle*.run ->
        Inner*.run, compiled, default flags) on the installed JDK, driven by
        bench/workloads/JavaBench.java (the progress protocol); None without
        javac/java."""
        if not shutil.which("javac") or not shutil.which("java"):
            log("java: javac or java not found, workload skipped (Debian: apt-get install openjdk-17-jdk-headless)")
            return None
        classes = os.path.join(self.out, "java-classes")
        os.makedirs(classes, exist_ok=True)
        rc = subprocess.call(["javac", "-nowarn", "-XDignore.symbol.file", "-d", classes,
                              src + "/tests/workloads/JavaChain.java",
                              src + "/bench/workloads/JavaBench.java"],
                             stderr=subprocess.DEVNULL)
        if rc != 0:
            log("java: javac failed (%d), workload skipped" % rc)
            return None
        return ("java", ["java", "-cp", classes, "JavaBench"], {"java"}, None, "full")

    def go_workload(self, src):
        """tests/workloads/go_alloc.go (its bench mode) built as Go programs ship, stripped
        (-ldflags="-s -w": no symbols, no DWARF, no CFI), so the row is what
        the pc-line table costs: SP-delta unwinding, names and inlined
        frames from it, g0 stacks joined to their goroutines. None without
        go."""
        if not shutil.which("go"):
            log("go: go not found, workload skipped (Debian: apt-get install golang-go)")
            return None
        d = os.path.join(self.out, "go-alloc")
        os.makedirs(d, exist_ok=True)
        shutil.copy(src + "/tests/workloads/go_alloc.go", os.path.join(d, "main.go"))
        env = dict(os.environ, GO111MODULE="off", GOCACHE=os.path.join(d, "cache"),
                   GOPATH=os.path.join(d, "gopath"))
        rc = subprocess.call(["go", "build", "-ldflags=-s -w", "-o", "go_alloc", "main.go"],
                             cwd=d, env=env, stderr=subprocess.DEVNULL)
        if rc != 0:
            log("go: go build failed (%d), workload skipped" % rc)
            return None
        return ("go", [os.path.join(d, "go_alloc"), "bench"], {"go_alloc"}, None, "full")

    def one(self, spec, run):
        name, argv, comms, feed, kind = spec
        wl = Workload(name, argv, comms, feed)
        S = self.seconds
        # The 99 Hz run, the one the 1 % target is about, sits between two
        # baselines, so that a drift of the workload's own rate over the
        # phases cancels out (the reference is their mean).
        phases = [("base", lambda: self.baseline(wl)),
                  ("s99", lambda: self.smolder_run(wl, 99, S, "r%d-s99" % run)),
                  ("base2", lambda: self.baseline(wl))]
        if kind == "full":
            phases += [
                ("s99short", lambda: self.smolder_run(wl, 99, self.short, "r%d-s99short" % run)),
                ("s999", lambda: self.smolder_run(wl, 999, S, "r%d-s999" % run)),
                ("s999short", lambda: self.smolder_run(wl, 999, self.short, "r%d-s999short" % run)),
                ("p99", lambda: self.perf_run(wl, 99, "r%d-p99" % run, run == 0)),
                ("p999", lambda: self.perf_run(wl, 999, "r%d-p999" % run, run == 0)),
            ]
        if run % 2:
            phases.reverse()
        res = {"load_before": os.getloadavg()[0]}
        wl.start(self.warmup, self.warm_bytes.get(name, 0))
        try:
            if run == 0:
                self.prime(wl)
            for ph, fn in phases:
                log("%s run %d: %s" % (name, run + 1, ph))
                res[ph] = fn()
        finally:
            wl.stop()
        res["load_after"] = os.getloadavg()[0]
        return res

    def prime(self, wl):
        """A 1 s record over a workload's first instance, so that the
        measured runs find its binaries' debug files in the cache as an
        agent restarted on the host would; not measured."""
        log("%s: priming the cache" % wl.name)
        run_measured([self.smolder, "record", "-a", "-F", "99", "-d", "1", "-q",
                      "--cache-dir", self.cache, "-o", os.devnull] + self.agent_flags(wl), timeout=120,
                     stderr_path=os.path.join(self.out, "%s-prime.err" % wl.name))

    @staticmethod
    def agent_flags(wl):
        """The agent's flags a row asks for: --lines for the *_lines rows
        (their debug copies and inline trees are cached apart, so they are
        primed with the flag too)."""
        return ["--lines"] if wl.name.endswith("_lines") else []

    def startup(self, specs):
        """What one start costs: `record -a -F 99 -d 1` over the first
        workload, with an empty cache directory (a first start), with the
        one the previous start filled, and without a cache; CPU and peak
        RSS, medians of 3."""
        spec = specs[0]
        wl = Workload(spec[0], spec[1], spec[2], spec[3])
        wl.start(self.warmup, self.warm_bytes.get(spec[0], 0))
        res = {}
        try:
            for mode in ("cold", "warm", "none"):
                cpu, hwm = [], []
                for i in range(3):
                    d = os.path.join(self.out, "startup-cache")
                    if mode == "cold" or (mode == "warm" and i == 0):
                        shutil.rmtree(d, ignore_errors=True)
                    if mode == "warm" and i == 0:
                        run_measured([self.smolder, "record", "-a", "-d", "1", "-q",
                                      "--cache-dir", d, "-o", os.devnull], timeout=60)
                    dump = os.path.join(self.out, "startup-%s.json" % mode)
                    m = run_measured([self.smolder, "record", "-a", "-F", "99", "-d", "1", "-q"] +
                                     (["--no-cache"] if mode == "none" else ["--cache-dir", d]) +
                                     ["-o", dump], timeout=60)
                    cpu.append(m.cpu * 1e3)
                    with open(dump) as f:
                        hwm.append(json.load(f)["stats"].get("agent_peak_rss_bytes", 0) / 2**20)
                res[mode] = {"cpu_ms": med(cpu), "rss_mb": med(hwm), "workload": spec[0]}
        finally:
            wl.stop()
        log("start-up: " + ", ".join("%s %.0f ms %.1f MB" % (k, v["cpu_ms"], v["rss_mb"])
                                     for k, v in res.items()))
        return res

    def offcpu(self):
        """The off-cpu event's cost on a host that switches 10^5 times a
        second (bench/workloads/pingpong.c paced at 50,000 round trips a
        second, two switch-outs each): `record -a --event off-cpu -F 99`
        for BENCH_SECONDS, 3 times; the agent's CPU as a share of one CPU,
        over the whole run and in its steady state (the dump's agent CPU
        less its one-off loading, over the window), the switches a second
        its dumps counted, records lost, and the ping-pong's rate against
        its rate alone (medians)."""
        wd = os.path.abspath(self.args.workloads)
        wl = Workload("pingpong", [wd + "/pingpong", "50000"], {"pingpong"})
        wl.start(self.warmup)
        rows = []
        try:
            for i in range(3):
                base = self.baseline(wl)["rate"]
                a = wl.progress()
                dump = os.path.join(self.out, "offcpu-%d.json" % i)
                m = run_measured([self.smolder, "record", "-a", "--event", "off-cpu", "-F", "99",
                                  "-d", self._secs(self.seconds), "-q", "--cache-dir", self.cache,
                                  "-o", dump], timeout=self.seconds + 120)
                b = wl.progress()
                with open(dump) as f:
                    d = json.load(f)
                st = d["stats"]
                span = (d["window"]["end_ns"] - d["window"]["start_ns"]) / 1e9
                steady = (st.get("agent_cpu_ns", 0) - st.get("agent_load_cpu_ns", 0)) / 1e9
                rows.append({"agent_pct": m.cpu / m.wall * 100 if m.wall else None,
                             "steady_pct": steady / span * 100 if span > 0 else None,
                             "switches_per_s": st.get("off_cpu_switches", 0) / self.seconds,
                             "lost": st.get("lost", 0), "exact_ns": st.get("off_cpu_ns", 0),
                             "given_ns": st.get("off_cpu_weighted_ns", 0),
                             "rate_loss_pct": (1 - rate(a, b) / base) * 100 if base else None})
        finally:
            wl.stop()
        res = {k: med([r[k] for r in rows if r[k] is not None]) for k in rows[0]}
        res["lost"] = max(r["lost"] for r in rows)
        log("off-cpu: %.0f switches/s, agent %.2f %% of a CPU (steady %.2f %%), lost %d" % (
            res["switches_per_s"], res["agent_pct"], res["steady_pct"], res["lost"]))
        return res

    def preflight(self):
        if not (os.access(self.perf, os.X_OK) or shutil.which(self.perf)):
            raise RuntimeError("perf not found at %s (Debian: apt-get install linux-perf; "
                               "or set PERF=...)" % self.perf)
        if os.geteuid() != 0:
            log("not root: system-wide sampling needs root, CAP_PERFMON or "
                "perf_event_paranoid <= 0 (run `sudo make bench`)")

    def main(self):
        self.preflight()
        specs = self.workloads()
        results = {s[0]: [] for s in specs}
        t0 = time.time()
        info = machine(self.perf, self.smolder)
        if specs:
            info["startup"] = self.startup(specs)
        only = [w for w in (os.environ.get("BENCH_ONLY") or "").split(",") if w]
        if not only or "offcpu" in only:
            info["offcpu"] = self.offcpu()
        for run in range(self.runs):
            for spec in specs:
                results[spec[0]].append(self.one(spec, run))
                with open(os.path.join(self.out, "results.json"), "w") as f:
                    json.dump({"info": info, "results": results}, f, indent=1)
        info["elapsed_s"] = time.time() - t0
        info["load_end"] = os.getloadavg()
        rep = Report(info, results, self)
        text = rep.render()
        print(text)
        path = write_doc(self.args.doc, "bench", rep.render_current(log_link(info["date"])),
                         text, info["date"])
        log("results in %s/results.json; run added to %s, current results to %s" % (
            self.out, path, self.args.doc))

    def report_only(self, path):
        with open(path) as f:
            saved = json.load(f)
        info, results = saved["info"], saved["results"]
        results = {k: v for k, v in results.items() if v}
        info.setdefault("load_end", os.getloadavg())
        done = {k: len(v) for k, v in results.items()}
        rep = Report(info, results, self)
        text, current = rep.render(), rep.render_current(log_link(info["date"]))
        if len(set(done.values())) > 1 or self.runs < int(os.environ.get("BENCH_RUNS") or 3):
            note = ("\n\n**Interrupted run**: runs completed per workload: %s; medians are "
                    "over those.\n\n" % ", ".join("%s %d" % kv for kv in done.items()))
            text = text.replace("\n\n", note, 1)
            current = current.replace("\n\n", note, 1)
        print(text)
        write_doc(self.args.doc, "bench", current, text, info["date"])

    def churn(self):
        """The always-on daemon (`smolder run`, 10 s windows, dumps kept in
        a spool) over the churn workload for BENCH_CHURN_MINUTES: its RSS at
        the end of each window (stats.agent_rss_bytes of the dumps: nothing
        polls the agent), RSS at 1/5 of the run against RSS at the end."""
        import gzip
        minutes = float(os.environ.get("BENCH_CHURN_MINUTES") or 5)
        if self.quick:
            minutes = 1.0
        secs = minutes * 60
        early = secs / 5
        wd = os.path.abspath(self.args.workloads)
        info = machine(self.perf, self.smolder)
        spool = os.path.join(self.out, "churn-spool")
        shutil.rmtree(spool, ignore_errors=True)
        os.makedirs(spool, mode=0o700)
        conf = os.path.join(self.out, "churn.conf")
        with open(conf, "w") as f:
            f.write("# make bench-churn\n")
        wl = Workload("churn", [wd + "/churn", "200", wd + "/churn_child"], {"churn", "churn_child"})
        wl.start(self.warmup)
        rss = []  # (seconds since start, RSS kB at the end of a window)
        started = []

        def stop_later(p):
            started.append(time.time_ns())

            def stop():
                deadline = time.monotonic() + secs
                while p.poll() is None and time.monotonic() < deadline:
                    time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
                if p.poll() is None:
                    _kill_group(p, signal.SIGTERM)  # flush the last window, exit
            threading.Thread(target=stop, daemon=True).start()

        argv = [self.smolder, "run", "-c", conf, "-F", "99", "--interval", "10s",
                "--export", "none", "--spool-dir", spool]
        try:
            a = wl.progress()
            m = run_measured(argv, timeout=secs + 120,
                             stderr_path=os.path.join(self.out, "churn-run.err"),
                             on_start=stop_later)
            b = wl.progress()
        finally:
            wl.stop()
        tot = {"samples": 0, "lost": 0, "windows": 0}
        procs = bins = None
        peak = 0
        for name in sorted(os.listdir(spool)):
            if not name.endswith(".json.gz"):
                continue
            with gzip.open(os.path.join(spool, name), "rt") as f:
                dump = json.load(f)
            st = dump["stats"]
            if started and st.get("agent_rss_bytes"):
                rss.append(((dump["window"]["end_ns"] - started[0]) / 1e9, st["agent_rss_bytes"] / 1024))
            peak = max(peak, st.get("agent_peak_rss_bytes", 0) / 1024)
            tot["samples"] += st["samples"]
            tot["lost"] += st["lost"]
            tot["windows"] += 1
            procs, bins = st.get("processes"), st.get("binaries")

        def at(t):
            c = [kb for (x, kb) in rss if x <= t]
            return c[-1] if c else None

        r_early, r_end = at(early), (rss[-1][1] if rss else None)
        marks = [(int(round(secs * k / 5)), at(secs * k / 5)) for k in range(1, 5)]
        marks.append((int(round(rss[-1][0])) if rss else int(secs), r_end))
        ratio = r_end / r_early if r_early and r_end else None
        lines = [
            "## %s — make bench-churn" % info["date"],
            "",
            "Command: `make bench-churn BENCH_CHURN_MINUTES=%g%s` (as root): the always-on "
            "daemon, `smolder run -F 99 --interval 10s --export none --spool-dir DIR`, "
            "for %g s over the churn workload (200 fork+exec per second of a small "
            "dynamically linked program, on top of whatever else runs on the host), "
            "its RSS at the end of each window read from the dumps (nothing polls the "
            "agent)." % (
                minutes, " BENCH_QUICK=1" if self.quick else "", secs),
            "",
            machine_line(info) + " Load average at the end: %s." % (
                " ".join("%.2f" % x for x in os.getloadavg())),
            "",
            "| elapsed | " + " | ".join("%d s" % t for t, _ in marks) + " |",
            "|---|" + "---|" * len(marks),
            "| smolder RSS (MB) | " + " | ".join(
                fmt(kb / 1024 if kb else None, 1) for _, kb in marks) + " |",
            "",
            "RSS after %g s: %s MB, at the end: %s MB, ratio **%s** (target ≤ 1.2: %s); "
            "peak RSS (VmHWM) %s MB; %d windows, %d samples, %d lost; at the end %s processes and "
            "%s binaries known; agent CPU %.2f s = %s µs/sample; workload %.1f processes/s." % (
                early, fmt(r_early / 1024 if r_early else None, 1),
                fmt(r_end / 1024 if r_end else None, 1), fmt(ratio, 2),
                "met" if ratio and ratio <= 1.2 else "MISSED",
                fmt(peak / 1024 if peak else None, 1), tot["windows"], tot["samples"], tot["lost"],
                procs, bins, m.cpu,
                fmt(m.cpu / tot["samples"] * 1e6 if tot["samples"] else None, 1),
                rate(a, b) or 0),
            "",
        ]
        text = "\n".join(lines)
        print(text)
        with open(os.path.join(self.out, "churn-long.rss.json"), "w") as f:
            json.dump({"rss": rss, "cpu_s": m.cpu, "maxrss_kb": m.maxrss_kb, "totals": tot}, f)
        write_doc(self.args.doc, "churn", summary_of(lines, "make bench-churn", info["date"]),
                  text, info["date"])


# --- machine, report, doc -------------------------------------------------------

def machine(perf, smolder):
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) / (1 << 20)
    except OSError:
        mem = 0
    osname = ""
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass

    def version(argv):
        try:
            return subprocess.run(argv, capture_output=True, timeout=10,
                                  text=True).stdout.strip().splitlines()[0]
        except (OSError, subprocess.SubprocessError, IndexError):
            return "?"

    return {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "cpu": cpu, "ncpu": os.cpu_count(), "kernel": platform.release(),
        "mem_gib": mem, "os": osname, "perf": version([perf, "--version"]),
        "load_start": os.getloadavg(),
        "python": platform.python_version(),
    }


def machine_line(info):
    return ("Machine: %s × %d, %.0f GiB, %s, kernel %s; %s; load average at start %s." % (
        info["cpu"], info["ncpu"], info["mem_gib"], info["os"], info["kernel"], info["perf"],
        " ".join("%.2f" % x for x in info["load_start"])))


def b_secs(b):
    return b.seconds


def fmt(x, nd=1, pct=False):
    if x is None:
        return "–"
    s = "%.*f" % (nd, x)
    return s + (" %" if pct else "")


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


class Report:
    def __init__(self, info, results, bench):
        self.info = info
        self.res = results
        self.b = bench

    def per_run(self, name, fn):
        out = []
        for r in self.res[name]:
            try:
                out.append(fn(r))
            except (KeyError, TypeError, ZeroDivisionError):
                out.append(None)
        return out

    @staticmethod
    def alone(r):
        """The workload's rate without a profiler: the mean of the baselines
        before and after the 99 Hz run (only the first in older results)."""
        if r.get("base2", {}).get("rate"):
            return (r["base"]["rate"] + r["base2"]["rate"]) / 2
        return r["base"]["rate"]

    @staticmethod
    def aa_noise(r):
        """How much the rate moves with nothing changed: the two baselines'
        difference, or the larger difference between the halves of one
        baseline, whichever is larger (in % of the rate)."""
        xs = [r["base"].get("aa_noise_pct")]
        b2 = r.get("base2")
        if b2 and b2.get("rate"):
            a, b = r["base"]["rate"], b2["rate"]
            xs += [b2.get("aa_noise_pct"), abs(a - b) / ((a + b) / 2) * 100]
        xs = [x for x in xs if x is not None]
        return max(xs) if xs else None

    def smolder_us(self, r, hz):
        s = r["s%d" % hz]
        return s["cpu_s"] / s.get("busy", s["samples"]) * 1e6

    def steady_us(self, r, hz):
        l = r["s%d" % hz]
        if l.get("steady_us") is not None:
            return l["steady_us"]
        s = r["s%dshort" % hz]  # results of older harness versions
        return (l["cpu_s"] - s["cpu_s"]) / (l["samples"] - s["samples"]) * 1e6

    def perf_us(self, r, hz, inline=True):
        p = r["p%d" % hz]
        script = p["script_cpu_s"] if inline else p["script_noinline_cpu_s"]
        return (p["record_cpu_s"] + script) / p.get("busy", p["samples"]) * 1e6

    def render(self):
        """The full section of a run, as appended to the day's bench log."""
        L = ["## %s — make bench" % self.info["date"], ""]
        L += self.head()
        L.append("Per workload and frequency: smolder `record -a -F HZ -d %g -q -o dump.json` and "
                 "`perf record -F HZ -a --call-graph dwarf -- sleep %g` + `perf script --inline`, "
                 "on the same running workload, the order of the phases reversed every other run."
                 % (self.b.seconds, self.b.seconds))
        L.append("")
        L += self.main_table()
        L.append("Workload throughput (work units/s; xz and gzip: input bytes/s) alone and "
                 "while being profiled; overhead = 1 − profiled/alone, \"alone\" being the "
                 "mean of the two baselines measured just before and just after the 99 Hz "
                 "run (so that a drift of the workload's own rate cancels), median "
                 "[min, max] over runs. \"Steady\": the rate from 3 s into the "
                 "profiler's run to its end, i.e. without its start-up (what an always-on "
                 "agent costs). A/A noise = how much the rate moves with nothing changed: "
                 "the larger of the two baselines' difference and the difference between "
                 "the halves of one baseline.")
        L.append("")
        L += self.throughput_table()
        L += self.noinline()
        L += self.targets()
        L += self.self_profile()
        return "\n".join(L) + "\n"

    def render_current(self, link):
        """The run's entry in the current results of doc/benchmarks.md: the
        same command, machine, tables and verdicts as render(), without the
        explanations that page's method section gives once, and a link to
        the full section in the bench log."""
        L = ["### `make bench`: %s" % self.info["date"], ""]
        head = self.head()
        head[0] += " Full run: [%s](%s)." % (link, link)
        L += head
        L += self.main_table()
        L += self.throughput_table()
        L += self.targets()
        return "\n".join(L) + "\n"

    def head(self):
        """Command, machine and start-up paragraphs, each followed by a blank line."""
        b = self.b
        info = self.info
        L = []
        cmd = "make bench BENCH_SECONDS=%g BENCH_RUNS=%d" % (b.seconds, b.runs)
        if b.quick:
            cmd = "make bench BENCH_QUICK=1"
        if os.environ.get("BENCH_ONLY"):
            cmd += " BENCH_ONLY=" + os.environ["BENCH_ONLY"]
        L.append("Command: `%s` (as root, in a build tree of this source; driver "
                 "`bench/run.py`). %d run(s) of %g s per measurement; medians; ratios are "
                 "computed within a run, then their median taken.%s" % (
                     cmd, b.runs, b.seconds,
                     " Took %.0f min." % (info["elapsed_s"] / 60) if "elapsed_s" in info else ""))
        L.append("")
        loads = [r[k] for v in self.res.values() for r in v
                 for k in ("load_before", "load_after") if k in r]
        L.append(machine_line(info) + " Load average at the end: %s; 1-min load average "
                 "around the workloads' runs: %s–%s (other jobs share this machine)." % (
                     " ".join("%.2f" % x for x in info.get("load_end", ())),
                     fmt(min(loads) if loads else None), fmt(max(loads) if loads else None)))
        L.append("")
        su = info.get("startup")
        if su:
            L.append("Start-up (`record -a -F 99 -d 1` over %s, whole-run CPU and peak RSS, "
                     "medians of 3): first start (empty `--cache-dir`) %.0f ms, %.1f MB; a later "
                     "start (the cache the previous one filled) %.0f ms, %.1f MB; `--no-cache` "
                     "%.0f ms, %.1f MB. The measured runs below share one cache directory, "
                     "primed by an unmeasured 1 s run over each workload (as a host's "
                     "agent finds it after its first start)." % (
                         su["cold"]["workload"], su["cold"]["cpu_ms"], su["cold"]["rss_mb"],
                         su["warm"]["cpu_ms"], su["warm"]["rss_mb"],
                         su["none"]["cpu_ms"], su["none"]["rss_mb"]))
            L.append("")
        oc = info.get("offcpu")
        if oc:
            L.append("Off-CPU (`record -a --event off-cpu -F 99` for the run's seconds over a "
                     "ping-pong pair of threads paced at 50,000 round trips a second, "
                     "bench/workloads/pingpong.c; medians of 3): %.0f context switches a "
                     "second; the agent %.2f %% of one CPU over the whole run (start-up "
                     "included), %s %% in its steady state (the dump's agent CPU less one-off "
                     "loading, over the window; %s %% per 100,000 switches a second); %d records "
                     "lost; the ping-pong %s %% slower than alone; the profiles were given %.1f %% "
                     "of the waits' exact time." % (
                         oc["switches_per_s"], oc["agent_pct"], fmt(oc.get("steady_pct"), 2),
                         fmt(oc["steady_pct"] * 1e5 / oc["switches_per_s"], 2)
                         if oc.get("steady_pct") is not None and oc["switches_per_s"] else "-",
                         oc["lost"], fmt(oc.get("rate_loss_pct")),
                         100.0 * oc["given_ns"] / oc["exact_ns"] if oc.get("exact_ns") else 0))
            L.append("")
        return L

    def main_table(self):
        """Cost, losses, RSS and completeness per workload and frequency."""
        L = []
        hdr = ("| workload | Hz | samples | lost | smolder µs/sample (incl. start-up) | "
               "steady µs/sample | perf µs/sample (record + script --inline) | perf / smolder | "
               "smolder peak RSS MB | complete smolder | complete perf |")
        L.append(hdr)
        L.append("|" + "---|" * (hdr.count("|") - 1))
        for name in self.res:
            for hz in (99, 999):
                key = "s%d" % hz
                if not self.res[name] or key not in self.res[name][0]:
                    continue
                samples = med(self.per_run(name, lambda r: r[key]["samples"]))
                lost = med(self.per_run(name, lambda r: r[key]["lost"] / (r[key]["samples"] + r[key]["lost"]) * 100))
                plost = med(self.per_run(name, lambda r: r["p%d" % hz]["lost"]))
                su = med(self.per_run(name, lambda r: self.smolder_us(r, hz)))
                st = med(self.per_run(name, lambda r: self.steady_us(r, hz)))
                pu = med(self.per_run(name, lambda r: self.perf_us(r, hz)))
                ratio = med(self.per_run(name, lambda r: self.perf_us(r, hz) / self.smolder_us(r, hz)))
                rss = med(self.per_run(name, lambda r: r[key]["maxrss_kb"] / 1024))
                cs = med(self.per_run(name, lambda r: r[key]["wl_complete"] / r[key]["wl_user"] * 100))
                cp = med(self.per_run(name, lambda r: r["p%d" % hz]["wl_complete"] / r["p%d" % hz]["wl_user"] * 100))
                psamp = med(self.per_run(name, lambda r: r["p%d" % hz]["samples"]))
                L.append("| %s | %d | %s%s | %s%s | %s | %s | %s | %s | %s | %s | %s |" % (
                    name, hz, fmt(samples, 0), " (perf %s)" % fmt(psamp, 0) if psamp else "",
                    fmt(lost, 2, True), " (perf %s)" % fmt(plost, 0) if plost is not None else "",
                    fmt(su, 1), fmt(st, 1), fmt(pu, 1), fmt(ratio, 1), fmt(rss, 1),
                    fmt(cs, 2, True), fmt(cp, 2, True)))
        L.append("")
        return L

    def throughput_table(self):
        """Each workload's rate alone and its overhead under each profiler."""
        L = []
        L.append("| workload | alone | smolder 99 Hz overhead | smolder 99 Hz, steady | "
                 "smolder 999 Hz overhead | perf 99 Hz overhead | perf 99 Hz, steady | "
                 "perf 999 Hz overhead | A/A noise |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        for name in self.res:
            base = med(self.per_run(name, self.alone))
            cells = []
            for key, field in (("s99", "rate"), ("s99", "rate_steady"), ("s999", "rate"),
                               ("p99", "rate"), ("p99", "rate_steady"), ("p999", "rate")):
                ov = [x for x in self.per_run(
                    name, lambda r: (1 - r[key][field] / self.alone(r)) * 100
                    if r[key].get(field) else None) if x is not None]
                cells.append("%s [%s, %s]" % (fmt(med(ov), 2, True), fmt(min(ov), 2), fmt(max(ov), 2))
                             if ov else "–")
            aa = med(self.per_run(name, self.aa_noise))
            L.append("| %s | %s | %s | %s |" % (name, fmt(base, 0), " | ".join(cells), fmt(aa, 2, True)))
        L.append("")
        return L

    def noinline(self):
        """perf's cost without and with inline frames, from the first run."""
        noinl = []
        for name in self.res:
            for hz in (99, 999):
                x = self.per_run(name, lambda r: self.perf_us(r, hz, inline=False))[0] if self.res[name] else None
                y = self.per_run(name, lambda r: self.perf_us(r, hz))[0] if self.res[name] else None
                if x is not None:
                    noinl.append("%s %d Hz %s → %s" % (name, hz, fmt(x, 1), fmt(y, 1)))
        if not noinl:
            return []
        return ["perf µs/sample without inline frames (`perf script --no-inline`) → with "
                "them, first run: " + "; ".join(noinl) + ".", ""]

    def targets(self):
        L = ["Targets (medians):", ""]
        cworkloads = [n for n in ("cpu_c", "deep", "cpp_inline", "many_200", "many_20", "churn", "xz") if n in self.res]
        for name in self.res:
            if not self.res[name] or "p99" not in self.res[name][0]:
                continue
            for hz in (99, 999):
                ratio = med(self.per_run(name, lambda r: self.perf_us(r, hz) / self.smolder_us(r, hz)))
                L.append("- %s %d Hz: perf/smolder CPU per sample %s (target ≥ 20: %s)" % (
                    name, hz, fmt(ratio, 1), "met" if ratio and ratio >= 20 else "MISSED"))
            us = med(self.per_run(name, lambda r: self.smolder_us(r, 99)))
            st = med(self.per_run(name, lambda r: self.steady_us(r, 99)))
            # A daemon pays start-up once (kallsyms, the first binaries'
            # symbols and debug info); the per-sample cost it keeps paying
            # is the steady one, judged here. Both are shown.
            L.append("- %s 99 Hz: agent CPU %s µs/sample steady, %s incl. the start-up of a "
                     "%g s run (target ≤ 15, steady: %s)" % (
                         name, fmt(st, 1), fmt(us, 1), b_secs(self.b),
                         "met" if st is not None and st <= 15 else "MISSED"))
        # A reader's cost per sample against C's on the same host and run:
        # the Ruby reader's target is within 2x cpu_c's (steady), and its
        # peak RSS within cpu_c's range over the runs.
        if "ruby" in self.res and "cpu_c" in self.res:
            for hz in (99, 999):
                rs = med(self.per_run("ruby", lambda r: self.steady_us(r, hz)))
                cs = med(self.per_run("cpu_c", lambda r: self.steady_us(r, hz)))
                if rs is not None and cs:
                    L.append("- ruby %d Hz: agent CPU %s µs/sample steady, %s× cpu_c's %s (target ≤ 2×: %s)" % (
                        hz, fmt(rs, 1), fmt(rs / cs, 2), fmt(cs, 1), "met" if rs <= 2 * cs else "MISSED"))
            rr = [x for x in self.per_run("ruby", lambda r: r["s99"]["maxrss_kb"] / 1024) if x]
            cr = [x for x in self.per_run("cpu_c", lambda r: r["s99"]["maxrss_kb"] / 1024) if x]
            if rr and cr:
                L.append("- ruby 99 Hz: peak RSS %s MB, cpu_c's %s–%s MB (target within: %s)" % (
                    fmt(med(rr), 1), fmt(min(cr), 1), fmt(max(cr), 1),
                    "met" if med(rr) <= max(cr) * 1.05 else "MISSED"))
        # --lines against the same workload without: the target is within
        # 10 % of its steady cost per sample
        for name in [n for n in self.res if n.endswith("_lines") and n[:-6] in self.res]:
            for hz in (99, 999):
                ls = med(self.per_run(name, lambda r: self.steady_us(r, hz)))
                bs = med(self.per_run(name[:-6], lambda r: self.steady_us(r, hz)))
                if ls is not None and bs:
                    L.append("- %s %d Hz: agent CPU %s µs/sample steady, %s× %s's %s (target ≤ 1.1×: %s)" % (
                        name, hz, fmt(ls, 1), fmt(ls / bs, 2), name[:-6], fmt(bs, 1),
                        "met" if ls <= 1.1 * bs else "MISSED"))
        if "many_200" in self.res and "many_20" in self.res:
            r200 = med(self.per_run("many_200", lambda r: r["s99"]["maxrss_kb"] / 1024))
            r20 = med(self.per_run("many_20", lambda r: r["s99"]["maxrss_kb"] / 1024))
            if r200 and r20:
                L.append("- peak RSS with 200 processes %s MB (target ≤ 30: %s); vs 20 processes "
                         "%s MB: %+.1f %% (target < 5 %%: %s)" % (
                             fmt(r200, 1), "met" if r200 <= 30 else "MISSED", fmt(r20, 1),
                             (r200 / r20 - 1) * 100, "met" if r200 / r20 < 1.05 else "MISSED"))
        for name in self.res:
            lost = med(self.per_run(name, lambda r: r["s99"]["lost"] / (r["s99"]["samples"] + r["s99"]["lost"]) * 100))
            if lost is not None and lost > 0.1:
                L.append("- %s: lost %.2f %% at 99 Hz (target ≤ 0.1 %%: MISSED)" % (name, lost))
        L.append("- lost at 99 Hz ≤ 0.1 %% on: %s" % ", ".join(
            n for n in self.res if (med(self.per_run(n, lambda r: r["s99"]["lost"] / (r["s99"]["samples"] + r["s99"]["lost"]) * 100)) or 0) <= 0.1))
        for name in self.res:
            for hz in (99, 999):
                cs = med(self.per_run(name, lambda r: r["s%d" % hz]["wl_complete"] / r["s%d" % hz]["wl_user"] * 100))
                cp = med(self.per_run(name, lambda r: r["p%d" % hz]["wl_complete"] / r["p%d" % hz]["wl_user"] * 100))
                if cs is None:
                    continue
                need = 99.0 if name in cworkloads else None
                ok = (need is None or cs >= need) and (cp is None or cs >= cp)
                L.append("- %s %d Hz: complete %s (perf %s)%s: %s" % (
                    name, hz, fmt(cs, 2, True), fmt(cp, 2, True),
                    " (target ≥ 99 % and ≥ perf)" if need else " (target ≥ perf)",
                    "met" if ok else "MISSED"))
        for name in self.res:
            ov = med(self.per_run(name, lambda r: (1 - r["s99"]["rate"] / self.alone(r)) * 100))
            ovs = med(self.per_run(name, lambda r: (1 - r["s99"]["rate_steady"] / self.alone(r)) * 100
                                   if r["s99"].get("rate_steady") else None))
            aa = med(self.per_run(name, self.aa_noise))
            # Judged on the steady stretch (an always-on agent pays its
            # start-up once), both shown. An overhead within the A/A noise
            # (the rate moving with nothing changed) cannot be told from zero.
            judged = ovs if ovs is not None else ov
            if judged is None:
                verdict = "MISSED"
            elif judged <= 1:
                verdict = "met"
            elif aa is not None and judged <= aa:
                verdict = "not distinguishable from noise (A/A %s)" % fmt(aa, 2, True)
            else:
                verdict = "MISSED"
            L.append("- %s: throughput loss at 99 Hz %s steady, %s incl. start-up (target ≤ 1 %%, "
                     "%s: %s)" % (name, fmt(ovs, 2, True), fmt(ov, 2, True),
                                   "steady" if ovs is not None else "incl. start-up", verdict))
        L.append("")
        # Where incomplete stacks stop (root frames), all runs.
        roots = {}
        for name in self.res:
            for r in self.res[name]:
                for key in ("s99", "s999"):
                    if key in r:
                        for k, v in r[key]["wl_roots"].items():
                            roots.setdefault(name, {}).setdefault(k, 0)
                            roots[name][k] += v
        if roots:
            L.append("Outermost frames of smolder's incomplete stacks (all runs): " + "; ".join(
                "%s: %s" % (n, ", ".join("%s ×%d" % kv for kv in sorted(d.items(), key=lambda kv: -kv[1])[:4]))
                for n, d in roots.items()) + ".")
            L.append("")
        return L

    def self_profile(self):
        tot = {}
        for name in self.res:
            for r in self.res[name]:
                for key in ("s99", "s999"):
                    for k, v in r.get(key, {}).get("self", {}).items():
                        tot[k] = tot.get(k, 0) + v
        n = tot.pop("<total>", 0)
        if not n:
            return []
        top = sorted(tot.items(), key=lambda kv: -kv[1])
        skip = {"_start", "__libc_start_main", "__libc_start_call_main", "main", "record_cmd__main"}
        top = [kv for kv in top if kv[0] not in skip][:15]
        return ["smolder's own samples in its system-wide dumps (self-profile, all runs, %d "
                "samples), inclusive share per function: " % n + ", ".join(
                    "%s %.0f %%" % (k, v * 100.0 / n) for k, v in top) + ".", ""]


# --- doc/benchmarks.md and the bench log ------------------------------------
#
# A run leaves two traces: its full section, appended to the log of its day
# (doc/bench-log/YYYY-MM-DD.md), and a summary that replaces the previous
# run of the same kind in doc/benchmarks.md's current results, between that
# kind's two marker lines. Nothing else of doc/benchmarks.md is touched.

MARKERS = {
    "bench": ("<!-- bench:current:begin -->", "<!-- bench:current:end -->"),
    "monolith": ("<!-- bench:monolith:begin -->", "<!-- bench:monolith:end -->"),
    "churn": ("<!-- bench:churn:begin -->", "<!-- bench:churn:end -->"),
}

LOG_INTRO = ("Runs of `make bench`, `make bench-monolith` and `make bench-churn` on this "
             "day, oldest first, as bench/run.py and bench/monolith.py wrote them; the "
             "latest of each kind is also in [../benchmarks.md](../benchmarks.md).")


def log_link(date):
    """The day's bench log of a run started at date ("YYYY-MM-DD HH:MM"),
    relative to doc/benchmarks.md."""
    return "bench-log/%s.md" % date[:10]


def summary_of(lines, title, date):
    """The current-results entry of a short section (its lines: the "## "
    heading first, the "Command:" paragraph third): the same text under a
    "### `title`: date" heading, with a link to the day's log."""
    link = log_link(date)
    cur = ["### `%s`: %s" % (title, date)] + list(lines[1:])
    if not cur[2].startswith("Command:"):
        raise ValueError("no Command: line where expected: %r" % cur[2][:40])
    cur[2] += " Full run: [%s](%s)." % (link, link)
    return "\n".join(cur)


def _replace_file(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def append_log(doc, date, section):
    """Appends section to the bench log of date's day, beside doc (made,
    with its header, if it is the day's first run). Returns its path."""
    path = os.path.join(os.path.dirname(os.path.abspath(doc)), log_link(date))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path) as f:
            old = f.read()
    except FileNotFoundError:
        old = "# Benchmark runs of %s\n\n%s\n" % (date[:10], LOG_INTRO)
    _replace_file(path, old.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n")
    return path


def replace_current(doc, kind, block):
    """Puts block between the marker lines of kind in doc, replacing what
    was between them; a page without them gets them, with block, at its
    end. Raises RuntimeError when the markers are not one ordered pair."""
    begin, end = MARKERS[kind]
    try:
        with open(doc) as f:
            old = f.read()
    except FileNotFoundError:
        old = "# Benchmarks\n"
    # a marker is a line of its own (the page may quote it in its text)
    bs = [m.end() for m in re.finditer("^%s$" % re.escape(begin), old, re.M)]
    es = [m.start() for m in re.finditer("^%s$" % re.escape(end), old, re.M)]
    body = block.strip("\n") + "\n"
    if not bs and not es:
        new = old.rstrip("\n") + "\n\n" + begin + "\n" + body + end + "\n"
    elif len(bs) != 1 or len(es) != 1 or es[0] < bs[0]:
        raise RuntimeError("%s: the lines %s and %s are not one pair in that order; "
                           "the current results were not updated" % (doc, begin, end))
    else:
        new = old[:bs[0]] + "\n" + body + old[es[0]:]
    _replace_file(doc, new)


def write_doc(doc, kind, current, section, date):
    """Records a run of kind ("bench", "monolith" or "churn") started at
    date: section, in full, is appended to the day's bench log first (so
    that a damaged page loses no run), then current replaces the previous
    run of that kind in doc's current results. Returns the log's path."""
    path = append_log(doc, date, section)
    replace_current(doc, kind, current)
    return path


def selftest():
    """Renders a made-up run of two workloads and records it, twice, in a
    temporary copy of a page with markers; checks what changed. No root,
    perf or smolder needed: `python3 bench/run.py --selftest`."""
    import tempfile
    import types

    def side(samples, cpu_s, hz):
        return {"samples": samples, "lost": 0, "cpu_s": cpu_s, "steady_us": cpu_s / samples * 5e5,
                "maxrss_kb": 9000 + hz, "wl_complete": 99, "wl_user": 100,
                "rate": 990.0, "rate_steady": 995.0, "wl_roots": {"[truncated]": 1},
                "self": {"<total>": 10, "sampler__poll": 9}}

    def perf(samples):
        return {"samples": samples, "lost": 0, "record_cpu_s": 0.2, "script_cpu_s": 0.4,
                "script_noinline_cpu_s": 0.3, "wl_complete": 98, "wl_user": 100,
                "rate": 980.0, "rate_steady": 985.0}

    def one():
        return {"load_before": 1.0, "load_after": 1.2,
                "base": {"rate": 1000.0, "aa_noise_pct": 0.5},
                "base2": {"rate": 1002.0, "aa_noise_pct": 0.4},
                "s99": side(1980, 0.02, 99), "s999": side(19900, 0.06, 999),
                "p99": perf(1978), "p999": perf(19950)}

    info = {"date": "2031-02-03 04:05", "cpu": "Test CPU", "ncpu": 2, "kernel": "6.1",
            "mem_gib": 8.0, "os": "Test OS", "perf": "perf version 6.1", "python": "3",
            "load_start": (1.0, 1.0, 1.0), "load_end": (1.1, 1.1, 1.1), "elapsed_s": 600,
            "startup": {k: {"workload": "cpu_c", "cpu_ms": 50.0, "rss_mb": 10.0}
                        for k in ("cold", "warm", "none")}}
    results = {"cpu_c": [one(), one(), one()], "python3": [one(), one(), one()]}
    bench = types.SimpleNamespace(seconds=10.0, runs=3, quick=False)
    rep = Report(info, results, bench)
    section, current = rep.render(), rep.render_current(log_link(info["date"]))
    outside = ["# Benchmarks", "", "Intro kept; it may quote `%s`." % MARKERS["bench"][0], ""]
    with tempfile.TemporaryDirectory() as d:
        doc = os.path.join(d, "benchmarks.md")
        page = "\n".join(outside + [MARKERS["bench"][0], "old run", MARKERS["bench"][1], "",
                                     "Tail kept.", ""])
        with open(doc, "w") as f:
            f.write(page)
        for _ in range(2):
            path = write_doc(doc, "bench", current, section, info["date"])
        with open(doc) as f:
            new = f.read()
        with open(path) as f:
            logged = f.read()
        assert path == os.path.join(d, "bench-log", "2031-02-03.md"), path
        assert new.startswith("\n".join(outside)) and new.endswith("\nTail kept.\n"), new
        assert "old run" not in new and new.count("### `make bench`: 2031-02-03 04:05") == 1, new
        assert "[bench-log/2031-02-03.md](bench-log/2031-02-03.md)" in new, new
        assert "| cpu_c | 99 | 1980 (perf 1978) |" in new and "Targets (medians):" in new, new
        assert logged.startswith("# Benchmark runs of 2031-02-03\n"), logged
        assert logged.count("## 2031-02-03 04:05 — make bench\n") == 2, logged
        # a page without the churn block gets it at its end
        write_doc(doc, "churn", "### churn now\n", "## 2031-02-03 04:05 — make bench-churn\n",
                  info["date"])
        with open(doc) as f:
            new2 = f.read()
        assert new2.startswith(new.rstrip("\n")) and new2.endswith(
            MARKERS["churn"][0] + "\n### churn now\n" + MARKERS["churn"][1] + "\n"), new2
        # markers out of order: the log still gets the run, the page is left alone
        with open(doc, "w") as f:
            f.write(MARKERS["bench"][1] + "\n" + MARKERS["bench"][0] + "\n")
        try:
            write_doc(doc, "bench", current, section, info["date"])
        except RuntimeError:
            pass
        else:
            raise AssertionError("markers out of order were accepted")
        with open(path) as f:
            assert f.read().count("— make bench\n") == 3
    print("selftest: ok")
    return 0


def main():
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smolder", required=True)
    ap.add_argument("--workloads", required=True, help="directory of the built workloads")
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--out", required=True, help="directory for dumps and results.json")
    ap.add_argument("--doc", required=True,
                    help="doc/benchmarks.md, whose current results the run replaces; the "
                    "full run goes to bench-log/YYYY-MM-DD.md beside it")
    ap.add_argument("--churn", action="store_true", help="the long churn run (RSS over time)")
    ap.add_argument("--report-only", metavar="RESULTS_JSON",
                    help="render the table of a (possibly interrupted) earlier run")
    args = ap.parse_args()

    def on_signal(sig, _frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    b = Bench(args)
    try:
        if args.report_only:
            b.report_only(args.report_only)
        elif args.churn:
            b.churn()
        else:
            b.main()
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    except RuntimeError as e:
        log(str(e))
        return 1
    finally:
        kill_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
