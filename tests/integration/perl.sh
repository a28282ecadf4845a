#!/bin/sh
# Perl with no flags: smolder finds the interpreter (PL_curinterp) in the
# process, reads the subs its context stacks hold at each sample and puts
# them in place of the native Perl_runops_standard calls that ran them
# (runtimes/perl*.c), under Debian's perl:
#
#  1. chain: main::outer -> Pkg::run -> main::inner in that order in
#     >= 75 % of the process's samples, >= 90 % rooted at _start, the
#     process labelled by its script (measured: 86-90 %, 83 % under ASan,
#     whose slower agent reads later; the rest is [unproven]_[pl], ops
#     that hold nothing of the running sub: see doc/decisions.md, "Perl:
#     what proves a sub");
#  2. chains: two three-deep chains switching about every millisecond, one
#     leaf in libcrypt (crypt), the other in libc's memcpy (joining two
#     1 MB strings): among the samples whose native leaf tells the chain,
#     >= 85 % hold that whole chain and <= 1 % any sub of the other (only
#     what the sample's registers prove is shown);
#  3. lines: subs carry the line of the statement they run (--lines).
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
WORK="$TESTS_SRCDIR/workloads/perl_work.pl"
# SMOLDER_TEST_PERL: another perl to run it under, by hand (a build of
# an older release: before 5.32 its ops prove nothing, doc/decisions.md)
PERL=${SMOLDER_TEST_PERL:-/usr/bin/perl}
[ -x "$PERL" ] || skip "$PERL not installed"
"$PERL" -e 'exit($] >= 5.016 && $] < 5.041 ? 0 : 1)' ||
	skip "$("$PERL" -e 'print $]') has no layout (5.16-5.40)"

# check MODE DUMP NAME: the share of the perl process's samples that show
# what MODE expects
check() {
	"$PYTHON3" - "$2" "$1" "$3" "$WORK" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mode, name = sys.argv[2], sys.argv[3]
st = d["stats"]
total = chain = rooted = 0
told = whole = mixed = 0
labels = set()

def fname(f):
    return f[:-len("_[pl]")].split(" (")[0]

for p in d["profiles"]:
    if p["labels"].get("comm", "") != "perl":
        continue
    labels.add(p["labels"].get("service_name", ""))
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        n = s["count"]
        total += n
        if "_start" in fr:
            rooted += n
        pli = [i for i, f in enumerate(fr) if f.endswith("_[pl]")]
        names = [fname(fr[i]) for i in pli]
        if names[-3:] == ["main::outer", "Pkg::run", "main::inner"]:
            chain += n
        native = fr[pli[-1] + 1:] if pli else fr
        if mode == "chains":
            a = any("libcrypt" in f or "crypt" in f.lower() for f in native)
            b = any("memmove" in f or "memcpy" in f for f in native)
            if a != b:
                told += n
                me, other = ("a", "b") if a else ("b", "a")
                if any(x.startswith("main::" + other + "_") for x in names):
                    mixed += n
                if names[-4:] == ["main::chains", "main::" + me + "_outer", "main::" + me + "_mid",
                                  "main::" + me + "_leaf"]:
                    whole += n
pct = lambda x, t: 100.0 * x / t if t else 0.0
rt = st.get("runtimes", {}).get("perl", {})
print("%s: %d samples, chain %.1f%%, rooted %.1f%%, labels %s; perl: stacks %s confirmed %s unproven %s failures %s"
      % (name, total, pct(chain, total), pct(rooted, total), sorted(labels), rt.get("stacks"),
         rt.get("confirmed"), rt.get("unproven"), rt.get("failures")))
if total < 300:
    sys.exit("too few samples")
if mode == "chain":
    sys.exit(0 if pct(chain, total) >= 75 and pct(rooted, total) >= 90 and labels == {"perl_work.pl"} else 1)
if mode == "chains":
    print("  %d samples whose leaf tells the chain: %.1f%% the whole right chain, %.1f%% mixed"
          % (told, pct(whole, told), pct(mixed, told)))
    sys.exit(0 if told >= 300 and pct(whole, told) >= 85 and pct(mixed, told) <= 1 else 1)
if mode == "lines":
    src = open(sys.argv[4]).read().split("\n")
    start = src.index("sub inner {") + 1
    want = {"main::inner": set(range(start + 3, start + 7)), "Pkg::run": set(), "main::outer": set()}
    for i, text in enumerate(src, 1):
        if text.strip() == "return main::inner($n);":
            want["Pkg::run"].add(i)
        if text.strip() == "$t += Pkg::run(20000);":
            want["main::outer"].add(i)
    good = seen = 0
    for p in d["profiles"]:
        for s in p["stacks"]:
            got = {}
            for f in s["stack"].split(";"):
                if not f.endswith("_[pl]"):
                    continue
                fn, _, rest = f.partition(" (")
                if fn in want:
                    got[fn] = int(rest.split(":")[1].split(")")[0]) if ":" in rest else -1
            if len(got) == 3:
                seen += s["count"]
                if all(got[k] in want[k] for k in want):
                    good += s["count"]
    print("  %d samples with the chain, %.1f%% at the right lines" % (seen, pct(good, seen)))
    sys.exit(0 if seen >= 300 and pct(good, seen) >= 90 else 1)
PY
}

# record NAME MODE SECONDS [CHECK]: CHECK defaults to MODE
record() {
	_name=$1 _mode=$2 _s=$3 _check=${4:-$2}
	run_smolder 60 record -F 999 $EXTRA -o "$TMP/$_name.json" -- "$PERL" "$WORK" "$_mode" "$_s"
	[ "$SM_RC" -eq 0 ] || fail "$_name: record failed"
	keep_artifact "$TMP/$_name.json" "perl_$_name.out.json"
	check "$_check" "$TMP/$_name.json" "$_name"
}

EXTRA=
record chain chain 4 || fail "Perl: the chain is not named well enough"
record chains chains 4 || fail "Perl: stacks mix the chains, or miss them"
EXTRA=--lines
record lines chain 3 lines || fail "Perl subs do not carry the right lines"
exit 0
