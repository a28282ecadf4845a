#!/usr/bin/env python3
"""Checks of the recordings of process trees (record -p, record -- CMD), used
by pid_late_threads.sh and pid_tree.sh. Python 3 standard library only; the
dump is loaded and validated by dumpcheck.py's helpers. Each subcommand prints
what it measured and exits 0 (pass) or 1 (fail)."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpcheck  # noqa: E402


def samples_in(stacks, fn):
    """Samples whose stack holds frame fn (inlined frames count)."""
    return sum(c for s, c in stacks.items()
               if any(dumpcheck.strip_suffix(f) == fn for f in dumpcheck.frames(s)))


def cmd_late_threads(a):
    """late_work (threads shorter than a sampling period) against main_work
    (the same CPU time per round, in the long-lived main thread)."""
    dump = dumpcheck.load_valid(a.dump)
    _, total, stacks = dumpcheck.need(dump, "late_threads", None)
    main = samples_in(stacks, "main_work")
    late = samples_in(stacks, "late_work")
    ratio = late / main if main else 0.0
    print("%s: %d samples; main_work %d, late_work %d (ratio %.2f, want %.2f to %.2f, "
          "main_work at least %d); filtered %s"
          % (a.label, total, main, late, ratio, a.low, a.high, a.min_main,
             dump["stats"].get("filtered")))
    dumpcheck.print_stats(dump)
    dumpcheck.show_stacks(stacks, limit=4)
    if main < a.min_main:
        print("FAIL: too few samples of main_work to compare")
        return 1
    if not a.low <= ratio <= a.high:
        print("FAIL: the short-lived threads' work is not sampled like main's")
        return 1
    return 0


def cmd_tree(a):
    """late_fork's tree: every function of the tree sampled, nothing else."""
    dump = dumpcheck.load_valid(a.dump)
    allowed = set(a.exes.split(","))
    _, stacks = dumpcheck.merged(dump["profiles"])
    rc = 0
    dumpcheck.print_stats(dump)
    print(dumpcheck.profiles_summary(dump))
    for want in a.want:
        fn, _, least = want.partition(":")
        n = samples_in(stacks, fn)
        ok = n >= int(least or 1)
        print("tree: %-12s %5d samples (want at least %s)%s" % (fn, n, least or 1, "" if ok else "  FAIL"))
        rc |= 0 if ok else 1
    # A process of the tree gone before its first samples were handled has
    # no name left to read; a process outside the tree is never read at all,
    # so an unnamed profile is the tree's.
    for p in dump["profiles"]:
        if not p["labels"].get("exe") and not p["labels"].get("comm"):
            print("tree: %d samples of a process gone before it was read" % p["samples"])
    strays = [p for p in dump["profiles"]
              if (p["labels"].get("exe") or p["labels"].get("comm"))
              and dumpcheck.basename(p["labels"].get("exe", "")) not in allowed]
    for p in strays:
        print("FAIL: %d samples of %s (comm %s): not in the recorded tree"
              % (p["samples"], p["labels"].get("exe"), p["labels"].get("comm")))
        rc = 1
    if a.filtered and not dump["stats"].get("filtered"):
        print("FAIL: stats.filtered is %r: the other processes' samples were not seen and left out"
              % dump["stats"].get("filtered"))
        rc = 1
    return rc


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd")
    sub.required = True
    p = sub.add_parser("late-threads")
    p.set_defaults(fn=cmd_late_threads)
    p.add_argument("dump")
    p.add_argument("--label", default="late threads")
    p.add_argument("--low", type=float, default=0.7)
    p.add_argument("--high", type=float, default=1.4)
    p.add_argument("--min-main", type=int, default=100)
    p = sub.add_parser("tree")
    p.set_defaults(fn=cmd_tree)
    p.add_argument("dump")
    p.add_argument("--exes", required=True, help="the executables of the tree, ',' separated")
    p.add_argument("--want", action="append", default=[], help="FUNCTION[:MIN_SAMPLES]")
    p.add_argument("--filtered", action="store_true", help="other processes' samples were left out")
    a = ap.parse_args(argv)
    try:
        return a.fn(a)
    except dumpcheck.CheckError as e:
        print("FAIL: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
