#!/bin/sh
# CRuby with no flags: smolder finds the VM in the process, reads each
# sampled thread's control frames from its memory and puts the Ruby frames
# in place of the native vm_exec_core frames that ran them, C methods where
# their C function runs.
#
#  1. chain, under the system's ruby (Debian's 3.1): >= 90% of the
#     process's samples hold Object#outer -> Klass#run -> Other.spin in that
#     order, >= 90% are rooted at _start; the process is labelled by its
#     main script;
#  2. two three-deep chains switching every millisecond, each leaf in its
#     own C extension (zlib, digest): among the samples whose native leaf
#     tells the chain, >= 85% hold that whole chain and <= 0.5% any frame of
#     the other (the stack is read just after the sample, and only what the
#     sample's own registers prove is shown);
#  3. threads (named left and right): >= 95% of each thread's samples carry
#     its own methods, none the other's;
#  4. --lines (--python-lines' other name): frames carry the line
#     they run (spin's loop, the lines where run and outer call);
#  5. rdoc over a directory of the standard library: >= 90% of the samples
#     in Ruby code (an rb_vm_exec frame) carry Ruby frames.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
WORK="$TESTS_SRCDIR/workloads/rb_work.rb"
RUBY=$(command -v ruby) || skip "ruby not installed (Debian: apt-get install ruby)"

# check MODE DUMP NAME: the share of the ruby process's samples that show
# what MODE expects
check() {
	"$PYTHON3" - "$2" "$1" "$3" "$WORK" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mode, name = sys.argv[2], sys.argv[3]
st = d["stats"]
total = chain = rooted = 0
told = whole = mixedc = 0
inruby = named = 0
per = {}
labels = set()

CHAIN = {"a": ["Object#a_outer", "Alpha#mid", "Alpha.leaf"],
         "b": ["Object#b_outer", "Beta#mid", "Beta.leaf"]}
LIB = {"a": "Zlib::", "b": "Digest::"}

def rb(fr):
    return [f[:-5] for f in fr if f.endswith("_[rb]") and not f.startswith("[unproven]")]

def method(f):
    return f.split(" (")[0]

for p in d["profiles"]:
    lab = p["labels"]
    if mode != "rdoc" and not lab.get("comm", "").startswith("ruby") and lab.get("comm") not in ("left", "right"):
        continue
    if mode == "rdoc" and lab.get("comm") != "rdoc":
        continue
    labels.add(lab.get("service_name"))
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        n = s["count"]
        total += n
        names = [method(f) for f in rb(fr)]
        if "_start" in fr:
            rooted += n
        if all(x in names for x in ("Object#outer", "Klass#run", "Other.spin")) and \
                names.index("Object#outer") < names.index("Klass#run") < names.index("Other.spin"):
            chain += n
        if "rb_vm_exec" in fr:
            inruby += n
            named += n if names else 0
        if mode == "chains":
            # the native frames above the innermost Ruby frame tell the leaf
            idx = [i for i, f in enumerate(fr) if f.endswith("_[rb]")]
            native = fr[idx[-1] + 1:] if idx else fr
            z = any(("libz.so" in f or "deflate" in f or "adler32" in f) for f in native)
            h = any(("SHA256" in f or "sha256" in f or "digest.so" in f) for f in native)
            if z != h:
                told += n
                me, other = ("a", "b") if z else ("b", "a")
                if any(x in CHAIN[other] or x.startswith(LIB[other]) for x in names):
                    mixedc += n
                mine = [method(f) for f in rb(fr) if " (" in f]
                if mine[-3:] == CHAIN[me]:
                    whole += n
        if mode == "threads":
            t = p["labels"].get("thread") or p["labels"].get("comm")
            if t in ("left", "right"):
                mine, theirs = ("Left#spin", "Object#worker_a"), ("Right#spin", "Object#worker_b")
                if t == "right":
                    mine, theirs = theirs, mine
                c = per.setdefault(t, [0, 0, 0])
                c[0] += n
                c[1] += n if any(x in names for x in mine) else 0
                c[2] += n if any(x in names for x in theirs) else 0
pct = lambda x, t: 100.0 * x / t if t else 0.0
print("%s: %d samples, chain %.1f%%, rooted %.1f%%, labels %s; stats: %s" % (
    name, total, pct(chain, total), pct(rooted, total), sorted(labels),
    json.dumps(st.get("runtimes", {}).get("ruby", {}), sort_keys=True)))
if total < 500:
    sys.exit("too few samples")
if mode == "chain":
    sys.exit(0 if pct(chain, total) >= 90 and pct(rooted, total) >= 90 and labels == {"rb_work.rb"} else 1)
if mode == "chains":
    print("  %d samples whose leaf tells the chain: %.1f%% the whole right chain, %.1f%% mixed"
          % (told, pct(whole, told), pct(mixedc, told)))
    sys.exit(0 if told >= 500 and pct(whole, told) >= 85 and pct(mixedc, told) <= 0.5 else 1)
if mode == "threads":
    ok = len(per) == 2
    for t, (n, mine, theirs) in sorted(per.items()):
        print("  thread %s: %d samples, %.1f%% its own methods, %.1f%% the other's" % (
            t, n, pct(mine, n), pct(theirs, n)))
        ok = ok and n >= 200 and pct(mine, n) >= 95 and theirs == 0
    sys.exit(0 if ok else 1)
if mode == "rdoc":
    print("  %d samples in Ruby code, %.1f%% with Ruby frames" % (inruby, pct(named, inruby)))
    sys.exit(0 if inruby >= 500 and pct(named, inruby) >= 90 else 1)
if mode == "lines":
    src = open(sys.argv[4]).read().split("\n")
    want = {"Object#outer": set(), "Klass#run": set(), "Other.spin": set()}
    for i, text in enumerate(src, 1):
        t = text.strip()
        if t.startswith("k.run(20000)"):
            want["Object#outer"].add(i)
        if t == "Other.spin(n)":
            want["Klass#run"].add(i)
    start = src.index("  def self.spin(n)") + 1
    want["Other.spin"] = set(range(start + 1, start + 9))
    good = seen = 0
    for p in d["profiles"]:
        for s in p["stacks"]:
            got = {}
            for f in rb(s["stack"].split(";")):
                fn, _, rest = f.partition(" (")
                if fn in want:
                    got[fn] = int(rest.split(":")[1].split(")")[0]) if ":" in rest else -1
            if len(got) == 3:
                seen += s["count"]
                if all(got[k] in want[k] for k in want):
                    good += s["count"]
    print("  %d samples with the chain, %.1f%% at the right lines" % (seen, pct(good, seen)))
    sys.exit(0 if seen >= 500 and pct(good, seen) >= 90 else 1)
PY
}

# record NAME MODE SECONDS [CHECK]: CHECK defaults to MODE
record() {
	run_smolder 120 record -F 999 $EXTRA -o "$TMP/$1.json" -- "$RUBY" "$WORK" "$2" "$3"
	[ "$SM_RC" -eq 0 ] || fail "$1: record failed"
	keep_artifact "$TMP/$1.json" "ruby_$1.out.json"
	check "${4:-$2}" "$TMP/$1.json" "$1"
}

EXTRA=
# 6 s: start-up (requiring zlib and digest) is work the chain does not
# hold, and slower when the suite runs in parallel
record chain chain 6 || fail "the chain is not named well enough"
record chains chains 4 || fail "stacks mix the chains, or miss them"
EXTRA="--group-by thread"
record threads threads 3 || fail "threads do not have their own Ruby stacks"
EXTRA=--lines
record lines chain 6 lines || fail "Ruby frames do not carry the right lines"
EXTRA=

# rdoc (a script of its own, #!/usr/bin/ruby) over three directories of the
# standard library it came with
RDOC=$(command -v rdoc) || skip "rdoc not installed"
LIB=$("$RUBY" -e 'print RbConfig::CONFIG["rubylibdir"]')
run_smolder 120 record -F 999 -o "$TMP/rdoc.json" -- "$RDOC" -q -o "$TMP/doc" "$LIB/net" "$LIB/csv" "$LIB/json"
[ "$SM_RC" -eq 0 ] || fail "rdoc: record failed"
keep_artifact "$TMP/rdoc.json" "ruby_rdoc.out.json"
check rdoc "$TMP/rdoc.json" rdoc || fail "rdoc's samples in Ruby code do not carry Ruby frames"
exit 0
