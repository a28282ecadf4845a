#!/bin/sh
# PHP with no flags: smolder finds the Zend engine's executor globals in the
# process, reads the frames it runs at each sample and puts them in place of
# the native execute_ex calls that ran them (runtimes/php*.c), under Debian's
# PHP 8.2 (CLI and FPM):
#
#  1. chain: outer -> Klass::run -> inner in that order in >= 90 % of the
#     process's samples, >= 90 % rooted at _start;
#  2. chains: two three-deep chains switching about every millisecond, one
#     leaf in zlib, the other in PCRE (its JIT off: code without unwind
#     information cuts every stack): among the samples whose native leaf
#     tells the chain, >= 85 % hold that whole chain and <= 1 % any frame
#     of the other (only what the sample's registers prove is shown);
#  3. callback: a PHP function a builtin calls (array_map) sits under the
#     builtin, which sits under its caller, in >= 90 % of the samples in it;
#  4. lines: frames carry the line they run (--lines, --python-lines's
#     other name), the leaf's from the sample's own instruction;
#  5. deep: 60 PHP frames over gzcompress are whole and rooted in >= 90 %
#     (the native stack beyond the copy is read from the process);
#  6. FPM: a pool of two workers serving requests (about 60 ms of PHP each)
#     from a local FastCGI client on two connections: >= 80 % of the
#     workers' samples in a request's work hold the script's functions,
#     and the workers are labelled by their pool. (A sample read after
#     its request ended keeps its native frames: a few percent on a quiet
#     host, 97.8-99.5 % named; 15 % beside a fork storm, hence the bound.)
#  7. JIT: chain and chains again, and FPM, with opcache's tracing JIT on
#     (where the build has it): the same floors for the chain and FPM, the
#     whole chains in >= 60 % (calls a trace inlined are not proven), none
#     mixed, and execute_ex in <= 10 % of the samples (the JIT ran them).
#
# php_zts.sh runs it all again on a thread-safe build: SMOLDER_TEST_PHP,
# SMOLDER_TEST_PHP_FPM and SMOLDER_TEST_PHP_TAG (the artifacts' prefix)
# say which binaries.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
WORK="$TESTS_SRCDIR/workloads/php_work.php"
PHP=${SMOLDER_TEST_PHP:-/usr/bin/php8.2}
FPM=${SMOLDER_TEST_PHP_FPM:-/usr/sbin/php-fpm8.2}
TAG=${SMOLDER_TEST_PHP_TAG:-php}
[ -x "$PHP" ] || skip "$PHP not installed (Debian's php8.2-cli)"
echo "$("$PHP" -v | head -n 1)"

# check MODE DUMP NAME: the share of the PHP processes' samples that show
# what MODE expects
check() {
	"$PYTHON3" - "$2" "$1" "$3" "$WORK" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mode, name = sys.argv[2], sys.argv[3]
st = d["stats"]
total = chain = rooted = 0
told = whole = mixed = 0
incb = undercb = 0
work = named = 0
labels = set()
deep = 0
vm = 0

def fname(f):
    return f[:-len("_[php]")].split(" (")[0]

for p in d["profiles"]:
    if not p["labels"].get("comm", "").startswith("php"):
        continue
    labels.add(p["labels"].get("service_name", ""))
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        n = s["count"]
        total += n
        if "_start" in fr:
            rooted += n
        phi = [i for i, f in enumerate(fr) if f.endswith("_[php]")]
        names = [fname(fr[i]) for i in phi]
        if all(x in names for x in ("outer", "Klass::run", "inner")) and \
                names.index("outer") < names.index("Klass::run") < names.index("inner"):
            chain += n
        native = fr[phi[-1] + 1:] if phi else fr
        if "execute_ex" in fr:
            vm += n
        if mode.endswith("chains"):
            z = any("libz.so" in f or "deflate" in f or "adler32" in f for f in native)
            r = any("libpcre2" in f or "pcre2_" in f for f in native)
            if z != r:
                told += n
                me, other = ("a", "b") if z else ("b", "a")
                if any(x.startswith(other + "_") for x in names):
                    mixed += n
                if names[-3:] == [me + "_outer", me + "_mid", me + "_leaf"] and \
                        names[-4:-3] == ["chains"]:
                    whole += n
        if mode == "callback" and "mapped" in names:
            incb += n
            if names[-4:-1] == ["outer_cb", "array_map", "mapped"] or \
                    names[-5:-2] == ["outer_cb", "array_map", "mapped"]:
                undercb += n
        if mode == "deep" and names.count("level") == 58 and names[-1] == "deep_leaf" and "_start" in fr:
            deep += n
        if mode.endswith("fpm") and ("php_execute_script" in fr or phi):
            work += n
            if names[:3] == ["{main}", "handle_request", "render_page"]:
                named += n
pct = lambda x, t: 100.0 * x / t if t else 0.0
rt = st.get("runtimes", {}).get("php", {})
print("%s: %d samples, chain %.1f%%, rooted %.1f%%; php: stacks %s confirmed %s unproven %s failures %s; unwind %s"
      % (name, total, pct(chain, total), pct(rooted, total), rt.get("stacks"), rt.get("confirmed"),
         rt.get("unproven"), rt.get("failures"), json.dumps(st.get("unwind", {}), sort_keys=True)))
if total < 300:
    sys.exit("too few samples")
if mode.startswith("jit"):
    # the JIT ran the code: the VM's loop is not what the samples are in
    print("  execute_ex in %.1f%% of the samples" % pct(vm, total))
    if pct(vm, total) > 10:
        sys.exit("the JIT did not run the script")
if mode.endswith("chain"):
    sys.exit(0 if pct(chain, total) >= 90 and pct(rooted, total) >= 90 else 1)
if mode.endswith("chains"):
    floor = 60 if mode.startswith("jit") else 85
    print("  %d samples whose leaf tells the chain: %.1f%% the whole right chain, %.1f%% mixed"
          % (told, pct(whole, told), pct(mixed, told)))
    sys.exit(0 if told >= 300 and pct(whole, told) >= floor and pct(mixed, told) <= 1 else 1)
if mode == "callback":
    print("  %d samples in mapped, %.1f%% under array_map under outer_cb" % (incb, pct(undercb, incb)))
    sys.exit(0 if incb >= 300 and pct(undercb, incb) >= 90 else 1)
if mode == "deep":
    print("  %.1f%% hold all 60 PHP frames, rooted" % pct(deep, total))
    sys.exit(0 if pct(deep, total) >= 90 else 1)
if mode == "lines":
    src = open(sys.argv[4]).read().split("\n")
    start = src.index("function inner($n)") + 1
    want = {"inner": set(range(start + 2, start + 6)), "Klass::run": set(), "outer": set()}
    for i, text in enumerate(src, 1):
        if text.strip() == "return inner($n);":
            want["Klass::run"].add(i)
        if text.strip() == "$t += $k->run(20000);":
            want["outer"].add(i)
    good = seen = 0
    for p in d["profiles"]:
        for s in p["stacks"]:
            got = {}
            for f in s["stack"].split(";"):
                if not f.endswith("_[php]"):
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
if mode.endswith("fpm"):
    print("  labels %s; %d samples in requests' work, %.1f%% with the script's functions"
          % (sorted(labels), work, pct(named, work)))
    sys.exit(0 if work >= 300 and pct(named, work) >= 80 and "pool smolder" in labels else 1)
PY
}

# record NAME MODE SECONDS [CHECK] [PHP ARGS...]: CHECK defaults to MODE
record() {
	_name=$1 _mode=$2 _s=$3 _check=${4:-$2}
	shift 4
	run_smolder 60 record -F 999 $EXTRA -o "$TMP/$_name.json" -- "$PHP" "$@" "$WORK" "$_mode" "$_s"
	[ "$SM_RC" -eq 0 ] || fail "$_name: record failed"
	keep_artifact "$TMP/$_name.json" "${TAG}_$_name.out.json"
	check "$_check" "$TMP/$_name.json" "$_name"
}

EXTRA=
record chain chain 4 "" || fail "PHP: the chain is not named well enough"
record chains chains 4 "" -d pcre.jit=0 || fail "PHP: stacks mix the chains, or miss them"
record callback callback 3 "" || fail "PHP: a callback is not under the builtin that called it"
record deep deep 4 "" || fail "PHP: 60 frames deep stacks are cut or not rooted"
EXTRA=--lines
record lines chain 3 lines || fail "PHP frames do not carry the right lines"
EXTRA=

# opcache's tracing JIT (off in Debian's php.ini): its code runs in
# execute_ex's frame, stepped as execute_ex; the trace a sample's pc is in
# proves the frame in r14 when one of that frame's function's
# instructions starts it (runtimes/php_jit.h). Calls the JIT inlined into
# a trace of their caller are not proven: fewer whole chains, none mixed.
# The native frames are named too, to tell that the JIT ran the script:
# the VM's execute_ex is then in few samples (in all of them without).
JIT="-d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=32M"
JIT_ON=
# shellcheck disable=SC2086 # $JIT is a list of arguments
if "$PHP" $JIT -r 'exit(opcache_get_status()["jit"]["on"] ?? false ? 0 : 1);' >/dev/null 2>&1; then
	JIT_ON=1
	EXTRA=--python-eval-frames
	# shellcheck disable=SC2086
	record jit_chain chain 4 jit_chain $JIT || fail "PHP JIT: the chain is not named well enough"
	# shellcheck disable=SC2086
	record jit_chains chains 4 jit_chains -d pcre.jit=0 $JIT ||
		fail "PHP JIT: stacks mix the chains, or miss them"
	EXTRA=
else
	echo "note: opcache's JIT is not available to $PHP: JIT not tried"
fi

# PHP-FPM: a pool of two workers as root (-R), in the foreground, on a
# Unix socket in $TMP; Debian's php.ini and opcache as installed, then
# with opcache's tracing JIT on.
if [ ! -x "$FPM" ]; then
	echo "note: $FPM not installed (Debian's php8.2-fpm): FPM not tried"
	exit 0
fi
cat >"$TMP/fpm.conf" <<CONF
[global]
pid = $TMP/fpm.pid
error_log = $TMP/fpm.log
daemonize = no
[smolder]
listen = $TMP/fpm.sock
pm = static
pm.max_children = 2
CONF
# FPM answers nothing for a script path with ".." in it, as a build tree
# beside the source (../tests/...) gives: the script's real path
APP="$(cd "$TESTS_SRCDIR/workloads" && pwd -P)/php_fpm_app.php"

# fpm NAME [PHP-FPM ARGS...]: a pool serving requests on two connections
# for 6 s, its workers recorded for 4, checked as NAME
fpm() {
	_name=$1
	shift
	rm -f "$TMP/fpm.sock"
	"$FPM" -y "$TMP/fpm.conf" -R -F "$@" &
	FPM_PID=$!
	BG_PIDS="$FPM_PID"
	i=0
	while [ ! -S "$TMP/fpm.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -S "$TMP/fpm.sock" ] || { cat "$TMP/fpm.log"; fail "php-fpm did not start"; }
	"$PYTHON3" "$TESTS_SRCDIR/integration/fcgi_client.py" "$TMP/fpm.sock" "$APP" 6 2 &
	CLIENT=$!
	BG_PIDS="$FPM_PID $CLIENT"
	# shellcheck disable=SC2086 # $EXTRA is a list of arguments
	run_smolder 60 record -F 999 -d 4 $EXTRA -p "$FPM_PID" -o "$TMP/$_name.json"
	wait "$CLIENT" || fail "the FastCGI client got no answer"
	kill "$FPM_PID"
	wait "$FPM_PID" 2>/dev/null
	BG_PIDS=
	[ "$SM_RC" -eq 0 ] || fail "$_name: record failed"
	keep_artifact "$TMP/$_name.json" "${TAG}_$_name.out.json"
	check "$_name" "$TMP/$_name.json" "$_name"
}

fpm fpm || fail "PHP-FPM: requests' samples do not carry the script's functions"
if [ -n "$JIT_ON" ]; then
	EXTRA=--python-eval-frames
	fpm jit_fpm -d opcache.jit=tracing -d opcache.jit_buffer_size=32M ||
		fail "PHP-FPM JIT: requests' samples do not carry the script's functions"
	EXTRA=
fi
exit 0
