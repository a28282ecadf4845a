#!/bin/sh
# The SVG flame graph in a real browser: `smolder report --format svg` (plain,
# --icicle, --diff) rendered by headless Chromium, driven over the DevTools
# protocol by flamegraph_browser.py: the script runs, labels fit their frames
# in the real font, search highlights and reports a share, click zooms,
# Escape resets, the header follows a scroll. Screenshots are kept next to
# the test logs (tests/integration/flamegraph_*.png) for a human to look at.
# Skips (77) without chromium. Needs no perf access.
. "$TESTS_SRCDIR/integration/lib.sh"

CHROMIUM=
for c in "${CHROMIUM_BIN:-}" chromium chromium-browser google-chrome; do
	[ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { CHROMIUM=$(command -v "$c"); break; }
done
[ -n "$CHROMIUM" ] || skip "chromium not installed (Debian: apt-get install chromium)"

# Two windows of a made-up service: deep stacks, kernel, inlined and JIT
# frames, names needing XML escapes; the second window shifts work from
# parse to compress.
"$PYTHON3" - "$TMP" <<'EOF' || fail "cannot write the test dumps"
import json, sys
def dump(path, start, weights):
    stacks = {}
    base = ["_start", "__libc_start_main", "main", "server_loop", "handle_request"]
    for name, w in weights.items():
        for i in range(12):
            s = base + [name, "%s_step_%d" % (name, i % 4), "helper<std::map<int, char*>>&_[i]"]
            if i % 3 == 0:
                s += ["write", "ksys_write_[k]", "vfs_write_[k]", "ext4_file_write_iter_[k]"]
            if i % 5 == 0:
                s += ["Interpreter::run_[j]", "LazyCompiled::fn_%d_[j]" % i]
            s += ["leaf_%d" % j for j in range(i % 7)]
            stacks[";".join(s)] = stacks.get(";".join(s), 0) + w * (i + 1)
    st = sorted(({"stack": k, "count": v} for k, v in stacks.items()),
                key=lambda x: (-x["count"], x["stack"].encode()))
    n = sum(x["count"] for x in st)
    idle = [{"stack": "", "count": 3}, {"stack": "schedule_[k]", "count": 40}]
    profs = [{"labels": {"service_name": "api.service", "exe": "/usr/bin/api", "comm": "api"},
              "samples": n, "stacks": st},
             {"labels": {"service_name": "kworker", "exe": "", "comm": "kworker/0:1"},
              "samples": 43, "stacks": sorted(idle, key=lambda x: -x["count"])}]
    profs.sort(key=lambda p: -p["samples"])
    d = {"schema": "smolder.profile/v1", "agent": {"name": "smolder", "version": "0.1.0"},
         "host": {"hostname": "web01", "kernel": "6.1.0", "arch": "x86_64"},
         "window": {"start_ns": start, "end_ns": start + 10 * 10**9},
         "event": {"name": "cpu-clock", "unit": "samples", "frequency_hz": 99},
         "labels": {}, "profiles": profs,
         "stats": {"samples": n + 43, "lost": 0, "dropped": 0, "throttled": 0,
                   "kernel_only": 43, "idle": 0, "corrupt": 0,
                   "unwind": {"complete": n, "truncated": 0, "no_cfi": 0, "no_map": 0,
                              "bad_pc": 0, "depth": 0},
                   "processes": 2, "binaries": 1, "agent_cpu_ns": 0, "agent_rss_bytes": 0}}
    with open(path, "w") as f:
        f.write(json.dumps(d, separators=(",", ":")) + "\n")
dump(sys.argv[1] + "/base.json", 1763740800 * 10**9,
     {"parse_json": 5, "compress": 2, "route": 3, "db_query": 4})
dump(sys.argv[1] + "/new.json", 1763740810 * 10**9,
     {"parse_json": 2, "compress": 6, "route": 3, "db_query": 4})
EOF

check_svg() { # NAME ARGS...
	_name=$1
	shift
	run_smolder 60 report --format svg -o "$TMP/$_name.svg" "$@"
	expect_ok
	"$PYTHON3" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/$_name.svg" \
		|| fail "$_name.svg is not well-formed XML"
	keep_artifact "$TMP/$_name.svg" "flamegraph_$_name.svg"
	mkdir -p "$TMP/shots_$_name"
	echo "+ browser checks of $_name.svg"
	timeout -k 5 180 "$PYTHON3" "$TESTS_SRCDIR/integration/flamegraph_browser.py" \
		"$CHROMIUM" "$TMP/$_name.svg" "$TMP/shots_$_name" --search 'compress|parse'
	_rc=$?
	[ "$_rc" -eq 77 ] && skip "cannot drive $CHROMIUM here"
	[ "$_rc" -eq 0 ] || fail "browser checks of $_name.svg failed (status $_rc)"
	for _p in "$TMP/shots_$_name"/*.png; do
		[ -f "$_p" ] && keep_artifact "$_p" "flamegraph_${_name}_$(basename "$_p")"
	done
}

check_svg flame "$TMP/new.json"
check_svg icicle --icicle "$TMP/new.json"
check_svg diff --diff "$TMP/base.json" "$TMP/new.json"
# width is the new window, colour the change: compress grew, parse_json shrank
grep -q '<title>compress (' "$TMP/diff.svg" || fail "diff: no frame compress"
"$PYTHON3" - "$TMP/diff.svg" <<'EOF' || fail "diff colours wrong"
import re, sys
svg = open(sys.argv[1]).read()
def fill(name):
    m = re.search(r'<title>' + re.escape(name) + r' \([^<]*</title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"', svg)
    return tuple(map(int, m.groups()))
c, p = fill("compress"), fill("parse_json")
print("  compress %s, parse_json %s" % (c, p))
sys.exit(0 if c[0] > c[2] + 30 and p[2] > p[0] + 30 else 1)
EOF
echo "flamegraph_browser: flame, icicle and diff SVGs work in $CHROMIUM"
