#!/usr/bin/env python3
"""The monolith row of `make bench`: smolder on one big C++ binary.

Generates and builds a monolith once (bench/gen_monolith.py: 24,000
functions in 120 units, -O2 -g, ~70 MB with ~28 MB of .debug_info; kept in
OUT/monolith/ and rebuilt only when the generator changes), and a copy
stripped to its symbol table. Then, per run, on a running monolith:

  cold   smolder record -F 999 -d SECONDS -p PID with an empty cache directory
  warm   the same again with the cache the cold run left
  perf   perf record -F 999 --call-graph dwarf -p PID for PERF_SECONDS,
         then perf script --inline (the peer, on a shorter run: it is slow)
  and the same cold/warm pair on the stripped copy.

smolder's cost is its whole process's CPU (wait4 rusage, start-up included)
per sample it recorded; perf's is record + script per sample. Completeness is
the share of stacks reaching the entry point; "inlined" the share of samples
with an inlined frame. Names are checked against addr2line -f -i on the
addresses perf sampled (every frame of the monolith in perf's callchains, up
to 2,000 distinct addresses): smolder symbolize must give the same functions,
innermost first, for >= 99 % of them.

Python 3 standard library only; reuses bench/run.py's process helpers."""

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as bench  # noqa: E402  (bench/run.py: run_measured, machine, write_doc, summary_of)

GEN_ARGS = ["--units", "120", "--functions", "24000", "--seed", "1"]


def build_monolith(srcdir, out, jobs):
    """OUT/monolith/monolith, rebuilt only when the generator changed."""
    gen = os.path.join(srcdir, "bench", "gen_monolith.py")
    d = os.path.join(out, "monolith")
    exe = os.path.join(d, "monolith")
    with open(gen, "rb") as f:
        stamp = hashlib.sha256(f.read() + " ".join(GEN_ARGS).encode()).hexdigest()
    stamp_path = os.path.join(d, "stamp")
    try:
        with open(stamp_path) as f:
            if f.read().strip() == stamp and os.path.exists(exe):
                return exe
    except OSError:
        pass
    bench.log("generating and building the monolith in %s (a few minutes, once)" % d)
    shutil.rmtree(d, ignore_errors=True)
    subprocess.run([sys.executable, gen, "--out", d] + GEN_ARGS, check=True)
    subprocess.run(["make", "-s", "-C", d, "-j%d" % jobs], check=True)
    with open(stamp_path, "w") as f:
        f.write(stamp + "\n")
    return exe


def section_sizes(exe):
    out = subprocess.run(["size", "-A", exe], capture_output=True, text=True).stdout
    sizes = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith(".") and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


def start_workload(exe, seconds):
    p = subprocess.Popen([exe, str(seconds)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, start_new_session=True)
    bench._track(p)
    time.sleep(0.5)  # past its dynamic linking
    return p


def stop_workload(p):
    bench._kill_group(p)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    bench._untrack(p)


def smolder_run(smolder, pid, seconds, cache, dump, errlog):
    m = bench.run_measured([smolder, "record", "-F", "999", "-d", str(seconds), "-q",
                            "-p", str(pid), "--cache-dir", cache, "-o", dump],
                           seconds * 4 + 120, stderr_path=errlog)
    with open(dump) as f:
        d = json.load(f)
    st = d["stats"]
    n = sum(s["count"] for p in d["profiles"] for s in p["stacks"])
    inl = sum(s["count"] for p in d["profiles"] for s in p["stacks"] if "_[i]" in s["stack"])
    uw = st["unwind"]
    tot = sum(uw.values())
    return {
        "samples": n, "cpu": m.cpu, "us": m.cpu * 1e6 / n if n else None,
        "agent_us": st["agent_cpu_ns"] / 1e3 / n if n else None,
        "rss_mb": m.maxrss_kb / 1024.0,
        "complete": 100.0 * uw["complete"] / tot if tot else None,
        "inlined": 100.0 * inl / n if n else None,
        "builds": st.get("inline_builds", 0), "loads": st.get("inline_loads", 0),
        "index_mb": st.get("inline_index_bytes", 0) / 1e6,
        "hits": st.get("inline_hits", 0), "lookups": st.get("inline_lookups", 0),
    }


def load_base(pid, exe):
    """Runtime address of the binary's file offset 0 (its PIE load base)."""
    real = os.path.realpath(exe)
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5] == real and int(parts[2], 16) == 0:
                return int(parts[0].split("-")[0], 16)
    raise RuntimeError("%s not mapped in %d" % (exe, pid))


def perf_run(perf, pid, seconds, out, exe, base):
    data = os.path.join(out, "monolith-perf.data")
    rec = bench.run_measured([perf, "record", "-q", "-F", "999", "--call-graph", "dwarf",
                              "-p", str(pid), "-o", data, "--", "sleep", str(seconds)],
                             seconds * 4 + 120)
    addrs, samples = set(), [0]
    real = os.path.realpath(exe)
    frame = re.compile(r"^\s+([0-9a-f]+) .*\((.*)\)$")

    def consume(stream):
        for raw in stream:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line and not line[0].isspace():
                samples[0] += 1
                continue
            m = frame.match(line)
            if m and m.group(2) == real:
                addrs.add(int(m.group(1), 16) - base)

    scr = bench.run_measured([perf, "script", "--inline", "-i", data], 3600, on_stdout=consume)
    os.unlink(data)
    n = samples[0]
    return {"samples": n, "cpu": rec.cpu + scr.cpu,
            "us": (rec.cpu + scr.cpu) * 1e6 / n if n else None}, sorted(addrs)


def base_name(name):
    """The function's own name: no "_[i]", parameters, template arguments
    or scopes, so that both tools' spellings compare."""
    name = name.replace("_[i]", "")
    out, depth = [], 0
    for c in name:
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(c)
    name = "".join(out).strip()
    return name.rsplit("::", 1)[-1].strip()


def compare_names(smolder, exe, addrs):
    """Share of addresses where smolder and addr2line -f -i name the same
    functions in the same order, and a few that differ."""
    text = "".join("%x\n" % a for a in addrs)
    ours = subprocess.run([smolder, "symbolize", "--no-cache", exe], input=text,
                          capture_output=True, text=True, check=True).stdout
    mine = {}
    for line in ours.splitlines():
        a, _, frames = line.partition("\t")
        mine[int(a, 16)] = [base_name(f) for f in reversed(frames.split(";"))]
    theirs = subprocess.run(["addr2line", "-a", "-f", "-i", "-C", "-e", exe], input=text,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    ref, cur, i = {}, None, 0
    while i < len(theirs):
        line = theirs[i]
        if line.startswith("0x"):
            cur = int(line, 16)
            ref[cur] = []
            i += 1
            continue
        if cur is not None:
            ref[cur].append(base_name(line))
        i += 2  # function, then file:line
    same = [a for a in addrs if mine.get(a) == ref.get(a)]
    diff = [(a, mine.get(a), ref.get(a)) for a in addrs if mine.get(a) != ref.get(a)]
    return 100.0 * len(same) / len(addrs) if addrs else None, diff[:5]


def med(rows, key):
    return bench.med([r.get(key) for r in rows])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smolder", required=True)
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--doc", required=True,
                    help="doc/benchmarks.md, whose monolith results the run replaces; the "
                    "full run goes to bench-log/YYYY-MM-DD.md beside it")
    args = ap.parse_args()
    seconds = int(os.environ.get("BENCH_SECONDS") or 10)
    runs = int(os.environ.get("BENCH_RUNS") or 3)
    perf_secs = int(os.environ.get("BENCH_PERF_SECONDS") or 2)
    perf = os.environ.get("PERF") or "perf"
    os.makedirs(args.out, exist_ok=True)
    info = bench.machine(perf, args.smolder)
    exe = build_monolith(args.srcdir, args.out, os.cpu_count() or 2)
    stripped = exe + "-symtab"
    subprocess.run(["strip", "--strip-debug", "-o", stripped, exe], check=True)
    sizes = section_sizes(exe)
    nfuncs = sum(1 for line in subprocess.run(["nm", exe], capture_output=True, text=True)
                 .stdout.splitlines() if " T _ZN4mono" in line)
    res = {"cold": [], "warm": [], "perf": [], "scold": [], "swarm": [], "agree": []}
    diffs = []
    t0 = time.monotonic()

    def cold_and_warm(binary, phases, then=None):
        """A fresh cache, the binary running, the two phases, then then(w)."""
        cache = os.path.abspath(os.path.join(args.out, "monolith-cache"))
        shutil.rmtree(cache, ignore_errors=True)
        os.mkdir(cache, 0o700)
        w = start_workload(binary, 3 * seconds + perf_secs + 600)
        try:
            for phase in phases:
                res[phase].append(smolder_run(
                    args.smolder, w.pid, seconds, cache,
                    os.path.join(args.out, "monolith-%s.json" % phase),
                    os.path.join(args.out, "monolith-%s.err" % phase)))
            return then(w) if then else None
        finally:
            stop_workload(w)

    def perf_phase(w):
        p, addrs = perf_run(perf, w.pid, perf_secs, args.out, exe, load_base(w.pid, exe))
        res["perf"].append(p)
        return addrs

    try:
        for r in range(runs):
            bench.log("monolith run %d/%d" % (r + 1, runs))
            addrs = cold_and_warm(exe, ("cold", "warm"), perf_phase)
            if addrs:
                # at most 2,000, spread over the whole binary
                addrs = addrs[::max(1, len(addrs) // 2000)][:2000]
                agree, diff = compare_names(args.smolder, exe, addrs)
                res["agree"].append({"agree": agree, "n": len(addrs)})
                diffs = diffs or diff
            cold_and_warm(stripped, ("scold", "swarm"))
    finally:
        bench.kill_all()
    with open(os.path.join(args.out, "monolith.json"), "w") as f:
        json.dump({"machine": info, "results": res, "diffs": [list(map(str, d)) for d in diffs]},
                  f, indent=1)

    lines = ["## %s — make bench: monolith" % info["date"], "",
             "Command: `make bench BENCH_SECONDS=%d BENCH_RUNS=%d` (bench/monolith.py, after "
             "bench/run.py's rows). %d run(s); medians. Took %.0f min." % (
                 seconds, runs, runs, (time.monotonic() - t0) / 60), "",
             bench.machine_line(info), "",
             "The binary: %d functions in 120 units (bench/gen_monolith.py %s), -O2 -g, "
             "%.0f MB, .debug_info %.1f MB, .text %.1f MB; its stripped copy keeps .symtab "
             "only. smolder `record -F 999 -d %d -p PID`, cost = the whole process's CPU "
             "(start-up and writing the dump included) per sample, and the agent's own count "
             "of its CPU during the run (`stats.agent_cpu_ns`); perf `record -F 999 --call-graph dwarf -p PID` "
             "for %d s + `perf script --inline`." % (
                 nfuncs, " ".join(GEN_ARGS), os.path.getsize(exe) / 1e6,
                 sizes.get(".debug_info", 0) / 1e6, sizes.get(".text", 0) / 1e6, seconds,
                 perf_secs), "",
             "| binary | run | samples | µs/sample (whole process) | µs/sample (in the run) "
             "| peak RSS MB | complete | samples with inlined frames | trees built / read from "
             "cache | index MB |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for label, key in (("monolith", "cold"), ("monolith", "warm"),
                       ("stripped (.symtab)", "scold"), ("stripped (.symtab)", "swarm")):
        rows = res[key]
        lines.append("| %s | %s | %s | %s | %s | %s | %s %% | %s %% | %s / %s | %s |" % (
            label, key.lstrip("s"), bench.fmt(med(rows, "samples"), 0), bench.fmt(med(rows, "us")),
            bench.fmt(med(rows, "agent_us")),
            bench.fmt(med(rows, "rss_mb")), bench.fmt(med(rows, "complete")), bench.fmt(med(rows, "inlined")),
            bench.fmt(med(rows, "builds"), 0), bench.fmt(med(rows, "loads"), 0), bench.fmt(med(rows, "index_mb"))))
    pu = med(res["perf"], "us")
    lines += ["| monolith | perf record + script --inline | %s | %s | – | – | – | – | – | – |" % (
        bench.fmt(med(res["perf"], "samples"), 0), bench.fmt(pu)), ""]
    cu, wu = med(res["cold"], "us"), med(res["warm"], "us")
    lines.append("perf / smolder per sample: cold %s, warm %s. Names: smolder symbolize and "
                 "addr2line -f -i agree on %s %% of %s sampled addresses (functions and "
                 "inline chain, innermost first)." % (
                     bench.fmt(pu / cu if pu and cu else None), bench.fmt(pu / wu if pu and wu else None),
                     bench.fmt(med(res["agree"], "agree"), 2), bench.fmt(med(res["agree"], "n"), 0)))
    if diffs:
        lines.append("")
        lines.append("First disagreements (address, smolder, addr2line): " + "; ".join(
            "0x%x %s / %s" % (a, m, t) for a, m, t in diffs) + ".")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    # the full section to the day's bench log; the same, with a link to it,
    # as the monolith's current results in doc/benchmarks.md
    bench.write_doc(args.doc, "monolith", bench.summary_of(lines, "make bench-monolith", info["date"]),
                    text, info["date"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
