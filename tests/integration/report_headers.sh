#!/bin/sh
# smolder report's headers describe what it kept: with --label (or --pid)
# keeping part of the windows' profiles, the top table counts only the kept
# samples and leaves out the windows' counters (lost, dropped, processes,
# unwinding), which count every process; the flame graph's title counts the
# kept samples and its subtitle names the rates the windows ran at, never
# their average. report --group-by thread on the committed dumps: a table
# per thread, thread frames in the collapsed text, and an error on dumps
# recorded per process.
. "$TESTS_SRCDIR/integration/lib.sh"
FIX="$TESTS_SRCDIR/fixtures/report"

# Two dumps with different labels: a.json (env=prod; nginx 11, redis 4
# samples) and c.json (env=staging, nginx 5 samples, 12 processes).
run_smolder 30 report --label env=staging "$FIX/a.json" "$FIX/c.json"
expect_ok
head -n 3 "$TMP/smolder.out" | sed 's/^/    /'
grep -q '^samples: 5  profiles: 2  processes: 12  ' "$TMP/smolder.out" \
	|| fail "--label env=staging: header does not count c.json's 5 samples alone"
grep -q '^lost: 0  dropped: 2  ' "$TMP/smolder.out" || fail "c.json's own counters not shown"

# A profile label keeping part of a window: no counter of the whole window.
run_smolder 30 report --label comm=redis-server "$FIX/a.json" "$FIX/c.json"
expect_ok
head -n 3 "$TMP/smolder.out" | sed 's/^/    /'
grep -q '^samples: 4  profiles: 1  functions: 4$' "$TMP/smolder.out" \
	|| fail "--label comm=redis-server: header is not of the 4 kept samples"
grep -q '^cut short (\[truncated\]): 0 of 4 samples$' "$TMP/smolder.out" \
	|| fail "no line of what the kept stacks say"
grep -q 'processes: 12\|^lost:' "$TMP/smolder.out" && fail "the windows' counters shown for a part of them"
grep -q '^span: 2025-11-21T16:00:00Z to 2025-11-21T16:00:10Z ' "$TMP/smolder.out" \
	|| fail "span is not a.json's window alone"

# The flame graph: title of the kept samples, rates of the windows.
run_smolder 30 report -f svg -o "$TMP/f.svg" --label comm=redis-server "$FIX/a.json" "$FIX/c.json"
expect_ok
grep -q '<text id="title"[^>]*>CPU: web01 [^<]*, 4 samples<' "$TMP/f.svg" || fail "svg title does not count 4 samples"
grep -q '<text id="subtitle"[^>]*>1 dumps, cpu-clock, 99 Hz<' "$TMP/f.svg" || fail "svg subtitle of one 99 Hz window wrong"
run_smolder 30 report -f svg -o "$TMP/rates.svg" "$FIX/a.json" "$FIX/threads.json" "$FIX/c.json"
expect_ok
grep -o '<text id="subtitle"[^>]*>[^<]*<' "$TMP/rates.svg" | sed 's/^/    /'
grep -q '<text id="subtitle"[^>]*>3 dumps, cpu-clock, windows at 99, 49 and 25 Hz<' "$TMP/rates.svg" \
	|| fail "svg subtitle does not give the rate of each window"
run_smolder 30 report -f svg -o "$TMP/one.svg" "$FIX/a.json" "$FIX/b.json"
expect_ok
grep -q '<text id="subtitle"[^>]*>2 dumps, cpu-clock, 99 Hz<' "$TMP/one.svg" || fail "svg subtitle of two 99 Hz windows wrong"

# --group-by thread on the committed dumps
run_smolder 30 report --group-by thread "$FIX/threads.json"
expect_ok
grep -q '^app / worker-a: 6 samples (60.00%)$' "$TMP/smolder.out" || fail "no section of worker-a"
grep -q '^app / \[unknown thread\]: 1 sample (10.00%)$' "$TMP/smolder.out" || fail "no section of the unknown thread"
run_smolder 30 report --group-by thread -f collapsed "$FIX/threads.json"
expect_ok
cat >"$TMP/want.folded" <<'EOF'
app;[thread worker-a];[truncated];spin_a 1
app;[thread worker-a];start_thread;worker_a;spin_a 5
app;[thread worker-b];start_thread;worker_b;spin_b 3
app;[unknown thread];start_thread;other 1
EOF
diff -u "$TMP/want.folded" "$TMP/smolder.out" || fail "collapsed output per thread differs"
run_smolder 30 report -f collapsed "$FIX/threads.json"
expect_ok
grep -q '\[thread \|\[unknown thread\]' "$TMP/smolder.out" && fail "threads shown without --group-by thread"
run_smolder 30 report --group-by thread "$FIX/a.json" "$FIX/b.json"
[ "$SM_RC" -eq 1 ] || fail "--group-by thread on dumps without threads exited $SM_RC, want 1"
grep -q 'none of the 4 profiles kept has a thread label' "$TMP/smolder.err" || fail "message does not say why"
run_smolder 30 report --group-by thread "$FIX/a.json" "$FIX/threads.json"
expect_ok
grep -q '2 of the 5 profiles kept have no thread label' "$TMP/smolder.err" || fail "mixed dumps not warned about"
echo "report_headers: OK"
