#!/bin/sh
# CPython with no flags: smolder finds the interpreter in the process,
# reads each sampled thread's Python stack from its memory and puts the
# Python frames in place of the native eval-loop frames that ran them.
#
#  1. chain, under every CPython installed (pyenv's 2.7, 3.6-3.13 and
#     Debian's /usr/bin/python3): >= 90% of the process's samples hold
#     outer -> middle -> inner in that order, >= 90% are rooted at _start;
#  2. native: zlib's C frames sit under compress_data, the Python frame that
#     called them, in >= 90% of the samples in zlib;
#  3. stacks the program had (2.7, 3.8, 3.10-3.13 when installed, and
#     Debian's 3.11): two three-deep chains switching every millisecond,
#     each leaf in its own C library: among the samples whose native leaf
#     tells the chain, >= 85% hold that whole chain and <= 1% any frame of
#     the other (the stack is read just after the sample, and only what
#     the sample's own words prove is shown);
#  4. threads: each thread's Python stack is its own; a pool's short tasks
#     (0.5-2 ms, at random) are named for the other task in <= 0.5% of
#     their samples, and for their own in >= 90% (95-97% on a quiet host;
#     the rest is [unproven]: the read, after the sample, found the thread
#     in its next task, which happens more the later it reads, as under
#     the load of make -j2; where the task is not shown, the frame that is
#     must be the [unproven] marker in >= 99% of the samples);
#  5. --python-lines: frames carry the line they run (inner's loop, and the
#     lines where outer and middle call), from 2.7's and 3.11's tables.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
WORK="$TESTS_SRCDIR/workloads/py_work.py"
PYENV_VERSIONS="${PYENV_ROOT:-$HOME/.pyenv}/versions"

# The interpreter of minor version $1 under pyenv, or nothing.
pyenv_python() {
	for d in "$PYENV_VERSIONS"/$1.*; do
		for b in "$d/bin/python$1"; do
			[ -x "$b" ] && { echo "$b"; return; }
		done
	done
}

# check MODE DUMP NAME: the share of the python process's samples that show
# what MODE expects
check() {
	"$PYTHON3" - "$2" "$1" "$3" "$WORK" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mode, name = sys.argv[2], sys.argv[3]
st = d["stats"]
total = chain = rooted = inz = under = 0
told = whole = mixedc = 0
ptold = pright = pwrong = pmarked = 0
threads = mixed = own = 0

def pyname(f):
    return f.split(" (")[0]

for p in d["profiles"]:
    if not p["labels"].get("comm", "").startswith("python"):
        continue
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        n = s["count"]
        total += n
        if "_start" in fr or "start_thread" in fr:
            rooted += n
        pyi = [i for i, f in enumerate(fr) if f.endswith("_[py]")]
        names = [pyname(fr[i]) for i in pyi]
        if all(x in names for x in ("outer", "middle", "inner")) and \
                names.index("outer") < names.index("middle") < names.index("inner"):
            chain += n
        native = fr[pyi[-1] + 1:] if pyi else fr
        # zlib's frames (named, or by module when libz is stripped)
        z = any(("libz.so" in f or "deflate" in f or "adler32" in f) for f in native)
        if mode == "native" and any("libz.so" in f or "deflate" in f for f in fr):
            inz += n
            if pyi and names[-1] == "compress_data" and z:
                under += n
        if mode == "chains":
            native = fr[pyi[-1] + 1:] if pyi else fr
            z = any(("libz.so" in f or "deflate" in f or "adler32" in f) for f in native)
            h = any(("libcrypto" in f or "sha256" in f.lower() or "sha2" in f.lower()) for f in native)
            if z != h:
                told += n
                me, other = ("a", "b") if z else ("b", "a")
                if any(x.startswith(other + "_") for x in names):
                    mixedc += n
                mine = [x for x in names if x.startswith(me + "_")]
                if mine[-3:] == [me + "_outer", me + "_mid", me + "_leaf"] and names[-1] == me + "_leaf":
                    whole += n
        if mode == "pool":
            native = fr[pyi[-1] + 1:] if pyi else fr
            z = any(("libz.so" in f or "deflate" in f or "adler32" in f) for f in native)
            h = any(("libcrypto" in f or "sha256" in f.lower() or "sha2" in f.lower()) for f in native)
            if z != h:
                ptold += n
                right, wrong = ("task_a", "task_b") if z else ("task_b", "task_a")
                pright += n if right in names else 0
                pwrong += n if wrong in names else 0
                pmarked += n if right not in names and names and names[-1] == "[unproven]_[py]" else 0
        if mode == "threads" and "start_thread" in fr:
            threads += n
            a, b = "worker_a" in names, "worker_b" in names
            sa, sb = "spin_a" in names, "spin_b" in names
            if (a and sb) or (b and sa) or (a and b):
                mixed += n
            elif (a and sa) or (b and sb):
                own += n
pct = lambda x, t: 100.0 * x / t if t else 0.0
print("%s: %d samples, chain %.1f%%, rooted %.1f%%; stats: %s" % (name, total, pct(chain, total),
      pct(rooted, total), json.dumps(st.get("runtimes", {}).get("cpython", {}), sort_keys=True)))
if total < 500:
    sys.exit("too few samples")
if mode == "chain":
    sys.exit(0 if pct(chain, total) >= 90 and pct(rooted, total) >= 90 else 1)
if mode == "native":
    print("  %d samples in zlib, %.1f%% under compress_data" % (inz, pct(under, inz)))
    sys.exit(0 if inz >= 300 and pct(under, inz) >= 90 else 1)
if mode == "lines":
    src = open(sys.argv[4]).read().split("\n")
    want = {"outer": set(), "middle": set(), "inner": set()}
    for i, text in enumerate(src, 1):
        t = text.strip()
        if t == "middle(20000)":
            want["outer"].add(i)
        if t == "return inner(n)":
            want["middle"].add(i)
    start = src.index("def inner(n):") + 1
    want["inner"] = set(range(start + 1, start + 5))
    good = seen = 0
    for p in d["profiles"]:
        for s in p["stacks"]:
            fr = [f for f in s["stack"].split(";") if f.endswith("_[py]")]
            got = {}
            for f in fr:
                fn, _, rest = f.partition(" (")
                if fn in want:
                    got[fn] = int(rest.split(":")[1].split(")")[0]) if ":" in rest else -1
            if len(got) == 3:
                seen += s["count"]
                if all(got[k] in want[k] for k in want):
                    good += s["count"]
    print("  %d samples with the chain, %.1f%% at the right lines" % (seen, pct(good, seen)))
    sys.exit(0 if seen >= 500 and pct(good, seen) >= 90 else 1)
if mode == "chains":
    print("  %d samples whose leaf tells the chain: %.1f%% the whole right chain, %.1f%% mixed"
          % (told, pct(whole, told), pct(mixedc, told)))
    sys.exit(0 if told >= 500 and pct(whole, told) >= 85 and pct(mixedc, told) <= 1 else 1)
if mode == "pool":
    print("  %d samples whose leaf tells the task: %.1f%% the right task, %.2f%% the wrong one, "
          "%.1f%% marked [unproven] (lag mean %.0f us, max %.1f ms)"
          % (ptold, pct(pright, ptold), pct(pwrong, ptold), pct(pmarked, ptold),
             st["runtimes"]["cpython"]["lag_ns"] / 1e3 / max(st["runtimes"]["cpython"]["stacks"], 1),
             st["runtimes"]["cpython"]["lag_max_ns"] / 1e6))
    sys.exit(0 if ptold >= 500 and pct(pright, ptold) >= 90 and pct(pright + pmarked, ptold) >= 99
             and pct(pwrong, ptold) <= 0.5 else 1)
if mode == "threads":
    print("  %d thread samples: %.1f%% their own stack, %.1f%% mixed" % (threads, pct(own, threads), pct(mixed, threads)))
    sys.exit(0 if threads >= 500 and pct(own, threads) >= 90 and mixed == 0 else 1)
PY
}

# record NAME INTERPRETER MODE SECONDS [CHECK]: CHECK defaults to MODE
record() {
	run_smolder 120 record -F 999 $EXTRA -o "$TMP/$1.json" -- "$2" "$WORK" "$3" "$4"
	[ "$SM_RC" -eq 0 ] || fail "$1: record failed"
	keep_artifact "$TMP/$1.json" "python_$1.out.json"
	check "${5:-$3}" "$TMP/$1.json" "$1"
}
EXTRA=
# The chain runs for 6 s: its start-up (imports, a tenth of a second of
# CPU) is work the chain does not hold, and when the suite runs in parallel
# the interpreter may get half a CPU and slower imports (a sanitizer
# build takes a CPU's worth of its own): in 3 s, 3.11's start-up was 12 %
# of its 1,532 samples in one fresh-clone .ci/run. (The workload keeps
# time by the wall clock: a CPU-time clock is a system call in `outer`,
# where a busy host then parks the thread whenever the agent runs, and
# reads see it there.)
CHAIN_S=6

[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 not installed"
record system-chain /usr/bin/python3 chain "$CHAIN_S" || fail "Debian's python3: the chain is not named well enough"
# an interpreter is labelled by its script, as a JVM by its main class
"$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
names = {p["labels"].get("service_name") for p in d["profiles"] if p["labels"].get("comm", "").startswith("python")}
print("  the interpreter labelled %s" % sorted(names))
sys.exit(0 if names == {"py_work.py"} else 1)' "$TMP/system-chain.json" || fail "the interpreter is not labelled by its script"
tried=""
for v in 2.7 3.6 3.7 3.8 3.9 3.10 3.11 3.12 3.13; do
	py=$(pyenv_python $v)
	if [ -z "$py" ]; then
		echo "note: CPython $v is not installed under $PYENV_VERSIONS: not tried"
		continue
	fi
	tried="$tried $v"
	record "$v-chain" "$py" chain "$CHAIN_S" || fail "CPython $v: the chain is not named well enough"
done
echo "chain tried under CPython:$tried and /usr/bin/python3"

record system-native /usr/bin/python3 native 3 || fail "zlib's frames are not under the Python frame that called them"
record system-threads /usr/bin/python3 threads 3 || fail "threads do not have their own Python stacks"

# Two chains switching every millisecond, each leaf in its own C library:
# a stack read a moment late shows the other chain's callers, one placed on
# the sample by code pointers alone takes the wrong activation; proven
# frames only (runtimes/cpython_stack.c) keep every sample to its chain.
alt=""
for v in 2.7 3.8 3.10 3.11 3.12 3.13; do
	py=$(pyenv_python $v)
	[ -n "$py" ] || continue
	alt="$alt $v"
	record "$v-chains" "$py" chains 4 || fail "CPython $v: stacks mix the chains, or miss them"
	[ "$v" = 2.7 ] && { record "2.7-threads" "$py" threads 3 || fail "CPython 2.7: threads do not have their own Python stacks"; }
done
record system-chains /usr/bin/python3 chains 4 || fail "Debian's python3: stacks mix the chains, or miss them"
# A pool of threads running short tasks, each in its own C library, the
# GIL released there: every sample is its own thread's task.
record system-pool /usr/bin/python3 pool 4 ||
	fail "Debian's python3: samples of a pool's tasks are named for another task, or miss theirs unmarked"
EXTRA=--python-lines
record system-lines /usr/bin/python3 chain "$CHAIN_S" lines || fail "Python frames do not carry the right lines (3.11)"
py=$(pyenv_python 2.7)
if [ -n "$py" ]; then
	record 2.7-lines "$py" chain "$CHAIN_S" lines || fail "Python frames do not carry the right lines (2.7)"
fi
EXTRA=""
[ -n "$alt" ] || echo "note: no pyenv CPython for the chains: Debian's 3.11 alone"
exit 0
