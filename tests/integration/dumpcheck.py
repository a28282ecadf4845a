#!/usr/bin/env python3
"""Checker for smolder's outputs, used by the integration test scripts.

Python 3 standard library only. Loads a smolder.profile/v1 JSON dump (or a
collapsed file), validates its structure, selects profiles by exe basename or
comm and measures stack shapes. Each subcommand prints what it measured and
exits 0 (pass), 1 (fail) or 77 (skip, for perf-allowed).
"""

import argparse
import collections
import ctypes
import json
import os
import re
import struct
import sys

SCHEMA = "smolder.profile/v1"
UNWIND_KEYS = ("complete", "truncated", "no_cfi", "no_map", "bad_pc", "depth")
STATS_KEYS = ("samples", "lost", "dropped", "kernel_only", "processes")
LIBC_START = ("__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
              "__libc_start_main_alias_2")
THREAD_ROOTS = ("clone3", "clone", "__clone", "__clone3", "__clone_internal", "start_thread")


class CheckError(Exception):
    pass


# --------------------------------------------------------------------------
# loading and validation

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def load_all(path):
    """Every document of a dump file: one, or one per event of a recording
    of several (one after the other, a line each)."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
        dec, docs, i = json.JSONDecoder(), [], 0
        while True:
            while i < len(text) and text[i] in " \t\r\n":
                i += 1
            if i == len(text):
                break
            doc, i = dec.raw_decode(text, i)
            docs.append(doc)
        if not docs:
            raise ValueError("no document")
        return docs
    except (OSError, ValueError) as e:
        raise CheckError("cannot load dump %s: %s" % (path, e))


def load(path):
    """The first document of a dump file (the first event's)."""
    return load_all(path)[0]


def validate(dump):
    """Return a list of structural problems (empty when the dump is valid)."""
    errs = []
    if not isinstance(dump, dict):
        return ["top level is not an object"]
    if dump.get("schema") != SCHEMA:
        errs.append("schema is %r, want %r" % (dump.get("schema"), SCHEMA))
    for key in ("agent", "host", "window", "event"):
        if not isinstance(dump.get(key), dict):
            errs.append("missing or non-object %r" % key)
    win = dump.get("window")
    if isinstance(win, dict):
        s, e = win.get("start_ns"), win.get("end_ns")
        if not (is_int(s) and is_int(e)) or s > e:
            errs.append("window start_ns/end_ns bad: %r %r" % (s, e))
    ev = dump.get("event")
    if isinstance(ev, dict) and not is_int(ev.get("frequency_hz")):
        errs.append("event.frequency_hz is not an integer: %r" % (ev.get("frequency_hz"),))
    profiles = dump.get("profiles")
    if not isinstance(profiles, list):
        errs.append("profiles is not a list")
        profiles = []
    total = 0
    for i, p in enumerate(profiles):
        where = "profiles[%d]" % i
        if not isinstance(p, dict):
            errs.append(where + " is not an object")
            continue
        labels = p.get("labels")
        if not isinstance(labels, dict):
            errs.append(where + ".labels missing")
        else:
            for k in ("service_name", "exe", "comm"):
                if not isinstance(labels.get(k), str):
                    errs.append("%s.labels.%s missing or not a string" % (where, k))
        samples = p.get("samples")
        if not is_int(samples) or samples < 0:
            errs.append(where + ".samples is not a non-negative integer")
            samples = 0
        total += samples
        stacks = p.get("stacks")
        if not isinstance(stacks, list):
            errs.append(where + ".stacks is not a list")
            continue
        ssum = 0
        seen = set()
        for j, st in enumerate(stacks):
            sw = "%s.stacks[%d]" % (where, j)
            if not isinstance(st, dict) or not isinstance(st.get("stack"), str) \
                    or not is_int(st.get("count")):
                errs.append(sw + " is not {stack: string, count: integer}")
                continue
            if st["count"] <= 0:
                errs.append(sw + ".count is %d" % st["count"])
            ssum += st["count"]
            s = st["stack"]
            if s == "" or any(f == "" for f in s.split(";")):
                errs.append(sw + " has an empty frame: %r" % s[:200])
            if any(ord(ch) < 0x20 or ord(ch) == 0x7f for ch in s):
                errs.append(sw + " has a control character: %r" % s[:200])
            if s in seen:
                errs.append(sw + " duplicates an earlier stack string: %r" % s[:200])
            seen.add(s)
        if ssum != samples:
            errs.append("%s: sum of counts %d != samples %d" % (where, ssum, samples))
    stats = dump.get("stats")
    if not isinstance(stats, dict):
        errs.append("stats missing")
        return errs
    for k in STATS_KEYS:
        if not is_int(stats.get(k)) or stats.get(k) < 0:
            errs.append("stats.%s missing or not a non-negative integer: %r" % (k, stats.get(k)))
    unw = stats.get("unwind")
    if not isinstance(unw, dict):
        errs.append("stats.unwind missing")
    else:
        for k in UNWIND_KEYS:
            if not is_int(unw.get(k)) or unw.get(k) < 0:
                errs.append("stats.unwind.%s missing or not a non-negative integer: %r"
                            % (k, unw.get(k)))
    if is_int(stats.get("samples")):
        dropped = stats.get("dropped") if is_int(stats.get("dropped")) else 0
        if total != stats["samples"] - dropped:
            errs.append("sum of profile samples %d != stats.samples %d - stats.dropped %d"
                        % (total, stats["samples"], dropped))
    return errs


def load_valid(path):
    dump = load(path)
    errs = validate(dump)
    if errs:
        raise CheckError("invalid dump %s:\n  " % path + "\n  ".join(errs[:20]))
    return dump


# --------------------------------------------------------------------------
# selection and stack helpers

def basename(p):
    return p.rstrip("/").rsplit("/", 1)[-1]


def select(dump, exe=None, comm=None):
    """Profiles whose exe basename (or full exe, or its suffix) / comm match."""
    out = []
    for p in dump["profiles"]:
        lab = p["labels"]
        if exe is not None:
            e = lab.get("exe", "")
            # " (deleted)" may follow the path of a replaced binary.
            e = re.sub(r" \(deleted\)$", "", e)
            if not (basename(e) == exe or e == exe):
                continue
        if comm is not None and lab.get("comm") != comm:
            continue
        out.append(p)
    return out


def merged(profiles):
    """(total samples, Counter stack-string -> count) over several profiles."""
    c = collections.Counter()
    for p in profiles:
        for st in p["stacks"]:
            c[st["stack"]] += st["count"]
    return sum(c.values()), c


def profiles_summary(dump, limit=12):
    rows = sorted(dump["profiles"], key=lambda p: -p["samples"])
    return "\n".join("    %6d  exe=%s comm=%s" % (p["samples"], p["labels"].get("exe"),
                                                  p["labels"].get("comm"))
                     for p in rows[:limit])


def need(dump, exe=None, comm=None, what=None):
    profs = select(dump, exe, comm)
    total, stacks = merged(profs)
    if total == 0:
        raise CheckError("no samples for %s (exe=%r comm=%r); profiles present:\n%s"
                         % (what or "the workload", exe, comm, profiles_summary(dump)))
    return profs, total, stacks


def frames(stack):
    return stack.split(";")


def is_kernel(f):
    return f.endswith("_[k]")


def strip_suffix(f):
    return re.sub(r"_\[[kij]\]$", "", f)


def find_contiguous(fr, seq, start=0):
    """Index of the first occurrence of seq as contiguous frames at or after start."""
    n = len(seq)
    for i in range(start, len(fr) - n + 1):
        if fr[i:i + n] == seq:
            return i
    return -1


def find_ordered(fr, seq):
    """True when seq appears in fr in order (not necessarily contiguous)."""
    it = iter(fr)
    return all(any(f == s for f in it) for s in seq)


def first_matches(f, firsts):
    for pat in firsts:
        if pat.endswith("*"):
            if f.startswith(pat[:-1]):
                return True
        elif f == pat:
            return True
    return False


def pct(n, d):
    return 100.0 * n / d if d else 0.0


def show_stacks(counter, pred=None, limit=5, title="top stacks"):
    rows = [(c, s) for s, c in counter.most_common() if pred is None or pred(s)]
    total = sum(counter.values())
    print("  %s:" % title)
    for c, s in rows[:limit]:
        print("    %5d (%4.1f%%)  %s" % (c, pct(c, total), s if len(s) < 400 else s[:200] + " ... " + s[-190:]))
    if not rows:
        print("    (none)")


def print_stats(dump):
    st = dump["stats"]
    print("  stats: samples=%s lost=%s dropped=%s kernel_only=%s processes=%s unwind=%s"
          % (st.get("samples"), st.get("lost"), st.get("dropped"), st.get("kernel_only"),
             st.get("processes"), json.dumps(st.get("unwind"), sort_keys=True)))


# --------------------------------------------------------------------------
# subcommands

def cmd_validate(a):
    for i, dump in enumerate(load_all(a.dump)):
        errs = validate(dump)
        if errs:
            raise CheckError("%s: document %d: %s" % (a.dump, i + 1, "; ".join(errs[:10])))
        print("%s: valid %s dump, %s, %d profiles, %d %s"
              % (a.dump, SCHEMA, dump["event"]["name"], len(dump["profiles"]),
                 dump["stats"]["samples"], dump["event"]["unit"]))
        print_stats(dump)
        print(profiles_summary(dump))
    return 0


def cmd_share(a):
    """Share of a profile's samples showing a contiguous frame sequence,
    optionally with the stack's first (outermost) frame in a given set."""
    dump = load_valid(a.dump)
    _, total, stacks = need(dump, a.exe, a.comm)
    seq = a.seq.split(";")
    firsts = a.first.split(",") if a.first else None

    def ok(s):
        fr = frames(s)
        if firsts and not first_matches(fr[0], firsts):
            return False
        return find_contiguous(fr, seq) >= 0

    hit = sum(c for s, c in stacks.items() if ok(s))
    what = ";".join(seq) + (" after first frame in {%s}" % a.first if firsts else "")
    print("%s: %.1f%% of %d samples show %s (threshold %.0f%%)"
          % (a.label, pct(hit, total), total, what, a.min))
    print_stats(dump)
    show_stacks(stacks, lambda s: not ok(s), title="stacks not matching")
    show_stacks(stacks, ok, limit=2, title="matching stacks")
    return 0 if pct(hit, total) >= a.min else 1


def cmd_deep(a):
    """Share of a profile's samples whose stack is whole: rooted (--first),
    then main, exactly --depth frames of --frame, and --leaf."""
    dump = load_valid(a.dump)
    _, total, stacks = need(dump, a.exe, a.comm)
    firsts = a.first.split(",")
    seq = ["main"] + [a.frame] * a.depth + [a.leaf]
    runs = collections.Counter()

    def ok(s):
        fr = frames(s)
        return first_matches(fr[0], firsts) and find_contiguous(fr, seq) >= 0

    for s, c in stacks.items():
        fr = frames(s)
        runs["%s..., %d x %s" % (fr[0], sum(1 for f in fr if f == a.frame), a.frame)] += c
    hit = sum(c for s, c in stacks.items() if ok(s))
    st = dump["stats"]
    print("%s: %.1f%% of %d samples are %s;main;%d x %s;%s (threshold %.0f%%)"
          % (a.label, pct(hit, total), total, a.first, a.depth, a.frame, a.leaf, a.min))
    print_stats(dump)
    print("  deep: %s" % ", ".join("%s=%s" % (k, st.get(k)) for k in sorted(st) if k.startswith("deep_")))
    print("  stacks by root and length: %s" % ", ".join("%s: %d" % kc for kc in runs.most_common(8)))
    return 0 if pct(hit, total) >= a.min else 1


def cmd_rate(a):
    """Sample count of a profile against a reference count.

    With --perf-samples, the reference is what `perf record` counted on the
    same thread in the same run: both events are per-task cpu-clock timers, so
    a host that steals the VM's CPU (the kernel folds the timer's missed
    periods into one sample) shortens both alike, and only what smolder itself
    drops shows. Without it, the reference is frequency x CPU time, which only
    holds on a host that does not steal."""
    dump = load_valid(a.dump)
    _, total, _ = need(dump, a.exe, a.comm)
    lost = dump["stats"]["lost"]
    if a.perf_samples is not None:
        expect, what, floor = float(a.perf_samples), "perf's count on the same thread", 0.9
    elif a.cpu is not None and a.hz is not None:
        expect, what, floor = a.hz * a.cpu, "%.3f s of CPU at %d Hz" % (a.cpu, a.hz), 0.8
    else:
        print("FAIL: rate needs --perf-samples, or --cpu and --hz")
        return 2
    print("rate: %d samples (+%d lost) against %s: %.1f%% of the expected %.0f"
          % (total, lost, what, pct(total, expect), expect))
    if expect <= 0:
        print("FAIL: no reference samples")
        return 1
    if total + lost < floor * expect:
        print("FAIL: under %d%% of the expected samples and not accounted as lost" % (floor * 100))
        return 1
    if total > (2.0 - floor) * expect + 5:
        print("FAIL: over %d%% of the expected samples" % ((2.0 - floor) * 100))
        return 1
    return 0


def cmd_threads(a):
    dump = load_valid(a.dump)
    _, total, stacks = need(dump, a.exe, None)
    by = {"worker_a": ("spin_a", 0, 0), "worker_b": ("spin_b", 0, 0)}
    complete = 0
    bad = collections.Counter()
    in_main = 0
    for s, c in stacks.items():
        fr = frames(s)
        for w in by:
            if w not in fr:
                continue
            spin, n, good = by[w]
            n += c
            i = fr.index(w)
            root_ok = fr[0] in THREAD_ROOTS and "start_thread" in fr[:i]
            if root_ok and i + 1 < len(fr) and fr[i + 1] == spin:
                good += c
            elif not root_ok:
                bad[s] += c
            by[w] = (spin, n, good)
            if "main" in fr:
                in_main += c
    for w, (spin, n, good) in sorted(by.items()):
        complete += good
        print("threads: %s: %d samples (%.1f%%), %.1f%% of them %s -> %s;%s"
              % (w, n, pct(n, total), pct(good, n), "start_thread/clone3 ...", w, spin))
    print("threads: %.1f%% of %d samples are complete thread stacks "
          "(clone3|clone;start_thread;worker_X;spin_X), threshold %.0f%%"
          % (pct(complete, total), total, a.min))
    print_stats(dump)
    show_stacks(stacks, title="top stacks")
    rc = 0
    if bad:
        show_stacks(bad, title="worker stacks not rooted at start_thread/clone")
        rc = 1
    if in_main:
        print("FAIL: %d worker samples also contain main (thread stacks mixed with main's)" % in_main)
        rc = 1
    for w, (spin, n, good) in by.items():
        if pct(n, total) < 20:
            print("FAIL: %s has only %.1f%% of samples (expected ~50%%)" % (w, pct(n, total)))
            rc = 1
    if pct(complete, total) < a.min:
        rc = 1
    return rc


def cmd_cxx(a):
    dump = load_valid(a.dump)
    _, total, stacks = need(dump, a.exe, None)
    allf = collections.Counter()
    for s, c in stacks.items():
        for f in set(frames(s)):
            allf[f] += c
    mangled = [f for f in allf if re.match(r"^_Z", strip_suffix(f))]
    templ = [f for f in allf if "::" in f and "<double>" in f]
    inl = [f for f in allf if f.endswith("_[i]")]
    mult = [f for f in allf if "ns::Matrix<double>::multiply" in f]
    mult_share = sum(c for s, c in stacks.items() if any("ns::Matrix<double>::multiply" in f
                                                         for f in frames(s)))
    # an inlined frame right above (leafward of) multiply
    inl_after = sum(c for s, c in stacks.items()
                    for fr in [frames(s)]
                    if any("ns::Matrix<double>::multiply" in fr[i] and fr[i + 1].endswith("_[i]")
                           for i in range(len(fr) - 1)))
    inl_share = sum(c for s, c in stacks.items() if any(f.endswith("_[i]") for f in frames(s)))
    print("cxx: %d samples; %.1f%% contain ns::Matrix<double>::multiply, "
          "%.1f%% contain an _[i] frame, %.1f%% have an _[i] frame right after multiply"
          % (total, pct(mult_share, total), pct(inl_share, total), pct(inl_after, total)))
    print("cxx: demangled template frames: %s" % (sorted(templ)[:4],))
    print("cxx: inlined frames: %s" % (sorted(inl)[:4],))
    print_stats(dump)
    show_stacks(stacks, title="top stacks")
    rc = 0
    if mangled:
        print("FAIL: mangled names left: %s" % mangled[:5])
        rc = 1
    if not templ:
        print("FAIL: no demangled frame containing '::' and '<double>'")
        rc = 1
    if not mult or pct(mult_share, total) < 50:
        print("FAIL: ns::Matrix<double>::multiply in %.1f%% of samples (want >= 50%%)"
              % pct(mult_share, total))
        rc = 1
    if not inl:
        print("FAIL: no inlined frame (suffix _[i])")
        rc = 1
    elif inl_after == 0:
        print("FAIL: no stack has an _[i] frame directly after multiply (the inlined dot<double>)")
        rc = 1
    return rc


def cmd_recursion(a):
    dump = load_valid(a.dump)
    _, total, stacks = need(dump, a.exe, None)
    unw = dump["stats"]["unwind"]
    bottom = sum(c for s, c in stacks.items() if "bottom" in frames(s))
    depths = [len(frames(s)) for s in stacks]
    print("recursion: %d samples, stats.unwind.truncated=%d complete=%d depth=%d; "
          "%.1f%% of samples in bottom; stack lengths %d..%d frames"
          % (total, unw["truncated"], unw["complete"], unw["depth"], pct(bottom, total),
             min(depths), max(depths)))
    print_stats(dump)
    show_stacks(stacks, limit=3, title="top stacks")
    rc = 0
    # cut where the stack beyond the copy may no longer be read (256 KiB)
    # or at the frame limit, whichever comes first
    if unw["truncated"] + unw["depth"] <= 0:
        print("FAIL: stats.unwind.truncated and .depth are 0 with a 2.5 MB deep stack")
        rc = 1
    if pct(bottom, total) < 50:
        print("FAIL: fewer than half the samples show the hot leaf 'bottom'")
        rc = 1
    cut = sum(c for s, c in stacks.items() if frames(s)[0] == "[truncated]")
    print("recursion: %.1f%% of samples carry [truncated] at their root" % pct(cut, total))
    if pct(cut, total) < 90:
        print("FAIL: a stack cut short must start with [truncated]")
        rc = 1
    return rc


def cmd_offcpu(a):
    """tests/workloads/waits recorded with off-cpu (and cpu-clock): the
    off-cpu document's time of the workload is within 20 % (--tol) of
    --total seconds, each waiting function holds 25-42 % of it (unless
    --total-only) and the spinner <= 3 %; a cpu-clock document, when
    there is one, has the spinner as its hot function."""
    docs = load_all(a.dump)
    for d in docs:
        errs = validate(d)
        if errs:
            raise CheckError("%s: %s" % (a.dump, "; ".join(errs[:5])))
    byname = {d["event"]["name"]: d for d in docs}
    if "off-cpu" not in byname:
        raise CheckError("%s: no off-cpu document (%s)" % (a.dump, ", ".join(byname)))
    waiters = a.waiters.split(",")
    names = tuple(waiters) + ("spin",)

    def shares(d):
        total, by = 0, dict.fromkeys(names, 0)
        for p in d["profiles"]:
            if a.exe and not p["labels"].get("exe", "").endswith("/" + a.exe):
                continue
            for st in p["stacks"]:
                fr = st["stack"].split(";")
                total += st["count"]
                for f in names:
                    by[f] += st["count"] if f in fr else 0
        return total, by

    total, by = shares(byname["off-cpu"])
    st = byname["off-cpu"]["stats"]
    print("%s: off-cpu %.2f s of %s (%.2f expected), %s; late switch-ins %s"
          % (a.label, total / 1e9, a.exe, a.total, ", ".join("%s %.1f%%" % (f, 100.0 * v / max(total, 1))
                                                              for f, v in by.items()),
             st.get("off_cpu_late_ins", 0)))
    if abs(total - a.total * 1e9) > a.tol / 100.0 * a.total * 1e9:
        raise CheckError("%s: off-cpu total %.2f s, want %.2f +- %g%%" % (a.label, total / 1e9, a.total, a.tol))
    if not a.total_only:
        for f in waiters:
            if not 25 <= 100.0 * by[f] / total <= 42:
                raise CheckError("%s: %s holds %.1f%% of the waits" % (a.label, f, 100.0 * by[f] / total))
        if by["spin"] > 0.03 * total:
            raise CheckError("%s: the spinner holds %.1f%% of the waits" % (a.label, 100.0 * by["spin"] / total))
    if "cpu-clock" in byname:
        ctotal, cby = shares(byname["cpu-clock"])
        print("%s: cpu-clock %d samples, spin %.1f%%" % (a.label, ctotal, 100.0 * cby["spin"] / max(ctotal, 1)))
        if not ctotal or cby["spin"] < 0.9 * ctotal:
            raise CheckError("%s: the CPU part lost its hot function" % a.label)
    return 0


def cmd_forkexec(a):
    dump = load_valid(a.dump)
    child = select(dump, "child_spin", None)
    parent = select(dump, "forkexec", None)
    ctotal, cstacks = merged(child)
    ptotal, pstacks = merged(parent)
    rc = 0
    print("forkexec: child profiles: %s" % [(p["labels"]["exe"], p["labels"]["comm"], p["samples"])
                                           for p in child])
    print("forkexec: parent profiles: %s" % [(p["labels"]["exe"], p["labels"]["comm"], p["samples"])
                                            for p in parent])
    print_stats(dump)
    if ctotal == 0 or ptotal == 0:
        print("FAIL: need samples in both child_spin (%d) and forkexec (%d) profiles:\n%s"
              % (ctotal, ptotal, profiles_summary(dump)))
        return 1
    for p in child:
        if p["labels"]["comm"] != "child_spin":
            print("FAIL: profile with exe %s has comm %r, want child_spin"
                  % (p["labels"]["exe"], p["labels"]["comm"]))
            rc = 1
    for p in parent:
        if p["labels"]["comm"] not in ("forkexec",):
            print("FAIL: profile with exe %s has comm %r, want forkexec"
                  % (p["labels"]["exe"], p["labels"]["comm"]))
            rc = 1
    chot = sum(c for s, c in cstacks.items() if "child_hot" in frames(s))
    phot = sum(c for s, c in pstacks.items() if "parent_hot" in frames(s))
    c_wrong = collections.Counter({s: c for s, c in cstacks.items()
                                   if "parent_hot" in frames(s) or "forkexec" in s})
    p_wrong = collections.Counter({s: c for s, c in pstacks.items()
                                   if "child_hot" in frames(s) or "child_spin" in s})
    # comm=child_spin anywhere else (e.g. under the parent's exe) is a misattribution too
    stray = [p for p in dump["profiles"]
             if p["labels"]["comm"] == "child_spin" and p not in child and p["samples"] > 0]
    print("forkexec: child_spin: %d samples, %.1f%% in child_hot; forkexec: %d samples, %.1f%% in parent_hot"
          % (ctotal, pct(chot, ctotal), ptotal, pct(phot, ptotal)))
    show_stacks(cstacks, limit=3, title="child_spin top stacks")
    show_stacks(pstacks, limit=3, title="forkexec top stacks")
    if pct(chot, ctotal) < 50:
        print("FAIL: child_hot in under half of child_spin's samples")
        rc = 1
    if pct(phot, ptotal) < 30:
        print("FAIL: parent_hot in under 30% of forkexec's samples")
        rc = 1
    if c_wrong:
        show_stacks(c_wrong, title="FAIL: parent frames in the child's profile")
        rc = 1
    if p_wrong:
        show_stacks(p_wrong, title="FAIL: child frames in the parent's profile")
        rc = 1
    for p in stray:
        print("FAIL: comm child_spin under exe %s (%d samples)" % (p["labels"]["exe"], p["samples"]))
        rc = 1
    return rc


def cmd_stripped(a):
    dump = load_valid(a.dump)
    profs, total, stacks = need(dump, a.exe, None)
    mod = a.exe + "+0x"
    syms = {}
    if a.symbols:
        # "ADDR T NAME" lines from nm of the unstripped binary, for information
        with open(a.symbols) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TtWw":
                    syms[int(parts[0], 16)] = parts[2]
    distinct = collections.Counter()
    complete = 0

    def is_mod(f):
        return f.startswith(mod)

    def ok(s):
        fr = [f for f in frames(s) if not is_kernel(f)]
        if not fr or not is_mod(fr[0]):
            return False
        # _start, then libc's start frames, then main;a;b;c (4 more module frames)
        return sum(1 for f in fr if is_mod(f)) >= 5

    for s, c in stacks.items():
        for f in set(frames(s)):
            if is_mod(f):
                distinct[f] += c
        if ok(s):
            complete += c
    print("stripped: %.1f%% of %d samples unwound from %s (_start) through >= 5 %s frames "
          "(threshold %.0f%%); %d distinct %s frames"
          % (pct(complete, total), total, mod + "...", mod + "...", a.min, len(distinct), mod + "..."))
    for f, c in distinct.most_common(8):
        off = int(f[len(mod):].split("_")[0], 16) if re.match(r"^[0-9a-fA-F]+", f[len(mod):]) else None
        print("    %-28s in %5.1f%% of samples  (unstripped symbol at that address: %s)"
              % (f, pct(c, total), syms.get(off, "?") if off is not None else "?"))
    print_stats(dump)
    show_stacks(stacks, lambda s: not ok(s), title="stacks not matching")
    show_stacks(stacks, ok, limit=2, title="matching stacks")
    rc = 0
    named = [f for f in set(f for s in stacks for f in frames(s))
             if f in ("main", "a", "b", "c", "_start")]
    if named:
        print("FAIL: stripped binary still yields symbol names %s (is the binary really stripped?)" % named)
        rc = 1
    if len(distinct) < 3:
        print("FAIL: fewer than 3 distinct %s frames" % (mod + "..."))
        rc = 1
    if pct(complete, total) < a.min:
        rc = 1
    return rc


def cmd_syscalls(a):
    dump = load_valid(a.dump)
    _, total, stacks = need(dump, a.exe, None)
    kern = 0
    kern_under_user = 0
    bad = collections.Counter()
    for s, c in stacks.items():
        fr = frames(s)
        kidx = [i for i, f in enumerate(fr) if is_kernel(f)]
        if not kidx:
            continue
        kern += c
        first_k = kidx[0]
        if any(not is_kernel(f) for f in fr[first_k:]):
            bad[s] += c
        elif find_ordered(fr[:first_k], ["main", "do_reads"]):
            kern_under_user += c
    print("syscalls: %d samples, %.1f%% have kernel (_[k]) frames, %.1f%% have kernel frames "
          "after main;...;do_reads;..." % (total, pct(kern, total), pct(kern_under_user, total)))
    print_stats(dump)
    show_stacks(stacks, limit=4, title="top stacks")
    rc = 0
    if bad:
        show_stacks(bad, title="FAIL: user frames after a kernel frame")
        rc = 1
    if pct(kern, total) < 30:
        print("FAIL: under 30% of samples have kernel frames (64 KiB /dev/zero reads are kernel-bound)")
        rc = 1
    if pct(kern_under_user, total) < 20:
        print("FAIL: under 20% of samples show kernel frames above main;...;do_reads")
        rc = 1
    return rc


def cmd_collapsed(a):
    """Validate a collapsed file: 'comm;root;...;leaf count' lines."""
    pat = re.compile(r"^([^;\s][^;]*(?:;[^;]+)+) (\d+)$")
    total = 0
    hit = 0
    comms = collections.Counter()
    seq = a.seq.split(";") if a.seq else None
    bad = []
    with open(a.file, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            m = pat.match(line)
            if not m:
                bad.append("line %d: %r" % (n, line[:200]))
                continue
            fr = m.group(1).split(";")
            cnt = int(m.group(2))
            comms[fr[0]] += cnt
            if a.comm and fr[0] != a.comm:
                continue
            total += cnt
            if seq and find_contiguous(fr[1:], seq) >= 0 and \
                    (not a.first or first_matches(fr[1], a.first.split(","))):
                hit += cnt
    print("collapsed: %d well-formed samples for comm %r; comms: %s"
          % (total, a.comm, dict(comms.most_common(5))))
    rc = 0
    if bad:
        print("FAIL: malformed lines:\n  " + "\n  ".join(bad[:5]))
        rc = 1
    if total == 0:
        print("FAIL: no samples for comm %r" % a.comm)
        return 1
    if seq:
        print("collapsed: %.1f%% of %d samples show %s (threshold %.0f%%)"
              % (pct(hit, total), total, a.seq, a.min))
        if pct(hit, total) < a.min:
            rc = 1
    return rc


# --- perf comparison --------------------------------------------------------

def perf_leaves(path, comms):
    """Leaf user function per sample of threads named comms, from `perf script -F comm,ip,sym,dso`."""
    leaves = collections.Counter()
    cur = None
    chain = []

    def flush():
        if cur is None or cur not in comms:
            return
        leaf = "[kernel]"
        for ip, sym, dso in chain:
            if dso.startswith("[kernel") or dso.startswith("[guest.kernel"):
                continue
            leaf = sym if sym and sym != "[unknown]" else "[unknown]"
            break
        leaves[leaf] += 1

    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                flush()
                cur, chain = None, []
                continue
            if not line[0].isspace():
                flush()
                cur, chain = line.strip(), []
                # one-line form (sample without callchain): "comm ip sym (dso)"
                m = re.match(r"^(\S+)\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)$", line)
                if m:
                    cur = m.group(1)
                    chain = [(m.group(2), m.group(3), m.group(4))]
                continue
            m = re.match(r"^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)$", line)
            if m:
                if m.group(3) == "inlined":
                    # perf lists inline frames before their real function; keep the innermost
                    chain.append((m.group(1), m.group(2), "inlined"))
                else:
                    chain.append((m.group(1), m.group(2), m.group(3)))
    flush()
    return leaves


def smolder_leaves(dump, exe):
    leaves = collections.Counter()
    for p in select(dump, exe, None):
        for st in p["stacks"]:
            fr = [f for f in frames(st["stack"]) if not is_kernel(f)]
            leaf = strip_suffix(fr[-1]) if fr else "[kernel]"
            # smolder prints C++ signatures; perf prints names the same way (demangled)
            leaves[leaf] += st["count"]
    return leaves


def cmd_perfcmp(a):
    dump = load_valid(a.dump)
    pl = perf_leaves(a.perf_script, set((a.perf_comm or a.comm).split(",")))
    sl = smolder_leaves(dump, a.exe)
    pt, st = sum(pl.values()), sum(sl.values())
    if pt == 0:
        print("FAIL: perf script output has no samples for comm %r" % a.comm)
        return 1
    if st == 0:
        print("FAIL: smolder dump has no samples for exe %r:\n%s" % (a.exe, profiles_summary(dump)))
        return 1
    keys = [k for k, _ in pl.most_common(5)]
    keys += [k for k, _ in sl.most_common(5) if k not in keys]
    print("perf_compare: leaf-function shares, perf %d samples vs smolder %d samples (tolerance %.1f pp)"
          % (pt, st, a.tol))
    rc = 0
    for k in keys:
        ps, ss = pct(pl[k], pt), pct(sl[k], st)
        flag = "ok" if abs(ps - ss) <= a.tol else "DIFF"
        if flag != "ok":
            rc = 1
        print("    %-40s perf %5.1f%%  smolder %5.1f%%  %s" % (k[:40], ps, ss, flag))
    return rc


# --- perf_event_open permission probe ----------------------------------------

def cmd_perf_allowed(a):
    """Exit 0 when perf_event_open with user regs/stack sampling is permitted in
    the given mode (process: this process, user space; kernel: this process
    including kernel samples; system: all tasks on CPU 0), else 77."""
    import errno
    import platform
    nr = {"x86_64": 298, "aarch64": 241, "ppc64le": 319, "s390x": 331}.get(platform.machine())
    if nr is None:
        print("perf-allowed: unknown syscall number for %s" % platform.machine())
        return 77
    PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_CALLCHAIN = 1, 2, 32
    PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER = 1 << 12, 1 << 13
    sample_type = (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN
                   | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
    flags = (1 << 0) | (1 << 10)           # disabled, freq
    if a.mode == "process":
        flags |= (1 << 5) | (1 << 6)       # exclude_kernel, exclude_hv: smolder degrades to this
        pid, cpu = 0, -1
    elif a.mode == "kernel":
        flags |= 1 << 6                    # kernel samples of this process
        pid, cpu = 0, -1
    else:
        pid, cpu = -1, 0
    regs = 0xff0fff if platform.machine() == "x86_64" else 0x1
    attr = struct.pack("=IIQQQQQIIQQQQIiQIHH",
                       1, 112, 0,          # PERF_TYPE_SOFTWARE, size, PERF_COUNT_SW_CPU_CLOCK
                       99, sample_type, 0, flags, 0, 0, 0, 0, 0,
                       regs, 8192, 0, 0, 0, 0, 0)
    assert len(attr) == 112, len(attr)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    buf = ctypes.create_string_buffer(attr, len(attr))
    fd = libc.syscall(ctypes.c_long(nr), buf, ctypes.c_int(pid), ctypes.c_int(cpu),
                      ctypes.c_int(-1), ctypes.c_ulong(0))
    if fd < 0:
        e = ctypes.get_errno()
        try:
            paranoid = open("/proc/sys/kernel/perf_event_paranoid").read().strip()
        except OSError:
            paranoid = "?"
        print("perf-allowed: perf_event_open (%s mode, user regs+stack) failed: %s "
              "(perf_event_paranoid=%s, uid=%d)"
              % (a.mode, os.strerror(e) if e else "error", paranoid, os.getuid()))
        return 77 if e in (errno.EACCES, errno.EPERM, errno.ENOSYS, errno.ENOENT,
                           errno.EOPNOTSUPP, errno.EINVAL) else 1
    os.close(fd)
    print("perf-allowed: perf_event_open sampling permitted (%s mode)" % a.mode)
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd")
    sub.required = True

    def add(name, fn, dump=True, exe=True):
        p = sub.add_parser(name)
        p.set_defaults(fn=fn)
        if dump:
            p.add_argument("dump")
        if exe:
            p.add_argument("--exe")
            p.add_argument("--comm")
        return p

    add("validate", cmd_validate, exe=False)
    p = add("share", cmd_share)
    p.add_argument("--seq", required=True, help="contiguous frames, ';'-separated")
    p.add_argument("--first", help="allowed first frames, ',' separated, '*' suffix = prefix")
    p.add_argument("--min", type=float, default=90.0)
    p.add_argument("--label", default="share")
    p = add("deep", cmd_deep)
    p.add_argument("--first", required=True, help="allowed first frames, ',' separated")
    p.add_argument("--frame", required=True, help="the frame the recursion repeats")
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--leaf", required=True)
    p.add_argument("--min", type=float, default=95.0)
    p.add_argument("--label", default="deep")
    p = add("rate", cmd_rate)
    p.add_argument("--cpu", type=float)
    p.add_argument("--hz", type=int)
    p.add_argument("--perf-samples", type=int, help="perf's sample count of the same thread")
    add("threads", cmd_threads).add_argument("--min", type=float, default=90.0)
    add("cxx", cmd_cxx)
    add("recursion", cmd_recursion)
    add("forkexec", cmd_forkexec, exe=False)
    p = add("offcpu", cmd_offcpu)
    p.add_argument("--total", type=float, required=True, help="seconds of waits expected")
    p.add_argument("--tol", type=float, default=20.0)
    p.add_argument("--total-only", action="store_true")
    p.add_argument("--waiters", default="f_sleep,f_read,f_feed",
                   help="the functions holding a third of the waits each")
    p.add_argument("--label", default="offcpu")
    p = add("stripped", cmd_stripped)
    p.add_argument("--min", type=float, default=90.0)
    p.add_argument("--symbols")
    add("syscalls", cmd_syscalls)
    p = add("collapsed", cmd_collapsed, dump=False, exe=False)
    p.add_argument("file")
    p.add_argument("--comm")
    p.add_argument("--seq")
    p.add_argument("--first")
    p.add_argument("--min", type=float, default=90.0)
    p = add("perfcmp", cmd_perfcmp)
    p.add_argument("--perf-script", required=True)
    p.add_argument("--perf-comm", help="perf's comms (thread names), comma-separated; default --comm")
    p.add_argument("--tol", type=float, default=5.0)
    p = add("perf-allowed", cmd_perf_allowed, dump=False, exe=False)
    p.add_argument("mode", choices=("process", "kernel", "system"))
    a = ap.parse_args(argv)
    try:
        return a.fn(a)
    except CheckError as e:
        print("FAIL: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
